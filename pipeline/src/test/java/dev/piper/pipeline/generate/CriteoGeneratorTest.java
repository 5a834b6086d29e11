package dev.piper.pipeline.generate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.pipeline.layout.CriteoLayout;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
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
