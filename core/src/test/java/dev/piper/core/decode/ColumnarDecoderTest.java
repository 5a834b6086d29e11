package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Values read from a columnar file decode to what their text decodes to: the text's values and
 * missing fields ({@link CriteoDecoder#tracking} under {@link ColumnProgram#raw()}), run through
 * {@link ColumnarDecoder} and handed on by {@link ColumnarDecoder#decoded}, equal the text run
 * through {@link CriteoDecoder} under the same program, value for value.
 */
class ColumnarDecoderTest {

    private static DecodeOptions options(ColumnProgram program) {
        return new DecodeOptions(
                program,
                false,
                DecodeOptions.DEFAULT_MAX_LINE_BYTES,
                DecodeOptions.DEFAULT_MAX_RAW_BYTES);
    }

    /** The text's raw values and missing sets, the program applied by the columnar decoder. */
    private static ColumnBlock columnBlock(ColumnProgram program, byte[] text) {
        RawChunk chunk = new RawChunk(4, 0, text, text.length, -1);
        CriteoDecoder.Decoded raw =
                CriteoDecoder.tracking(options(ColumnProgram.raw())).decode(chunk);
        int rows = raw.dense().rows();
        long[][] keys = new long[CriteoLayout.SPARSE][];
        for (int c = 0; c < CriteoLayout.SPARSE; c++) {
            keys[c] = Arrays.copyOf(raw.keys()[c].keys(), rows);
        }
        long[][] missing = new long[CriteoLayout.FIELDS][];
        for (int f = 0; f < CriteoLayout.FIELDS; f++) {
            long[] set = Arrays.copyOf(raw.missing()[f], ColumnBlock.words(rows));
            missing[f] = Arrays.stream(set).allMatch(w -> w == 0) ? new long[0] : set;
        }
        int[] labelDense =
                Arrays.copyOf(raw.dense().labelDense(), rows * CriteoLayout.LABEL_DENSE_WIDTH);
        ColumnarDecoder decoder = new ColumnarDecoder(program);
        for (int f = 0; f < CriteoLayout.FIELDS; f++) {
            decoder.apply(f, labelDense, keys, missing[f], rows);
        }
        decoder.runPasses(labelDense, keys, rows);
        return new ColumnBlock(0, 4, 0, rows, rows, labelDense, keys, new DeadLetter[0]);
    }

    private static void assertSameAsText(ColumnProgram program, byte[] text) {
        CriteoDecoder.Decoded expected =
                new CriteoDecoder(options(program))
                        .decode(new RawChunk(4, 0, text, text.length, -1));
        CriteoDecoder.Decoded actual = ColumnarDecoder.decoded(program, columnBlock(program, text));
        int rows = expected.dense().rows();
        assertThat(actual.dense().rows()).isEqualTo(rows);
        assertThat(actual.dense().lines()).isEqualTo(rows);
        assertThat(actual.dense().seq()).isEqualTo(4);
        assertThat(actual.dense().version()).isEqualTo(program.version());
        assertThat(Arrays.copyOf(actual.dense().labelDense(), rows * 14))
                .isEqualTo(Arrays.copyOf(expected.dense().labelDense(), rows * 14));
        for (int c = 0; c < CriteoLayout.SPARSE; c++) {
            assertThat(Arrays.copyOf(actual.keys()[c].keys(), rows))
                    .as("C%d", c + 1)
                    .isEqualTo(Arrays.copyOf(expected.keys()[c].keys(), rows));
            assertThat(actual.keys()[c].epoch()).isEqualTo(program.epoch(c));
            assertThat(actual.keys()[c].policy()).isEqualTo(program.vocabPolicy(c));
        }
    }

    @Test
    void dlrmWithAndWithoutModulus() {
        byte[] text = ColumnPassesTest.lines(3_000, 11);
        assertSameAsText(ColumnProgram.dlrm(-1), text);
        assertSameAsText(ColumnProgram.dlrm(1000), text);
    }

    @Test
    void everyPassOperatorAndFillNull() {
        assertSameAsText(ColumnPassesTest.program(), ColumnPassesTest.lines(3_000, 12));
    }

    @Test
    void blocksWithoutMissingValues() {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < 100; r++) {
            sb.append(r % 2);
            for (int f = 1; f <= 13; f++) {
                sb.append('\t').append(r * f - 500);
            }
            for (int c = 0; c < 26; c++) {
                sb.append('\t').append(Long.toHexString(r * 7919L + c));
            }
            sb.append('\n');
        }
        byte[] text = sb.toString().getBytes(StandardCharsets.US_ASCII);
        RawChunk chunk = new RawChunk(0, 0, text, text.length, -1);
        assertThat(
                        Arrays.stream(
                                CriteoDecoder.tracking(options(ColumnProgram.raw()))
                                        .decode(chunk)
                                        .missing()))
                .allMatch(set -> Arrays.stream(set).allMatch(w -> w == 0));
        assertSameAsText(ColumnProgram.dlrm(-1), text);
        assertSameAsText(ColumnProgram.raw(), text);
    }

    @Test
    void trackingRecordsExactlyTheEmptyFields() {
        byte[] text =
                String.join(
                                "\n",
                                List.of(
                                        "1\t\t2" + "\t".repeat(11) + "\tab" + "\t".repeat(25),
                                        "\t-3" + "\t4".repeat(12) + "\tff".repeat(26)))
                        .getBytes(StandardCharsets.US_ASCII);
        CriteoDecoder.Decoded d =
                CriteoDecoder.tracking(options(ColumnProgram.raw()))
                        .decode(new RawChunk(0, 0, text, text.length, -1));
        assertThat(d.dense().rows()).isEqualTo(2);
        long[][] missing = d.missing();
        // Row 0: I1 and I3..I13 and C2..C26 are empty; row 1: only the label.
        for (int f = 0; f < CriteoLayout.FIELDS; f++) {
            boolean row0 = f == 1 || (f >= 3 && f <= 13) || f >= 15;
            assertThat((missing[f][0] & 1) != 0).as("row 0 field %d", f).isEqualTo(row0);
            assertThat((missing[f][0] & 2) != 0).as("row 1 field %d", f).isEqualTo(f == 0);
        }
        assertThat(d.dense().labelDense()[14 + 1]).isEqualTo(-3); // raw: no neg2zero
        assertThat(d.keys()[0].keys()[0]).isEqualTo(0xab);
        assertThat(
                        new CriteoDecoder(options(ColumnProgram.raw()))
                                .decode(new RawChunk(0, 0, text, text.length, -1))
                                .missing())
                .isEmpty();
    }
}
