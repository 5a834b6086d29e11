package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import java.util.Arrays;
import java.util.List;

/** Assertions on decoded blocks, and chunks to decode, that tests of different decoders share. */
final class DecodedBlocks {

    private DecodedBlocks() {}

    /** A chunk of a frame per record, as Kafka records (and a file's Protobuf messages) travel. */
    static RawChunk frames(List<byte[]> records) {
        int n = records.stream().mapToInt(r -> r.length + RecordFrames.HEADER).sum();
        byte[] chunk = new byte[n];
        int at = 0;
        for (byte[] r : records) {
            at = RecordFrames.write(chunk, at, r, 0, r.length, 1);
        }
        return new RawChunk(0, 0, chunk, n, -1);
    }

    /** Each dead letter of {@code d} as its line and reason, {@code "12 wrong_type"}. */
    static List<String> reasons(CriteoDecoder.Decoded d) {
        return Arrays.stream(d.dense().deadLetters())
                .map(x -> x.lineInBlock() + " " + x.reason())
                .toList();
    }

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
