package dev.piper.core.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OriginTest {

    /** Records at offsets 10, 11 (three lines), 15 (gap: a transaction marker), 16. */
    private static final Origin ORIGIN =
            new Origin(new long[] {10, 11, 15, 16}, new int[] {0, 1, 4, 5}, 100, 130);

    @Test
    void everyLineMapsToItsRecordsOffset() {
        long[] expected = {10, 11, 11, 11, 15, 16, 16};
        for (int line = 0; line < expected.length; line++) {
            assertThat(ORIGIN.offsetOfLine(line)).as("line %d", line).isEqualTo(expected[line]);
        }
    }

    @Test
    void noneIsNotALog() {
        assertThat(Origin.NONE.isLog()).isFalse();
        assertThat(Origin.NONE.records()).isZero();
        assertThat(ORIGIN.isLog()).isTrue();
        assertThat(ORIGIN.records()).isEqualTo(4);
        assertThatThrownBy(() -> Origin.NONE.offsetOfLine(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void arraysOfDifferentLengthsAreRefused() {
        assertThatThrownBy(() -> new Origin(new long[] {1, 2}, new int[] {0}, -1, -1))
                .hasMessageContaining("2 offsets but 1 first lines");
    }
}
