package dev.piper.benchmarks.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A generated log for {@link JoinFreshness}, in memory: its lines in order, each line's original
 * event time and where in the line its digits are, so that the line can be sent carrying another
 * time.
 *
 * @param lines the lines, without their line breaks
 * @param times per line, its event time as written
 * @param timeAt per line, where the time's digits start
 * @param timeEnd per line, where they end
 */
record LiveLog(byte[][] lines, long[] times, int[] timeAt, int[] timeEnd) {

    int size() {
        return lines.length;
    }

    /** Line {@code k} with its time replaced by {@code t}. */
    byte[] retimed(int k, long t) {
        byte[] line = lines[k];
        byte[] digits = Long.toString(t).getBytes(StandardCharsets.US_ASCII);
        int from = timeAt[k];
        int to = timeEnd[k];
        byte[] out = new byte[line.length - (to - from) + digits.length];
        System.arraycopy(line, 0, out, 0, from);
        System.arraycopy(digits, 0, out, from, digits.length);
        System.arraycopy(line, to, out, from + digits.length, line.length - to);
        return out;
    }

    /**
     * Reads {@code file}'s lines and where each one's top-level {@code field} holds its time (the
     * layout {@code generate --events json} writes: {@code "field": digits}).
     */
    static LiveLog read(Path file, String field) throws IOException {
        byte[] name = ("\"" + field + "\":").getBytes(StandardCharsets.UTF_8);
        List<byte[]> lines = new ArrayList<>();
        List<long[]> spans = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String text;
            long number = 0;
            while ((text = in.readLine()) != null) {
                number++;
                byte[] b = text.getBytes(StandardCharsets.UTF_8);
                int at = indexOf(b, name);
                int from = at < 0 ? -1 : at + name.length;
                while (from >= 0 && from < b.length && b[from] == ' ') {
                    from++;
                }
                int to = from;
                while (to >= 0 && to < b.length && b[to] >= '0' && b[to] <= '9') {
                    to++;
                }
                if (at < 0 || to == from) {
                    throw new IOException(
                            file
                                    + ":"
                                    + number
                                    + ": no \""
                                    + field
                                    + "\": digits, as generate"
                                    + " --events json --actions writes");
                }
                long t = Long.parseLong(new String(b, from, to - from, StandardCharsets.US_ASCII));
                lines.add(b);
                spans.add(new long[] {t, from, to});
            }
        }
        int n = lines.size();
        long[] times = new long[n];
        int[] timeAt = new int[n];
        int[] timeEnd = new int[n];
        for (int i = 0; i < n; i++) {
            long[] s = spans.get(i);
            times[i] = s[0];
            timeAt[i] = (int) s[1];
            timeEnd[i] = (int) s[2];
        }
        if (n == 0) {
            throw new IOException(file + " has no lines");
        }
        return new LiveLog(lines.toArray(byte[][]::new), times, timeAt, timeEnd);
    }

    private static int indexOf(byte[] b, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= b.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (b[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
