package dev.piper.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.RawChunk;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LineChunkerTest {

    /** Hands out at most {@code max} bytes a read, to exercise refills at every position. */
    private static InputStream trickle(byte[] data, int max) {
        return new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, max));
            }
        };
    }

    private static List<RawChunk> chunks(InputStream in, int blockBytes, int maxLine, int maxRaw)
            throws IOException {
        LineChunker chunker = new LineChunker(in, 0, 0, blockBytes, maxLine, maxRaw);
        List<RawChunk> out = new ArrayList<>();
        RawChunk c;
        while ((c = chunker.next()) != null) {
            out.add(c);
        }
        return out;
    }

    private static String text(RawChunk c) {
        return new String(c.data(), 0, c.length(), StandardCharsets.ISO_8859_1);
    }

    @Test
    void cutsLineAlignedNumberedChunksOfAtMostBlockBytes() throws IOException {
        byte[] data = "a\nbb\r\n\nccc\nd".getBytes(StandardCharsets.US_ASCII);
        List<RawChunk> out = chunks(new ByteArrayInputStream(data), 5, 100, 100);
        assertThat(out)
                .extracting(LineChunkerTest::text)
                .containsExactly("a\n", "bb\r\n\n", "ccc\nd");
        assertThat(out).extracting(RawChunk::seq).containsExactly(0L, 1L, 2L);
        assertThat(out).extracting(RawChunk::firstOffset).containsExactly(0L, 2L, 7L);
        assertThat(out).allSatisfy(c -> assertThat(c.lastLineCut()).isFalse());
    }

    @Test
    void aLineLongerThanABlockMakesAChunkOfItsOwn() throws IOException {
        byte[] data = "a\n0123456789\nb\n".getBytes(StandardCharsets.US_ASCII);
        List<RawChunk> out = chunks(new ByteArrayInputStream(data), 4, 100, 100);
        assertThat(out)
                .extracting(LineChunkerTest::text)
                .containsExactly("a\n", "0123456789\n", "b\n");
    }

    @Test
    void emptyInputHasNoChunksAndAFinalNewlineAddsNoLine() throws IOException {
        assertThat(chunks(new ByteArrayInputStream(new byte[0]), 10, 100, 100)).isEmpty();
        List<RawChunk> out = chunks(new ByteArrayInputStream("x\n".getBytes()), 10, 100, 100);
        assertThat(out).extracting(LineChunkerTest::text).containsExactly("x\n");
    }

    @Test
    void anOversizeLineTravelsAloneTruncatedWithItsTrueLength() throws IOException {
        byte[] big = new byte[50];
        Arrays.fill(big, (byte) 'z');
        String text = "ok\n" + new String(big) + "\r\nafter\n" + new String(big);
        List<RawChunk> out = chunks(trickle(text.getBytes(), 7), 10, 20, 8);
        assertThat(out).hasSize(4);
        assertThat(text(out.get(0))).isEqualTo("ok\n");
        assertThat(out.get(1).lastLineCut()).isTrue();
        assertThat(out.get(1).lastLineLength()).isEqualTo(50);
        assertThat(text(out.get(1))).isEqualTo("zzzzzzzz");
        assertThat(out.get(1).firstOffset()).isEqualTo(3);
        assertThat(text(out.get(2))).isEqualTo("after\n");
        assertThat(out.get(2).firstOffset()).isEqualTo(3 + 52);
        assertThat(out.get(3).lastLineLength()).isEqualTo(50);
        assertThat(out.get(3).seq()).isEqualTo(3);
    }

    @Test
    void aLineExactlyAtTheLimitIsKept() throws IOException {
        String text = "0123456789\r\n01234567890\n";
        List<RawChunk> out = chunks(new ByteArrayInputStream(text.getBytes()), 10, 10, 4);
        assertThat(out).hasSize(2);
        assertThat(text(out.get(0))).isEqualTo("0123456789\r\n");
        assertThat(out.get(1).lastLineLength()).isEqualTo(11);
    }

    /** Whatever the read sizes and block sizes, the chunks concatenate back to the input. */
    @ParameterizedTest
    @ValueSource(ints = {1, 3, 64, 1 << 20})
    void chunksReassembleTheInputExactly(int readSize) throws IOException {
        SplittableRandom random = new SplittableRandom(readSize);
        StringBuilder sb = new StringBuilder();
        int lines = 3000;
        for (int i = 0; i < lines; i++) {
            int len = random.nextInt(40);
            for (int j = 0; j < len; j++) {
                sb.append((char) ('a' + random.nextInt(26)));
            }
            sb.append(random.nextBoolean() ? "\n" : "\r\n");
        }
        byte[] data = sb.toString().getBytes(StandardCharsets.US_ASCII);
        int blockBytes = 1 + random.nextInt(1500);
        List<RawChunk> out = chunks(trickle(data, readSize), blockBytes, 1000, 100);
        StringBuilder back = new StringBuilder();
        long expectedOffset = 0;
        for (int i = 0; i < out.size(); i++) {
            RawChunk c = out.get(i);
            assertThat(c.seq()).isEqualTo(i);
            assertThat(c.firstOffset()).isEqualTo(expectedOffset);
            String t = text(c);
            assertThat(t.length() <= blockBytes || t.indexOf('\n') == t.length() - 1)
                    .as("chunk %d holds at most %d bytes unless it is one line", i, blockBytes)
                    .isTrue();
            back.append(t);
            expectedOffset += c.length();
        }
        assertThat(back.toString()).isEqualTo(sb.toString());
    }
}
