package dev.piper.pipeline.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.piper.pipeline.layout.CriteoLayout;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CriteoGeneratorTest {

    private static byte[] generate(long seed, double scale, double badRate, int rows)
            throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new CriteoGenerator(seed, scale, badRate).write(out, rows);
        return out.toByteArray();
    }

    @Test
    void sameSeedSameBytesOtherSeedOtherBytes() throws IOException {
        assertThat(generate(3, 0.01, 0.01, 2000)).isEqualTo(generate(3, 0.01, 0.01, 2000));
        assertThat(generate(3, 0.01, 0.01, 2000)).isNotEqualTo(generate(4, 0.01, 0.01, 2000));
    }

    /**
     * The default output is frozen: the SHA-256 of 20,000 lines (seed 7, scale 0.01, 1% malformed)
     * as the generator wrote them before the click model existed.
     */
    @Test
    void theDefaultOutputIsUnchanged() throws Exception {
        byte[] digest =
                MessageDigest.getInstance("SHA-256").digest(generate(7, 0.01, 0.01, 20_000));
        assertThat(HexFormat.of().formatHex(digest))
                .isEqualTo("de2a6cdd90037d14fe258623100b5dc23431015a1f8ef7fda8964d9328721e2a");
    }

    /**
     * A click model's printed Bayes AUC is the AUC of the hidden model's probabilities, computed
     * again here from the written lines alone (by sorting, not binning), before and after a drift;
     * the drift changes the ids that are popular; labels follow the model (the clicks' mean
     * probability is above the non-clicks').
     */
    @Test
    void clickModelsBayesAucIsTheAucOfItsProbabilitiesOnTheLines() throws IOException {
        ClickModel model = new ClickModel(11);
        CriteoGenerator g = new CriteoGenerator(11, 0.01, 0).withClickModel(model, 30_000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        g.write(out, 60_000);
        String[] lines = out.toString(StandardCharsets.US_ASCII).split("\n");
        assertThat(lines).hasSize(60_000);
        for (int phase = 0; phase < 2; phase++) {
            double[] p = new double[30_000];
            boolean[] clicks = new boolean[30_000];
            for (int i = 0; i < p.length; i++) {
                String line = lines[phase * 30_000 + i];
                p[i] = model.probability(phase, line);
                clicks[i] = line.charAt(0) == '1';
            }
            assertThat(p).doesNotContain(Double.NaN);
            double auc = ClickModel.rankAuc(p, clicks);
            assertThat(g.bayesAuc(phase)).isCloseTo(auc, within(1e-4));
            assertThat(auc).isBetween(0.75, 0.9);
        }
        // new popular ids: C9's (3 ids at Kaggle's cardinality) most frequent id changes
        assertThat(mostFrequent(lines, 0, 30_000, 9))
                .isNotEqualTo(mostFrequent(lines, 30_000, 60_000, 9));
    }

    private static String mostFrequent(String[] lines, int from, int to, int column) {
        Map<String, Integer> counts = new HashMap<>();
        for (int i = from; i < to; i++) {
            String[] f = lines[i].split("\t", -1);
            if (f.length == CriteoLayout.FIELDS && !f[13 + column].isEmpty()) {
                counts.merge(f[13 + column], 1, Integer::sum);
            }
        }
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    }

    /** Ranks by hand on four lines: one misordered pair of four, a tie half. */
    @Test
    void rankAucCountsPairsOrderedRight() {
        assertThat(
                        ClickModel.rankAuc(
                                new double[] {0.1, 0.4, 0.35, 0.8},
                                new boolean[] {false, false, true, true}))
                .isEqualTo(0.75);
        assertThat(ClickModel.rankAuc(new double[] {0.5, 0.5}, new boolean[] {false, true}))
                .isEqualTo(0.5);
        assertThat(ClickModel.rankAuc(new double[] {0.5}, new boolean[] {true})).isNaN();
    }

    @Test
    void rowsHaveTheCriteoShape() throws IOException {
        List<String> lines =
                new String(generate(9, 0.001, 0, 20_000), StandardCharsets.US_ASCII)
                        .lines()
                        .toList();
        assertThat(lines).hasSize(20_000);
        long negativeI2 = 0;
        List<Set<String>> distinct = new java.util.ArrayList<>();
        for (int c = 0; c < CriteoLayout.SPARSE; c++) {
            distinct.add(new HashSet<>());
        }
        for (String line : lines) {
            String[] f = line.split("\t", -1);
            assertThat(f).hasSize(CriteoLayout.FIELDS);
            assertThat(f[0]).isIn("0", "1");
            if (f[2].startsWith("-")) {
                negativeI2++;
            }
            for (int c = 0; c < CriteoLayout.SPARSE; c++) {
                String id = f[1 + CriteoLayout.DENSE + c];
                int width = (c == 2 || c == 15) ? 16 : 8;
                assertThat(id).matches("|[0-9a-f]{" + width + "}");
                if (!id.isEmpty()) {
                    distinct.get(c).add(id);
                }
            }
        }
        assertThat(negativeI2).isBetween(1500L, 2500L);
        for (int c = 0; c < CriteoLayout.SPARSE; c++) {
            assertThat(distinct.get(c).size())
                    .isLessThanOrEqualTo(CriteoGenerator.cardinality(c, 0.001));
        }
        // C3 (10M at scale 1) at scale 0.001: up to 10,131 ids, Zipf-skewed so fewer appear in 20k
        // rows
        assertThat(distinct.get(2).size()).isBetween(1000, 10_131);
    }

    @Test
    void badRateProducesMalformedLines() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CriteoGenerator g = new CriteoGenerator(1, 0.01, 0.1);
        g.write(out, 10_000);
        assertThat(g.badLines()).isBetween(800L, 1200L);
    }
}
