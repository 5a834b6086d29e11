package dev.piper.hwmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SmartSsdModelTest {

    private static final SmartSsdModel SSD = SmartSsdModel.presto();

    @Test
    void aColumnsTimeIsTheLargestOfReadDecodeAndTransform() {
        ColumnWork i5 = new ColumnWork("I5", List.of(Operator.LOG), 1_000_000, 4_000_000, null);
        BoundTime<SmartSsdModel.Resource> t = SSD.seconds(List.of(i5), Arrays.asList((Tier) null));
        // read 4 MB at 2.36 GB/s = 1.69 ms; decode 4 MB / 4 B / 223 MHz = 4.48 ms; log 4.48 ms
        assertThat(t.byResource().get(SmartSsdModel.Resource.P2P))
                .isCloseTo(4e6 / 2.36e9, within(1e-12));
        assertThat(t.seconds()).isCloseTo(1e6 / 223e6, within(1e-12));
        assertThat(t.bound()).isEqualTo(SmartSsdModel.Resource.DECODE);
        assertThat(SmartSsdModel.extrapolated(i5)).isEmpty();
    }

    @Test
    void vocabularyColumnsAreExtrapolatedTwoPassesWithOffChipCost() {
        ColumnWork c3 =
                new ColumnWork(
                        "C3",
                        List.of(Operator.HEX2INT, Operator.GENVOCAB, Operator.APPLYVOCAB),
                        1_000_000,
                        9_000_000,
                        new ColumnWork.Vocabulary(5_000_000, 0));
        assertThat(SmartSsdModel.extrapolated(c3))
                .containsExactly(Operator.HEX2INT, Operator.GENVOCAB, Operator.APPLYVOCAB);
        BoundTime<SmartSsdModel.Resource> on = SSD.seconds(List.of(c3), List.of(Tier.ONCHIP));
        BoundTime<SmartSsdModel.Resource> off = SSD.seconds(List.of(c3), List.of(Tier.OFFCHIP));
        // two passes of decoding: 2 x 9 MB / 4 B / 223 MHz
        assertThat(on.seconds()).isCloseTo(2 * 9e6 / 4 / 223e6, within(1e-12));
        // off chip, each vocabulary access about 15 cycles (P1 §3.2)
        assertThat(off.seconds()).isCloseTo(15e6 / 223e6, within(1e-12));
        assertThat(off.bound()).isEqualTo(SmartSsdModel.Resource.TRANSFORM);
    }

    @Test
    void sizingRoundsUpAndEnergyIsPowerTimesTime() {
        assertThat(Sizing.devices(1000, 300)).isEqualTo(4);
        assertThat(Sizing.devices(900, 300)).isEqualTo(3);
        assertThat(Sizing.devices(0, 300)).isZero();
        assertThatThrownBy(() -> Sizing.devices(1, 0)).hasMessageContaining("per device 0");
        assertThat(Sizing.joules(SSD.power().value(), 2)).isEqualTo(50);
        assertThat(Sizing.exposedLatency(new double[] {1, 2, 3}, 4)).isEqualTo(2);
        assertThat(Sizing.exposedLatency(new double[] {1, 2}, 4)).isZero();
    }
}
