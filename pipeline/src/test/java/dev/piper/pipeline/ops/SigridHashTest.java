package dev.piper.pipeline.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SigridHashTest {

    /**
     * Issue 9's vector for Meta's definition, h = hash_128_to_64(salt, twang_mix64(x)) with folly's
     * functions, signed, floorMod(h, max): x = 0..15, salt 0, max 100.
     */
    @Test
    void matchesMetasDefinition() {
        long[] in = new long[16];
        for (int i = 0; i < in.length; i++) {
            in[i] = i;
        }
        long[] out = new long[16];
        new SigridHash(0, 100).apply(in, in.length, out);
        assertThat(out).containsExactly(6, 60, 54, 54, 9, 4, 91, 11, 67, 79, 2, 25, 92, 98, 83, 66);
    }

    @ParameterizedTest
    @ValueSource(longs = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE})
    void everyHashLiesInRangeAndMaxOneGivesZero(long x) {
        for (long max : new long[] {1, 2, 7, 100, 1L << 40, Long.MAX_VALUE}) {
            long h = new SigridHash(42, max).hash(x);
            assertThat(h).isBetween(0L, max - 1);
        }
        assertThat(new SigridHash(42, 1).hash(x)).isZero();
    }

    @Test
    void theSaltChangesTheHash() {
        assertThat(new SigridHash(1, 1L << 40).hash(7))
                .isNotEqualTo(new SigridHash(0, 1L << 40).hash(7));
    }

    @Test
    void refusesANonPositiveMax() {
        assertThatThrownBy(() -> new SigridHash(0, 0)).hasMessageContaining("positive, not 0");
        assertThatThrownBy(() -> new SigridHash(0, -5)).hasMessageContaining("positive, not -5");
    }
}
