package dev.piper.pipeline.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BucketizeTest {

    /**
     * Vectors: borders, inputs, buckets with right = true (default), buckets with right = false.
     */
    static Stream<Arguments> vectors() {
        return Stream.of(
                // Issue 9's vector (TorchRec convention by default, numpy.digitize's otherwise).
                Arguments.of(
                        new double[] {0, 2, 3, 5, 500, 1000},
                        new double[] {1, 2, 3, 4, 5, 6},
                        new int[] {1, 1, 2, 3, 3, 4},
                        new int[] {1, 2, 3, 3, 4, 4}),
                // torch.bucketize documentation: boundaries [1, 3, 5, 7, 9], v [3, 6, 9]:
                // right=False -> [1, 3, 4], right=True -> [2, 3, 5].
                Arguments.of(
                        new double[] {1, 3, 5, 7, 9},
                        new double[] {3, 6, 9},
                        new int[] {1, 3, 4},
                        new int[] {2, 3, 5}),
                // numpy.digitize documentation: bins [0, 1, 2.5, 4, 10], x [0.2, 6.4, 3.0, 1.6]
                // -> [1, 4, 3, 2] (right=False); no value equals a bin, so both agree.
                Arguments.of(
                        new double[] {0, 1, 2.5, 4, 10},
                        new double[] {0.2, 6.4, 3.0, 1.6},
                        new int[] {1, 4, 3, 2},
                        new int[] {1, 4, 3, 2}),
                // Edges: below the first, above the last, infinities, NaN (last bucket, as numpy).
                Arguments.of(
                        new double[] {0, 10},
                        new double[] {
                            -1,
                            0,
                            10,
                            11,
                            Double.NEGATIVE_INFINITY,
                            Double.POSITIVE_INFINITY,
                            Double.NaN
                        },
                        new int[] {0, 0, 1, 2, 0, 2, 2},
                        new int[] {0, 1, 2, 2, 0, 2, 2}),
                // Repeated borders: an empty bucket between them.
                Arguments.of(
                        new double[] {1, 1, 2},
                        new double[] {0, 1, 1.5, 2},
                        new int[] {0, 0, 2, 2},
                        new int[] {0, 2, 2, 3}));
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void matchesTheReferenceConventions(double[] borders, double[] in, int[] right, int[] left) {
        int[] out = new int[in.length + 2]; // a reused buffer longer than the block
        new Bucketize(borders, true).apply(in, in.length, out);
        assertThat(java.util.Arrays.copyOf(out, in.length)).containsExactly(right);
        new Bucketize(borders, false).apply(in, in.length, out);
        assertThat(java.util.Arrays.copyOf(out, in.length)).containsExactly(left);
    }

    @Test
    void integerColumnsUseTheSameBuckets() {
        int[] out = new int[4];
        Bucketize.of(0, 2, 3, 5, 500, 1000).apply(new long[] {1, 5, 999, Long.MAX_VALUE}, 4, out);
        assertThat(out).containsExactly(1, 3, 5, 6);
    }

    /**
     * The table of small integers (what the column pass reads instead of searching) holds each
     * integer's bucket, at borders between, on and below the integers, in both conventions; equal
     * borders and convention are equal buckets (one table for all such columns).
     */
    @Test
    void aTableOfSmallIntegersHoldsTheirBuckets() {
        double[] borders = {-3, 0, 0.5, 2, 2, 7.25, 100, 4095, 4096};
        for (boolean right : new boolean[] {true, false}) {
            Bucketize b = new Bucketize(borders, right);
            int[] table = b.smallIntegers(4096);
            for (int v = 0; v < 4096; v++) {
                assertThat(table[v]).as("%d, right %s", v, right).isEqualTo(b.bucket(v));
            }
            assertThat(b).isEqualTo(new Bucketize(borders.clone(), right));
            assertThat(b.hashCode()).isEqualTo(new Bucketize(borders.clone(), right).hashCode());
            assertThat(b).isNotEqualTo(new Bucketize(borders, !right));
        }
        assertThat(Bucketize.of(1, 2)).isNotEqualTo(Bucketize.of(1, 3));
    }

    @Test
    void refusesBordersThatAreEmptyNaNOrDecreasing() {
        assertThatThrownBy(() -> Bucketize.of()).hasMessageContaining("at least one border");
        assertThatThrownBy(() -> Bucketize.of(0, Double.NaN))
                .hasMessageContaining("border 1 is NaN");
        assertThatThrownBy(() -> Bucketize.of(0, 5, 3))
                .hasMessageContaining("border 2 (3.0) is below border 1 (5.0)");
    }
}
