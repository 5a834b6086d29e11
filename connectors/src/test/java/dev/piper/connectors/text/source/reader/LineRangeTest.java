package dev.piper.connectors.text.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.RawChunk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.core.fs.FSDataInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LineRangeTest {

    private static final int MAX_LINE = 50;

    @TempDir Path tmp;

    /** A line as the decoder sees it: where it starts, its length, and the bytes it was given. */
    private record Line(long offset, long length, String kept) {}

    /** The lines of {@code text} split directly, each keeping at most {@code keep} bytes. */
    private static List<Line> expectedLines(String text) {
        List<Line> lines = new ArrayList<>();
        int s = 0;
        while (s < text.length()) {
            int nl = text.indexOf('\n', s);
            int e = nl < 0 ? text.length() : nl;
            int content = e > s && text.charAt(e - 1) == '\r' ? e - 1 : e;
            long length = content - s;
            lines.add(new Line(s, length, length > MAX_LINE ? null : text.substring(s, e)));
            s = nl < 0 ? text.length() : nl + 1;
        }
        return lines;
    }

    /** The lines a chunk holds; a cut line and a line over the limit keep no bytes here. */
    private static List<Line> linesOf(RawChunk c) {
        String t = new String(c.data(), 0, c.length(), StandardCharsets.ISO_8859_1);
        List<Line> lines = new ArrayList<>();
        int s = 0;
        while (s < t.length()) {
            int nl = t.indexOf('\n', s);
            if (nl < 0 && c.lastLineCut()) {
                assertThat(t.length() - s).as("a cut line keeps its head").isGreaterThan(MAX_LINE);
                lines.add(new Line(c.firstOffset() + s, c.lastLineLength(), null));
                break;
            }
            int e = nl < 0 ? t.length() : nl;
            int content = e > s && t.charAt(e - 1) == '\r' ? e - 1 : e;
            long length = content - s;
            lines.add(
                    new Line(
                            c.firstOffset() + s,
                            length,
                            length > MAX_LINE ? null : t.substring(s, e)));
            s = nl < 0 ? t.length() : nl + 1;
        }
        return lines;
    }

    private List<RawChunk> readAll(String text, int rangeBytes) throws IOException {
        Path file = tmp.resolve("in-" + rangeBytes + ".txt");
        Files.writeString(file, text, StandardCharsets.ISO_8859_1);
        org.apache.flink.core.fs.Path path = new org.apache.flink.core.fs.Path(file.toUri());
        long length = Files.size(file);
        LineRange reader = new LineRange(MAX_LINE);
        List<RawChunk> chunks = new ArrayList<>();
        try (FSDataInputStream in = path.getFileSystem().open(path)) {
            for (long seq = 0; seq * rangeBytes < length; seq++) {
                long start = seq * rangeBytes;
                long end = Math.min(start + rangeBytes, length);
                chunks.add(reader.read(in, length, seq, start, end));
            }
        }
        return chunks;
    }

    private static String randomText(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 400; i++) {
            int kind = random.nextInt(20);
            int len =
                    kind == 0
                            ? MAX_LINE
                                    + 1
                                    + random.nextInt(300) // over the limit, often past ranges
                            : kind == 1 ? 0 : random.nextInt(MAX_LINE + 1);
            for (int j = 0; j < len; j++) {
                sb.append(j == len - 1 && random.nextInt(8) == 0 ? '\r' : (char) ('a' + j % 26));
            }
            sb.append(random.nextInt(3) == 0 ? "\r\n" : "\n");
        }
        if (random.nextBoolean()) {
            sb.append("last line without a line break");
        }
        return sb.toString();
    }

    /** Whatever the range size, every line lands in exactly one range, in order. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 7, 49, 50, 51, 52, 53, 64, 100, 333, 4096, 1 << 20})
    void rangesPartitionTheLinesExactly(int rangeBytes) throws IOException {
        for (long seed = 1; seed <= 3; seed++) {
            String text = randomText(seed * 1000 + rangeBytes);
            List<RawChunk> chunks = readAll(text, rangeBytes);
            List<Line> got = new ArrayList<>();
            for (int i = 0; i < chunks.size(); i++) {
                assertThat(chunks.get(i).seq()).isEqualTo(i);
                got.addAll(linesOf(chunks.get(i)));
            }
            assertThat(got).as("seed %d", seed).isEqualTo(expectedLines(text));
        }
    }

    @Test
    void aRangeInsideOneLongLineIsEmpty() throws IOException {
        String text = "a\n" + "x".repeat(200) + "\nb\n";
        List<RawChunk> chunks = readAll(text, 40);
        assertThat(chunks).hasSize(6);
        assertThat(chunks.get(0).lastLineCut()).isTrue();
        assertThat(chunks.get(0).lastLineLength()).isEqualTo(200);
        for (int i = 1; i < 5; i++) {
            assertThat(chunks.get(i).length()).as("range %d", i).isZero();
        }
        assertThat(new String(chunks.get(5).data(), 0, chunks.get(5).length())).isEqualTo("b\n");
    }

    @Test
    void aCrLfSplitByARangeBoundaryStaysOneLineBreak() throws IOException {
        String text = "abc\r\ndef\r\n"; // ranges [0,4) [4,8) [8,10): the first ends after \r
        List<RawChunk> chunks = readAll(text, 4);
        assertThat(new String(chunks.get(0).data(), 0, chunks.get(0).length()))
                .isEqualTo("abc\r\n");
        assertThat(new String(chunks.get(1).data(), 0, chunks.get(1).length()))
                .isEqualTo("def\r\n");
        assertThat(chunks.get(1).firstOffset()).isEqualTo(5);
        assertThat(chunks.get(2).length()).isZero();
    }
}
