package dev.piper.connectors.parquet.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

/**
 * {@link Hybrid} decodes what parquet-column's own encoder writes (the writer of every Parquet file
 * this reads), for every bit width, runs and bit-packed groups mixed.
 */
class HybridTest {

    /** Values of {@code width} bits: runs of one value between stretches of random ones. */
    private static int[] values(int width, int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long bound = 1L << width;
        int[] v = new int[n];
        int i = 0;
        while (i < n) {
            int len = 1 + random.nextInt(40);
            boolean run = random.nextBoolean();
            int value = width == 0 ? 0 : (int) random.nextLong(bound);
            for (int k = 0; k < len && i < n; k++, i++) {
                v[i] = run || width == 0 ? value : (int) random.nextLong(bound);
            }
        }
        return v;
    }

    private static ByteBuffer encode(int width, int[] values) throws IOException {
        try (RunLengthBitPackingHybridEncoder encoder =
                new RunLengthBitPackingHybridEncoder(
                        width, 64, 1 << 20, HeapByteBufferAllocator.getInstance())) {
            for (int v : values) {
                encoder.writeInt(v);
            }
            return ByteBuffer.wrap(encoder.toBytes().toByteArray());
        }
    }

    @Test
    void decodesEveryWidth() throws IOException {
        for (int width = 0; width <= 32; width++) {
            for (int n : new int[] {1, 7, 8, 9, 1000, 20_011}) {
                int[] expected = values(width, n, 31L * width + n);
                int[] out = new int[n + 8];
                ByteBuffer in = encode(width, expected);
                Hybrid.decode(in, width, n, out);
                assertThat(Arrays.copyOf(out, n))
                        .as("width %d, %d values", width, n)
                        .isEqualTo(expected);
                assertThat(in.remaining()).as("width %d, %d values: all read", width, n).isZero();
            }
        }
    }

    @Test
    void decodesFromADirectBufferAsFromAnArray() throws IOException {
        int[] expected = values(13, 5_000, 7);
        ByteBuffer heap = encode(13, expected);
        ByteBuffer direct = ByteBuffer.allocateDirect(heap.remaining()).put(heap.duplicate());
        direct.flip();
        int[] out = new int[5_008];
        Hybrid.decode(direct, 13, 5_000, out);
        assertThat(Arrays.copyOf(out, 5_000)).isEqualTo(expected);
    }

    @Test
    void levelsOfAFlatOptionalColumn() throws IOException {
        int[] levels = {1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
        int[] out = new int[levels.length + 8];
        Hybrid.decode(encode(1, levels), 1, levels.length, out);
        assertThat(Arrays.copyOf(out, levels.length)).isEqualTo(levels);
    }

    @Test
    void truncatedRunsAreAnErrorNotGarbage() throws IOException {
        int[] values = values(9, 1000, 3);
        ByteBuffer full = encode(9, values);
        ByteBuffer cut = ByteBuffer.wrap(Arrays.copyOf(full.array(), full.remaining() / 2));
        assertThatThrownBy(() -> Hybrid.decode(cut, 9, 1000, new int[1008]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("of 1000");
        assertThatThrownBy(() -> Hybrid.decode(full, 33, 1, new int[9]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("bit width 33");
    }
}
