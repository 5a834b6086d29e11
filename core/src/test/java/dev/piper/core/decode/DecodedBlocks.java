package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.KeyChunk;
import java.util.Arrays;

/** Assertions on decoded blocks that tests of different decoders share. */
final class DecodedBlocks {

    private DecodedBlocks() {}

    /**
     * {@code actual} holds the rows of {@code expected}: as many, the same label and dense values,
     * and the same keys (and list offsets) in every sparse column.
     */
    static void assertSameRows(
            String what, CriteoDecoder.Decoded expected, CriteoDecoder.Decoded actual) {
        int rows = expected.dense().rows();
        assertThat(actual.dense().rows()).as("%s rows", what).isEqualTo(rows);
        int width = expected.dense().layout().labelDenseWidth();
        assertThat(Arrays.copyOf(actual.dense().labelDense(), rows * width))
                .as("%s label and dense values", what)
                .isEqualTo(Arrays.copyOf(expected.dense().labelDense(), rows * width));
        for (int c = 0; c < expected.keys().length; c++) {
            KeyChunk e = expected.keys()[c];
            KeyChunk a = actual.keys()[c];
            assertThat(Arrays.copyOf(a.keys(), a.size()))
                    .as("%s C%d", what, c + 1)
                    .isEqualTo(Arrays.copyOf(e.keys(), e.size()));
            if (e.offsets() != null) {
                assertThat(Arrays.copyOf(a.offsets(), rows + 1))
                        .as("%s C%d offsets", what, c + 1)
                        .isEqualTo(Arrays.copyOf(e.offsets(), rows + 1));
            }
        }
    }
}
