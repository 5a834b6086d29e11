package dev.piper.core.join;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A file's lines, one after another, each with its number and byte offset: at most {@code keep}
 * bytes of a line are kept (a longer one reports its full length). Line breaks are {@code \n} or
 * {@code \r\n}; a final line without one counts.
 */
final class LineReader implements Closeable {

    /** A line: its first bytes, its full length without the line break, where it starts. */
    record Line(byte[] bytes, int length, long number, long offset) {

        boolean cut() {
            return length > bytes.length;
        }
    }

    private final InputStream in;
    private final int keep;
    private byte[] buf = new byte[256];
    private long offset;
    private long number;

    LineReader(Path file, int keep) throws IOException {
        this.in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        this.keep = keep;
    }

    /** The next line, or null at the end of the file. */
    Line next() throws IOException {
        int n = 0;
        long length = 0;
        int c;
        long start = offset;
        while ((c = in.read()) >= 0) {
            offset++;
            if (c == '\n') {
                break;
            }
            if (n < keep + 1) {
                if (n == buf.length) {
                    buf = Arrays.copyOf(buf, Math.min(buf.length * 2, keep + 1));
                }
                buf[n++] = (byte) c;
            }
            length++;
        }
        if (c < 0 && length == 0 && offset == start) {
            return null;
        }
        if (length > 0 && n == length && buf[n - 1] == '\r') {
            n--;
            length--;
        }
        int kept = (int) Math.min(n, keep);
        return new Line(
                Arrays.copyOf(buf, kept),
                (int) Math.min(length, Integer.MAX_VALUE),
                ++number,
                start);
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
