package dev.piper.pipeline.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FirstXTest {

    // Lists [[1, 2, 3], [], [4], [5, 6]] as offsets and values.
    private static final int[] OFFSETS = {0, 3, 3, 4, 6};
    private static final long[] VALUES = {1, 2, 3, 4, 5, 6};

    private static String cut(int x) {
        int[] outOffsets = new int[OFFSETS.length];
        long[] outValues = new long[VALUES.length];
        int n = new FirstX(x).apply(OFFSETS, VALUES, 4, outOffsets, outValues);
        assertThat(outOffsets[4]).isEqualTo(n);
        return Arrays.toString(outOffsets) + " " + Arrays.toString(Arrays.copyOf(outValues, n));
    }

    /** RAP's FirstX: the first min(x, len) elements, no padding; empty lists stay empty. */
    @Test
    void keepsTheFirstXOfEveryList() {
        assertThat(cut(2)).isEqualTo("[0, 2, 2, 3, 5] [1, 2, 4, 5, 6]");
        assertThat(cut(1)).isEqualTo("[0, 1, 1, 2, 3] [1, 4, 5]");
        assertThat(cut(0)).isEqualTo("[0, 0, 0, 0, 0] []");
        assertThat(cut(Integer.MAX_VALUE)).isEqualTo("[0, 3, 3, 4, 6] [1, 2, 3, 4, 5, 6]");
    }

    @Test
    void listsNeedNotStartAtZero() {
        int[] offsets = {2, 4, 6}; // two lists inside a larger values array
        long[] values = {9, 9, 7, 8, 5, 6};
        int[] outOffsets = new int[3];
        long[] outValues = new long[4];
        int n = new FirstX(1).apply(offsets, values, 2, outOffsets, outValues);
        assertThat(outOffsets).containsExactly(0, 1, 2);
        assertThat(Arrays.copyOf(outValues, n)).containsExactly(7, 5);
    }

    @Test
    void refusesANegativeX() {
        assertThatThrownBy(() -> new FirstX(-1)).hasMessageContaining("x >= 0, not -1");
    }
}
