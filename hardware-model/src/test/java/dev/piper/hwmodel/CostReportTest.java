package dev.piper.hwmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class CostReportTest {

    private static final List<Operator> SPARSE =
            List.of(
                    Operator.FILL_MISSING,
                    Operator.HEX2INT,
                    Operator.GENVOCAB,
                    Operator.APPLYVOCAB);

    private static CostReport.Measured sparse(String name, long entries, double cpu) {
        return new CostReport.Measured(
                CostReport.Kind.SPARSE,
                new ColumnWork(
                        name, SPARSE, 1_000_000, 9_000_000, new ColumnWork.Vocabulary(entries, 0)),
                cpu);
    }

    @Test
    void columnTimesAreIsolatedAndSpeedupsDivideTheMeasuredCpuTime() {
        FpgaModel fpga = FpgaModel.piperNetwork(1);
        CostReport r =
                CostReport.of(
                        List.of(
                                new CostReport.Measured(
                                        CostReport.Kind.DENSE,
                                        new ColumnWork(
                                                "I1",
                                                List.of(Operator.FILL_MISSING, Operator.NEG2ZERO),
                                                1_000_000,
                                                3_000_000,
                                                null),
                                        0.05),
                                sparse("C1", 1000, 0.2)),
                        true,
                        0.5,
                        fpga,
                        SmartSsdModel.presto());
        CostReport.ColumnCost i1 = r.columns().get(0);
        // UTF-8: the decoder PE, 3 MB / 4 B per cycle / 200 MHz, binds the dense column
        assertThat(i1.fpgaSeconds()).isCloseTo(3e6 / 4 / 200e6, within(1e-12));
        assertThat(i1.tier()).isNull();
        assertThat(i1.fpgaSpeedup()).isCloseTo(0.05 / i1.fpgaSeconds(), within(1e-9));
        assertThat(i1.smartSsdExtrapolated()).containsExactly(Operator.NEG2ZERO);
        CostReport.ColumnCost c1 = r.columns().get(1);
        assertThat(c1.tier()).isEqualTo(Tier.ONCHIP);
        // two passes, each decode-bound: 2 x 9 MB / 4 B / 200 MHz
        assertThat(c1.fpgaSeconds()).isCloseTo(2 * 9e6 / 4 / 200e6, within(1e-12));
        assertThat(c1.smartSsdSpeedup()).isCloseTo(0.2 / c1.smartSsdSeconds(), within(1e-9));
        // the device: not the sum of the columns but its largest shared resource
        assertThat(r.fpga().bound()).isEqualTo(FpgaModel.Resource.DECODE);
        assertThat(r.fpga().seconds()).isCloseTo(2 * 12e6 / 4 / 200e6, within(1e-12));
        assertThat(r.fpgaSpeedup()).isCloseTo(0.5 / r.fpga().seconds(), within(1e-9));
    }

    @Test
    void theLargestVocabularyGoesOffChipFirstAndAColumnWithoutWorkHasNoSpeedup() {
        FpgaModel fpga = FpgaModel.piperNetwork(1);
        // 21.5 MB for vocabularies: 1M entries (16 MB) fit beside 100k; 1.5M more do not
        CostReport r =
                CostReport.of(
                        List.of(
                                sparse("C1", 1_500_000, 1),
                                sparse("C2", 1_000_000, 1),
                                sparse("C3", 100_000, 1)),
                        true,
                        3,
                        fpga,
                        SmartSsdModel.presto());
        assertThat(r.columns())
                .extracting(CostReport.ColumnCost::tier)
                .containsExactly(Tier.OFFCHIP, Tier.ONCHIP, Tier.ONCHIP);
        CostReport idle =
                CostReport.of(
                        List.of(
                                new CostReport.Measured(
                                        CostReport.Kind.DENSE,
                                        new ColumnWork("I1", List.of(Operator.LOG), 0, 0, null),
                                        0)),
                        true,
                        0,
                        fpga,
                        SmartSsdModel.presto());
        assertThat(idle.columns().get(0).fpgaSpeedup()).isZero();
        assertThat(idle.fpgaSpeedup()).isZero();
    }
}
