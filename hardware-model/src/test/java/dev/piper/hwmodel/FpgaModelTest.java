package dev.piper.hwmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class FpgaModelTest {

    private static final FpgaModel ONE = FpgaModel.piperNetwork(1);

    /** A hex-id column with a vocabulary: 1M values, 9 MB of UTF-8 (8 hex digits and a tab). */
    private static ColumnWork c3(long vocabEntries) {
        return new ColumnWork(
                "C3",
                List.of(Operator.HEX2INT, Operator.GENVOCAB, Operator.APPLYVOCAB),
                1_000_000,
                9_000_000,
                new ColumnWork.Vocabulary(vocabEntries, 0));
    }

    /**
     * COMBINING.md pitfall 3's worked example: on UTF-8 the 4 B/cycle decoder bounds both passes,
     * so an on-chip and an off-chip vocabulary column take the same 22.5 ms; on binary input they
     * differ about 3x (2.79x here: the off-chip IIs against hex2int's beats).
     */
    @Test
    void decodeHidesTheVocabularyTierOnUtf8ButNotOnBinary() {
        ColumnWork c = c3(10_000);
        assertThat(ONE.columnSeconds(c, Tier.ONCHIP, true)).isCloseTo(0.0225, within(1e-9));
        assertThat(ONE.columnSeconds(c, Tier.OFFCHIP, true)).isCloseTo(0.0225, within(1e-9));
        double on = ONE.columnSeconds(c, Tier.ONCHIP, false);
        double off = ONE.columnSeconds(c, Tier.OFFCHIP, false);
        // pass 1: max(hex2int 125,000 beats, genvocab 62,500 x 2) = 0.625 ms; pass 2 the same.
        assertThat(on).isCloseTo(0.00125, within(1e-9));
        // pass 1: genvocab 62,500 x 4.69 cycles; pass 2: applyvocab 62,500 x 6.46 cycles.
        assertThat(off).isCloseTo((62_500 * 4.69 + 62_500 * 6.46) / 200e6, within(1e-9));
        assertThat(off / on).isCloseTo(3.0, within(0.3));
    }

    @Test
    void aStatelessColumnIsOnePass() {
        ColumnWork i5 =
                new ColumnWork(
                        "I5", List.of(Operator.NEG2ZERO, Operator.LOG), 1_600_000, 4_000_000, null);
        // max(decode 4 MB / 4 B / 200 MHz = 5 ms, 100,000 beats = 0.5 ms), once.
        assertThat(ONE.columnSeconds(i5, Tier.ONCHIP, true)).isCloseTo(0.005, within(1e-9));
        assertThat(ONE.columnSeconds(i5, Tier.ONCHIP, false)).isCloseTo(0.0005, within(1e-9));
    }

    @Test
    void theDeviceIsBoundByItsSlowestSharedResource() {
        List<ColumnWork> columns = new ArrayList<>(Collections.nCopies(26, c3(10_000)));
        List<Tier> tiers = ONE.tiers(columns);
        assertThat(tiers).containsOnly(Tier.ONCHIP);

        BoundTime<FpgaModel.Resource> utf8 = ONE.deviceSeconds(columns, tiers, true);
        assertThat(utf8.bound()).isEqualTo(FpgaModel.Resource.DECODE);
        // two passes over 234 MB at 4 B/cycle and 200 MHz
        assertThat(utf8.seconds()).isCloseTo(2 * 234e6 / 4 / 200e6, within(1e-9));

        BoundTime<FpgaModel.Resource> binary = ONE.deviceSeconds(columns, tiers, false);
        assertThat(binary.bound()).isEqualTo(FpgaModel.Resource.DATAPATH);
        assertThat(binary.seconds()).isCloseTo(2 * 234e6 / (64 * 200e6), within(1e-9));
        // the hex2int engine serves 26 columns in both passes: 26 x 2 x 0.625 ms
        assertThat(binary.byResource().get(FpgaModel.Resource.COMPUTE))
                .isCloseTo(0.0325, within(1e-9));

        // Four MiniPipes widen the datapath: the hex2int engine binds instead.
        FpgaModel four = FpgaModel.piperNetwork(4);
        assertThat(four.deviceSeconds(columns, tiers, false).bound())
                .isEqualTo(FpgaModel.Resource.COMPUTE);
    }

    @Test
    void aTwoPassInputLargerThanDeviceMemoryCrossesTheLinkTwice() {
        ColumnWork big =
                new ColumnWork(
                        "C1",
                        List.of(Operator.GENVOCAB, Operator.APPLYVOCAB),
                        1_000_000_000L,
                        20_000_000_000L,
                        new ColumnWork.Vocabulary(1000, 0));
        BoundTime<FpgaModel.Resource> t =
                ONE.deviceSeconds(List.of(big), List.of(Tier.ONCHIP), false);
        assertThat(t.byResource().get(FpgaModel.Resource.LINK))
                .isCloseTo(2 * 20e9 / 11e9, within(1e-9));
        assertThat(t.bound()).isEqualTo(FpgaModel.Resource.LINK);
    }

    @Test
    void tiersGoSmallestFirstSoOneColumnsGrowthCanEvictAnother() {
        double mb = 1e6;
        assertThat(VocabularyTiers.assign(List.of(10 * mb, 1 * mb, 15 * mb, 5 * mb), 16 * mb))
                .containsExactly(Tier.ONCHIP, Tier.ONCHIP, Tier.OFFCHIP, Tier.ONCHIP);
        // the second table grows past the first: now the first (10 MB) no longer fits
        assertThat(VocabularyTiers.assign(List.of(10 * mb, 12 * mb, 15 * mb, 5 * mb), 16 * mb))
                .containsExactly(Tier.ONCHIP, Tier.OFFCHIP, Tier.OFFCHIP, Tier.ONCHIP);
        // direct-mapped tables are sized by their modulus range, hashed ones by their entries
        assertThat(new ColumnWork.Vocabulary(5, 1_000_000).bytes()).isEqualTo(4_125_000);
        assertThat(new ColumnWork.Vocabulary(750_000, 0).bytes()).isEqualTo(12_000_000);
        // the U55C gives 21.5 MB to vocabularies: 26 tables of 8K fit, 26 of 512K do not
        List<ColumnWork> small = new ArrayList<>();
        List<ColumnWork> large = new ArrayList<>();
        for (int c = 0; c < 26; c++) {
            small.add(
                    new ColumnWork(
                            "C",
                            List.of(Operator.GENVOCAB),
                            1,
                            1,
                            new ColumnWork.Vocabulary(0, 8_192)));
            large.add(
                    new ColumnWork(
                            "C",
                            List.of(Operator.GENVOCAB),
                            1,
                            1,
                            new ColumnWork.Vocabulary(0, 524_288)));
        }
        assertThat(ONE.tiers(small)).containsOnly(Tier.ONCHIP);
        assertThat(ONE.tiers(large)).contains(Tier.OFFCHIP);
    }
}
