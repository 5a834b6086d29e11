package dev.piper.hwmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.piper.hwmodel.MiniPipeDesign.Packing;
import java.util.function.DoubleSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The model against the papers' own figures, one row per figure: paper, table or section, the
 * quoted value, the tolerance, and whether the figure was used to fit a parameter (then it only
 * checks the fit, and does not count as validation). Sources: {@code shared/hwmodel/PARAMS.md}.
 */
class PaperReproductionTest {

    private static final long ROWS = CriteoKaggle.ROWS;

    private static final MiniPipeDesign P2 = new MiniPipeDesign(1, Packing.ROW);
    private static final StreamDesign P1_5K = StreamDesign.u55cSmallVocabulary();
    private static final StreamDesign P1_1M = StreamDesign.u55cLargeVocabulary();

    /** P2 Table 4: dense ops see 1 beat per row (13 x 4 B), sparse ints 2 (26 x 4 B), hex 4. */
    private static double p2(Operator op, Tier tier, int columns, int valueBytes) {
        return P2.seconds(op, tier, MiniPipeDesign.rowBeats(ROWS, columns, valueBytes));
    }

    private static final double UTF8_BYTES_PER_ROW = CriteoKaggle.UTF8_BYTES / ROWS;

    static Stream<Arguments> figures() {
        return Stream.of(
                row(
                        "P2",
                        "Table 4 PIPER Neg2Zero",
                        0.23,
                        0.10,
                        false,
                        () -> p2(Operator.NEG2ZERO, Tier.ONCHIP, 13, 4)),
                row(
                        "P2",
                        "Table 4 PIPER Logarithm",
                        0.23,
                        0.10,
                        false,
                        () -> p2(Operator.LOG, Tier.ONCHIP, 13, 4)),
                row(
                        "P2",
                        "Table 4 PIPER Hex2Int",
                        0.92,
                        0.10,
                        false,
                        () -> p2(Operator.HEX2INT, Tier.ONCHIP, 26, 8)),
                row(
                        "P2",
                        "Table 4 PIPER Modulus",
                        0.46,
                        0.10,
                        false,
                        () -> p2(Operator.MODULUS, Tier.ONCHIP, 26, 4)),
                row(
                        "P2",
                        "Table 4 PIPER VocabGen-8K",
                        0.92,
                        0.10,
                        false,
                        () -> p2(Operator.GENVOCAB, Tier.ONCHIP, 26, 4)),
                row(
                        "P2",
                        "Table 4 PIPER VocabMap-8K",
                        0.46,
                        0.10,
                        false,
                        () -> p2(Operator.APPLYVOCAB, Tier.ONCHIP, 26, 4)),
                row(
                        "P2",
                        "Table 4 PIPER VocabGen-512K",
                        2.15,
                        0.01,
                        true,
                        () -> p2(Operator.GENVOCAB, Tier.OFFCHIP, 26, 4)),
                row(
                        "P2",
                        "Table 4 PIPER VocabMap-512K",
                        2.96,
                        0.01,
                        true,
                        () -> p2(Operator.APPLYVOCAB, Tier.OFFCHIP, 26, 4)),
                row(
                        "P2",
                        "§4.2.3 datapath 1 MiniPipe (12.8 GB/s derived)",
                        12.8e9,
                        0.01,
                        false,
                        () -> new MiniPipeDesign(1, Packing.COLUMN).datapathBytesPerSecond()),
                row(
                        "P2",
                        "§4.2.3 linear to 4 MiniPipes (51.2 GB/s derived)",
                        51.2e9,
                        0.01,
                        false,
                        () -> new MiniPipeDesign(4, Packing.COLUMN).datapathBytesPerSecond()),
                row(
                        "P2",
                        "§4.2.3 7 MiniPipes at 135 MHz (60.5 GB/s derived)",
                        60.5e9,
                        0.01,
                        false,
                        () -> new MiniPipeDesign(7, Packing.COLUMN).datapathBytesPerSecond()),
                row(
                        "P1",
                        "Table 4 FPGA Decode & FillMissing, 5K (250 MHz)",
                        11.00,
                        0.10,
                        false,
                        () -> P1_5K.decodeSeconds(CriteoKaggle.UTF8_BYTES)),
                row(
                        "P1",
                        "Table 4 FPGA Decode & FillMissing, 1M (135 MHz)",
                        20.37,
                        0.10,
                        false,
                        () -> P1_1M.decodeSeconds(CriteoKaggle.UTF8_BYTES)),
                row(
                        "P1",
                        "Table 4 FPGA Hex2Int & Modulus, 5K",
                        7.33,
                        0.10,
                        false,
                        () -> P1_5K.seconds(Operator.MODULUS, ROWS * 40)),
                row(
                        "P1",
                        "Table 4 FPGA Neg2Zero, 1M",
                        13.58,
                        0.10,
                        false,
                        () -> P1_1M.seconds(Operator.NEG2ZERO, ROWS * 40)),
                row(
                        "P1",
                        "Table 4 FPGA GenVocab-1, 5K",
                        14.67,
                        0.10,
                        false,
                        () -> P1_5K.seconds(Operator.GENVOCAB, ROWS * 40)),
                row(
                        "P1",
                        "Table 4 FPGA GenVocab-1, 1M",
                        27.16,
                        0.10,
                        false,
                        () -> P1_1M.seconds(Operator.GENVOCAB, ROWS * 40)),
                row(
                        "P1",
                        "Table 3 Network 5K Config I (rows/s)",
                        1.56e6,
                        0.10,
                        false,
                        () -> P1_5K.utf8RowsPerSecond(40, UTF8_BYTES_PER_ROW, 2)),
                row(
                        "P1",
                        "Table 3 Network 1M Config I (rows/s)",
                        8.45e5,
                        0.10,
                        false,
                        () -> P1_1M.utf8RowsPerSecond(40, UTF8_BYTES_PER_ROW, 2)),
                row(
                        "P1",
                        "Table 3 Network 5K Config III binary (rows/s)",
                        2.36e7,
                        0.01,
                        true,
                        P1_5K::binaryRowsPerSecond),
                row(
                        "P1",
                        "Table 3 Network 1M Config III binary (rows/s)",
                        4.99e6,
                        0.01,
                        true,
                        P1_1M::binaryRowsPerSecond),
                row(
                        "P1",
                        "Table 3 Local 5K Config III binary (rows/s)",
                        1.77e7,
                        0.01,
                        true,
                        () -> StreamDesign.u250Local().binaryRowsPerSecond()),
                row(
                        "P1",
                        "§4.4.6 binary maximum 30.2 Gbit/s for 5K (160 B rows)",
                        30.2e9,
                        0.01,
                        true,
                        () -> P1_5K.binaryRowsPerSecond() * 160 * 8),
                row(
                        "P1",
                        "§4.4.6 binary maximum 6.4 Gbit/s for 1M (160 B rows)",
                        6.4e9,
                        0.01,
                        true,
                        () -> P1_1M.binaryRowsPerSecond() * 160 * 8),
                row(
                        "P2",
                        "Table 5 PIPER power, P-I (W; the model's power)",
                        24,
                        0.05,
                        true,
                        () -> FpgaModel.piperNetwork(1).power().value()),
                row(
                        "P2",
                        "Table 5 PIPER power, P-II (W; the model's power)",
                        25,
                        0.05,
                        true,
                        () -> FpgaModel.piperNetwork(1).power().value()),
                row(
                        "P2",
                        "Table 5 PIPER power, P-III (W; the model's power)",
                        26,
                        0.05,
                        true,
                        () -> FpgaModel.piperNetwork(1).power().value()),
                row(
                        "PS",
                        "§VI-B 9 SmartSSDs draw 225 W at most",
                        225,
                        0,
                        false,
                        () -> 9 * SmartSsdModel.presto().power().value()),
                row(
                        "PS",
                        "§VI-B 367 CPU cores are 12 nodes of 32 cores (§V-B)",
                        12,
                        0,
                        false,
                        () -> Sizing.devices(367, 32)),
                row(
                        "P1",
                        "Table 3 Local 5K Config I (rows/s)",
                        1.87e6,
                        0.01,
                        true,
                        () ->
                                StreamDesign.u250Local()
                                        .utf8RowsPerSecond(40, UTF8_BYTES_PER_ROW, 2)));
    }

    private static Arguments row(
            String paper,
            String figure,
            double quoted,
            double tolerance,
            boolean fitted,
            DoubleSupplier model) {
        return Arguments.of(paper, figure, quoted, tolerance, fitted, model);
    }

    @ParameterizedTest(name = "{0} {1}: {2} (fitted: {4})")
    @MethodSource("figures")
    void theModelReproducesThePapersFigure(
            String paper,
            String figure,
            double quoted,
            double tolerance,
            boolean fitted,
            DoubleSupplier model) {
        assertThat(model.getAsDouble())
                .as("%s %s", paper, figure)
                .isCloseTo(quoted, within(quoted * tolerance));
    }
}
