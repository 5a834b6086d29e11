package dev.piper.hwmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class SmartSsdModelTest {

    private static final SmartSsdModel SSD = SmartSsdModel.presto();

    private static final double F = 223e6;

    private static ColumnWork c3(long values, long bytes, long entries, long range) {
        return new ColumnWork(
                "C3",
                List.of(Operator.HEX2INT, Operator.GENVOCAB, Operator.APPLYVOCAB),
                values,
                bytes,
                new ColumnWork.Vocabulary(entries, range));
    }

    @Test
    void aStatelessColumnsTimeIsTheLargestOfReadDecodeAndItsUnits() {
        ColumnWork i5 = new ColumnWork("I5", List.of(Operator.LOG), 1_000_000, 4_000_000, null);
        BoundTime<SmartSsdModel.Resource> t =
                SSD.seconds(List.of(i5), Arrays.asList((Tier) null), true);
        // read 4 MB at 2.36 GB/s = 1.69 ms; decode 4 MB / 4 B / 223 MHz = 4.48 ms; log 4.48 ms
        assertThat(t.byResource().get(SmartSsdModel.Resource.P2P))
                .isCloseTo(4e6 / 2.36e9, within(1e-12));
        assertThat(t.seconds()).isCloseTo(1e6 / F, within(1e-12));
        assertThat(t.bound()).isEqualTo(SmartSsdModel.Resource.DECODE);
        assertThat(SSD.columnSeconds(i5, null)).isCloseTo(1e6 / F, within(1e-12));
        assertThat(SmartSsdModel.extrapolated(i5)).isEmpty();
    }

    @Test
    void aVocabularyColumnTakesTwoPassesEachBoundByItsOwnSlowestUnit() {
        ColumnWork c3 = c3(1_000_000, 9_000_000, 5_000, 0);
        assertThat(SmartSsdModel.extrapolated(c3))
                .containsExactly(Operator.HEX2INT, Operator.GENVOCAB, Operator.APPLYVOCAB);
        double decode = 9e6 / 4 / F; // 10.09 ms a pass, above genvocab's 2 cycles (8.97 ms)
        assertThat(SSD.columnSeconds(c3, Tier.ONCHIP)).isCloseTo(2 * decode, within(1e-12));
        // off chip: generate 6 cycles an element in the first pass, apply 6 in the second
        // (P2 §3.4.2 "approximately six cycles"), each above the pass's decoding
        assertThat(SSD.columnSeconds(c3, Tier.OFFCHIP)).isCloseTo(6e6 / F + 6e6 / F, within(1e-12));
        assertThat(SSD.initiationInterval(Operator.APPLYVOCAB, Tier.OFFCHIP).provenance())
                .isEqualTo(Provenance.QUOTED);
        // the device: the genvocab unit runs in pass 1, applyvocab in pass 2, each once
        BoundTime<SmartSsdModel.Resource> off =
                SSD.seconds(List.of(c3), List.of(Tier.OFFCHIP), true);
        assertThat(off.bound()).isEqualTo(SmartSsdModel.Resource.TRANSFORM);
        assertThat(off.seconds()).isCloseTo(6e6 / F, within(1e-12));
        assertThat(off.byResource().get(SmartSsdModel.Resource.DECODE))
                .isCloseTo(2 * decode, within(1e-12));
    }

    @Test
    void onTextASecondPassReadsWholeRowsOnAColumnarInputOnlyTheVocabularyColumns() {
        ColumnWork i1 =
                new ColumnWork("I1", List.of(Operator.NEG2ZERO), 1_000_000, 3_000_000, null);
        List<ColumnWork> both = List.of(i1, c3(1_000_000, 9_000_000, 5_000, 0));
        List<Tier> tiers = SSD.tiers(both);
        assertThat(tiers).containsExactly(null, Tier.ONCHIP);
        assertThat(SSD.seconds(both, tiers, true).byResource().get(SmartSsdModel.Resource.P2P))
                .isCloseTo(2 * 12e6 / 2.36e9, within(1e-12));
        assertThat(SSD.seconds(both, tiers, false).byResource().get(SmartSsdModel.Resource.P2P))
                .isCloseTo((3e6 + 2 * 9e6) / 2.36e9, within(1e-12));
    }

    @Test
    void vocabulariesGetTheOnChipMemoryPrestosUnitsLeaveFree() {
        // 34.6 Mb BRAM x (1 - 48.05%) + 36.0 Mb URAM x (1 - 27.59%) = 44.04 Mb = 5.51 MB
        assertThat(SSD.vocabularyBytes().value()).isCloseTo(5.505e6, within(1e3));
        assertThat(SSD.vocabularyBytes().provenance()).isEqualTo(Provenance.DERIVED);
        // direct-mapped tables of PreSto's 500,000 ids (2.06 MB each): two fit, the third not;
        // the U55C's 21.5 MB holds ten
        List<ColumnWork> columns =
                new ArrayList<>(Collections.nCopies(11, c3(1_000, 9_000, 1_000, 500_000)));
        assertThat(SSD.tiers(columns)).filteredOn(t -> t == Tier.ONCHIP).hasSize(2);
        assertThat(FpgaModel.piperNetwork(1).tiers(columns))
                .filteredOn(t -> t == Tier.ONCHIP)
                .hasSize(10);
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
