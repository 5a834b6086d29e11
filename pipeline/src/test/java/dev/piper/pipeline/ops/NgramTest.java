package dev.piper.pipeline.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Ngram's definition (docs/SPECS.md): an n-gram's id folds its ids with folly's {@code
 * hash_128_to_64}. The expected values come from folly's function (folly/hash/Hash.h) spelled out
 * on BigInteger below, sharing no code with {@link Ngram}.
 */
class NgramTest {

    private static final BigInteger MASK = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final BigInteger K_MUL = new BigInteger("9ddfea08eb382d69", 16);

    /** folly's hash_128_to_64(upper, lower) on unsigned 64-bit values. */
    private static BigInteger hash128To64(BigInteger upper, BigInteger lower) {
        BigInteger a = lower.xor(upper).multiply(K_MUL).and(MASK);
        a = a.xor(a.shiftRight(47));
        BigInteger b = upper.xor(a).multiply(K_MUL).and(MASK);
        b = b.xor(b.shiftRight(47));
        return b.multiply(K_MUL).and(MASK);
    }

    private static long gram(long... ids) {
        BigInteger h = new BigInteger(Long.toUnsignedString(ids[0]));
        for (int j = 1; j < ids.length; j++) {
            h = hash128To64(h, new BigInteger(Long.toUnsignedString(ids[j])));
        }
        return h.longValue();
    }

    @Test
    void bigramsAndTrigramsOfAList() {
        long[] ids = {1, 2, 3, 0xffffffffffffffffL};
        long[] values = new long[4];
        int[] offsets = new int[2];
        int n = new Ngram(2).apply(new int[] {0, 4}, ids, 1, offsets, values);
        assertThat(n).isEqualTo(3);
        assertThat(offsets).containsExactly(0, 3);
        assertThat(values).startsWith(gram(1, 2), gram(2, 3), gram(3, 0xffffffffffffffffL));
        n = new Ngram(3).apply(new int[] {0, 4}, ids, 1, offsets, values);
        assertThat(n).isEqualTo(2);
        assertThat(values).startsWith(gram(1, 2, 3), gram(2, 3, 0xffffffffffffffffL));
        assertThat(new Ngram(2).gram(new long[] {0, 0}, 0)).isEqualTo(gram(0, 0));
    }

    /** Lists shorter than n (the empty one too) have no n-gram; n = 1 keeps every list. */
    @Test
    void shortListsHaveNoGramsAndOneGramsAreTheList() {
        long[] ids = {5, 6, 7, 8, 9};
        int[] offsets = {0, 0, 1, 3, 5}; // [], [5], [6, 7], [8, 9]
        long[] values = new long[5];
        int[] out = new int[5];
        int n = new Ngram(2).apply(offsets, ids, 4, out, values);
        assertThat(out).containsExactly(0, 0, 0, 1, 2);
        assertThat(n).isEqualTo(2);
        assertThat(values).startsWith(gram(6, 7), gram(8, 9));
        n = new Ngram(1).apply(offsets, ids, 4, out, values);
        assertThat(out).containsExactly(offsets);
        assertThat(values).containsExactly(ids);
        n = new Ngram(3).apply(offsets, ids, 4, out, values);
        assertThat(n).isZero();
        assertThat(out).containsOnly(0);
    }

    /** Random lists against the reference: every window, in order. */
    @Test
    void randomListsMatchTheReference() {
        SplittableRandom random = new SplittableRandom(91);
        int rows = 300;
        int[] offsets = new int[rows + 1];
        long[] ids = new long[rows * 8];
        for (int r = 0; r < rows; r++) {
            int len = random.nextInt(9);
            for (int i = 0; i < len; i++) {
                ids[offsets[r] + i] = random.nextLong();
            }
            offsets[r + 1] = offsets[r] + len;
        }
        for (int n = 1; n <= 4; n++) {
            long[] values = new long[offsets[rows]];
            int[] out = new int[rows + 1];
            new Ngram(n).apply(offsets, ids, rows, out, values);
            for (int r = 0; r < rows; r++) {
                int at = out[r];
                for (int i = offsets[r]; i + n <= offsets[r + 1]; i++) {
                    long[] window = java.util.Arrays.copyOfRange(ids, i, i + n);
                    assertThat(values[at++])
                            .as("n %d row %d at %d", n, r, i)
                            .isEqualTo(gram(window));
                }
                assertThat(out[r + 1]).isEqualTo(at);
            }
        }
    }

    @Test
    void nIsBounded() {
        assertThatThrownBy(() -> new Ngram(0))
                .hasMessage("ngram \"n\" must be from 1 to 16, not 0");
        assertThatThrownBy(() -> new Ngram(17))
                .hasMessage("ngram \"n\" must be from 1 to 16, not 17");
        assertThatThrownBy(() -> new IdOp.FirstXOp(0))
                .hasMessage("firstx \"x\" must be at least 1, not 0");
        assertThat(new IdOp.NgramOp(2).label()).isEqualTo("ngram(2)");
        assertThat(new IdOp.FirstXOp(20).label()).isEqualTo("firstx(20)");
    }
}
