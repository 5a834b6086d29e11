package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code preprocess --report} end to end at parallelism 2: the report's schema (issue 7), its
 * figures against the job's own output, the per-column CPU time against the tasks' busy CPU time
 * measured apart from it, and a vocabulary that outgrows on-chip memory changing tier.
 */
class ReportITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.of(1, 2);

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path tmp;

    private Preprocess.Summary preprocess(Path input, Path out, Configuration conf)
            throws Exception {
        conf.set(ReportOptions.ENABLED, true);
        Preprocess.prepareOutput(out, false);
        return Preprocess.run(input, out, 2, StateBackend.hashmap, conf, QUIET);
    }

    /**
     * Every column of {@code report} priced within 10% of {@link IndependentCostModel} (issue 26's
     * bar; the arithmetic is the same, so the rounding of a table's bytes is all that may differ).
     */
    private static void agreesWithTheIndependentModel(JsonNode report) {
        double[] fpga = IndependentCostModel.fpgaSeconds(report);
        double[] ssd = IndependentCostModel.smartSsdSeconds(report);
        JsonNode columns = report.get("columns");
        for (int i = 0; i < columns.size(); i++) {
            JsonNode c = columns.get(i);
            String name = c.get("column").asText();
            assertThat(c.get("fpga_seconds").asDouble())
                    .as("%s FPGA seconds", name)
                    .isCloseTo(fpga[i], within(0.10 * fpga[i] + 1e-12));
            assertThat(c.get("smartssd_seconds").asDouble())
                    .as("%s SmartSSD seconds", name)
                    .isCloseTo(ssd[i], within(0.10 * ssd[i] + 1e-12));
        }
    }

    private static List<JsonNode> reports(Path out) throws IOException {
        List<JsonNode> all = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve(OutputLayout.REPORT_INTERVALS))) {
            all.add(JSON.readTree(line));
        }
        return all;
    }

    @Test
    void theReportCoversEveryColumnAndItsCpuTimeAddsUpToTheTasksBusyTime() throws Exception {
        Path input = tmp.resolve("in.tsv");
        try (OutputStream o = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(7, 0.01, 0.01).write(o, 300_000);
        }
        Path out = tmp.resolve("out");
        Configuration conf = new Configuration();
        conf.set(ReportOptions.INTERVAL_LINES, 100_000L);
        Preprocess.Summary s = preprocess(input, out, conf);

        JsonNode r = JSON.readTree(out.resolve(OutputLayout.REPORT).toFile());
        assertThat(r.get("input_format").asText()).isEqualTo("utf8");
        assertThat(r.get("report").get("final").asBoolean()).isTrue();
        assertThat(r.get("report").get("lines").asLong()).isEqualTo(300_000);
        assertThat(r.get("report").get("rows").asLong()).isEqualTo(s.rowsWritten());
        JsonNode columns = r.get("columns");
        assertThat(columns).hasSize(39);
        JsonNode meta = JSON.readTree(out.resolve(OutputLayout.METADATA).toFile());
        double columnCpu = 0;
        for (int i = 0; i < 39; i++) {
            JsonNode c = columns.get(i);
            String name = CriteoLayout.fieldName(i + 1);
            boolean sparse = i >= CriteoLayout.DENSE;
            assertThat(c.get("column").asText()).isEqualTo(name);
            assertThat(c.get("kind").asText()).isEqualTo(sparse ? "sparse" : "dense");
            List<String> ops = new ArrayList<>();
            c.get("ops").forEach(op -> ops.add(op.asText()));
            assertThat(ops)
                    .isEqualTo(
                            sparse
                                    ? List.of("fill_missing", "hex2int", "genvocab", "applyvocab")
                                    : List.of("fill_missing", "neg2zero"));
            assertThat(c.get("values").asLong()).as(name).isEqualTo(s.rowsWritten());
            assertThat(c.get("input_bytes").asLong()).as(name).isPositive();
            if (sparse) {
                assertThat(c.get("vocab_entries").asLong())
                        .as(name)
                        .isEqualTo(meta.get("vocab_size").get(name).asLong());
                assertThat(c.get("vocab_tier").asText()).as(name).isEqualTo("onchip");
            } else {
                assertThat(c.get("vocab_entries").isNull()).as(name).isTrue();
                assertThat(c.get("vocab_tier").isNull()).as(name).isTrue();
            }
            double cpu = c.get("cpu_core_seconds").asDouble();
            assertThat(cpu).as(name).isPositive();
            for (String device : new String[] {"fpga", "smartssd"}) {
                double seconds = c.get(device + "_seconds").asDouble();
                assertThat(seconds).as(name).isPositive();
                assertThat(c.get(device + "_speedup").asDouble())
                        .as(name)
                        .isCloseTo(cpu / seconds, within(1e-9 * cpu / seconds));
            }
            columnCpu += cpu;
        }
        // every sparse column's bytes are 8 hex digits or none, plus the delimiter
        for (int c = 0; c < CriteoLayout.SPARSE; c++) {
            long bytes = columns.get(CriteoLayout.DENSE + c).get("input_bytes").asLong();
            assertThat(bytes).isBetween(s.rowsWritten(), 17 * s.rowsWritten() + s.rowsWritten());
        }

        JsonNode device = r.get("device");
        assertThat(device.get("fpga_bound").asText()).isIn("decode", "compute", "datapath", "link");
        assertThat(device.get("smartssd_bound").asText()).isIn("p2p", "decode", "transform");
        assertThat(device.get("fpga_speedup").asDouble())
                .isCloseTo(
                        device.get("cpu_core_seconds").asDouble()
                                / device.get("fpga_seconds").asDouble(),
                        within(1e-6));
        assertThat(device.get("smartssd_speedup").asDouble()).isPositive();

        // the tasks' CPU time from start to end, measured apart from the samples
        assertThat(s.taskCpuSeconds()).isPositive();
        assertThat(columnCpu).isCloseTo(s.taskCpuSeconds(), within(0.10 * s.taskCpuSeconds()));

        // the intervals partition the run: their values and CPU add up to the run's
        List<JsonNode> all = reports(out);
        assertThat(all.size()).isGreaterThanOrEqualTo(3);
        assertThat(all.get(all.size() - 1)).isEqualTo(r);
        all.forEach(ReportITCase::agreesWithTheIndependentModel);
        // on text every column is bound by its decoder; the binary what-if is never slower
        for (JsonNode c : columns) {
            assertThat(c.get("fpga_bound").asText())
                    .as(c.get("column").asText())
                    .isEqualTo("decode");
            JsonNode binary = c.get("binary_input");
            assertThat(binary.get("fpga_seconds").asDouble())
                    .isLessThanOrEqualTo(c.get("fpga_seconds").asDouble());
            assertThat(binary.get("fpga_bound").asText()).isNotEqualTo("decode");
            assertThat(binary.get("smartssd_seconds").asDouble())
                    .isLessThanOrEqualTo(c.get("smartssd_seconds").asDouble());
        }
        for (int i = 0; i < 39; i++) {
            long values = 0;
            double cpu = 0;
            for (JsonNode interval : all.subList(0, all.size() - 1)) {
                assertThat(interval.get("report").get("final").asBoolean()).isFalse();
                values += interval.get("columns").get(i).get("values").asLong();
                cpu += interval.get("columns").get(i).get("cpu_core_seconds").asDouble();
            }
            JsonNode c = columns.get(i);
            assertThat(values).isEqualTo(c.get("values").asLong());
            assertThat(cpu).isCloseTo(c.get("cpu_core_seconds").asDouble(), within(1e-6));
        }

        String html =
                Files.readString(out.resolve(OutputLayout.REPORT_HTML), StandardCharsets.UTF_8);
        assertThat(html).contains("<svg", "FPGA (PIPER)", "SmartSSD (PreSto)", ">C26<");
        // self-contained: nothing is fetched
        assertThat(html).doesNotContain("src=", "href=", "<script", "<link");
    }

    @Test
    void aVocabularyThatOutgrowsOnChipMemoryMovesOffChipInALaterReport() throws Exception {
        // C1 gains an entry every 4th line, 100,000 in all, and crosses the budget of 50,000
        // entries halfway. Reports are cut by the decoders' samples as they reach the cost model,
        // which may trail the vocabularies by the network's flush interval: the first report (at
        // 40,000 lines, at most about 10,000 entries) stays far from the budget.
        int lines = 400_000;
        Path input = tmp.resolve("growing.tsv");
        long c1Bytes = 0;
        StringBuilder rest = new StringBuilder();
        for (int c = 2; c <= CriteoLayout.SPARSE; c++) {
            rest.append("\t0000abcd");
        }
        try (var w = Files.newBufferedWriter(input, StandardCharsets.US_ASCII)) {
            for (int n = 0; n < lines; n++) {
                String id = Integer.toHexString(0x10000000 + n / 4 * 7919);
                c1Bytes += id.length() + 1;
                w.write(n % 2 + "\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t" + id + rest + "\n");
            }
        }
        // C2..C26 hold one entry each: 16 bytes as hashed tables; C1 fits while below 50,000
        long budget = 25 * 16 + 50_000 * 16;
        Configuration conf = new Configuration();
        conf.set(ReportOptions.INTERVAL_LINES, 40_000L);
        conf.set(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(10));
        conf.set(ReportOptions.INTERVAL, Duration.ofHours(1));
        conf.set(ReportOptions.FPGA_VOCABULARY_BYTES, budget);
        conf.set(ReportOptions.FIELD_BYTES_EVERY, 1); // exact bytes
        Path out = tmp.resolve("out");
        preprocess(input, out, conf);

        List<JsonNode> all = reports(out);
        all.forEach(ReportITCase::agreesWithTheIndependentModel);
        List<String> tiers = new ArrayList<>();
        List<Long> entries = new ArrayList<>();
        for (JsonNode report : all) {
            JsonNode c1 = report.get("columns").get(CriteoLayout.DENSE);
            assertThat(c1.get("column").asText()).isEqualTo("C1");
            tiers.add(c1.get("vocab_tier").asText());
            entries.add(c1.get("vocab_entries").asLong());
            for (int c = 1; c < CriteoLayout.SPARSE; c++) {
                assertThat(
                                report.get("columns")
                                        .get(CriteoLayout.DENSE + c)
                                        .get("vocab_tier")
                                        .asText())
                        .isEqualTo("onchip");
            }
        }
        assertThat(entries).isSorted();
        assertThat(entries.get(entries.size() - 1)).isEqualTo(lines / 4);
        // on chip while small, off chip once past the budget, and never back
        assertThat(tiers.get(0)).isEqualTo("onchip");
        assertThat(tiers.get(tiers.size() - 1)).isEqualTo("offchip");
        int firstOff = tiers.indexOf("offchip");
        assertThat(Set.copyOf(tiers.subList(firstOff, tiers.size()))).containsExactly("offchip");
        // the tier sets the vocabulary operators' initiation intervals (P2 §3.4.2)
        JsonNode firstIi =
                all.get(0).get("columns").get(CriteoLayout.DENSE).get("fpga_ii_cycles_per_beat");
        JsonNode lastIi =
                all.get(all.size() - 1)
                        .get("columns")
                        .get(CriteoLayout.DENSE)
                        .get("fpga_ii_cycles_per_beat");
        assertThat(firstIi.get("genvocab").asDouble()).isEqualTo(2);
        assertThat(firstIi.get("applyvocab").asDouble()).isEqualTo(1);
        assertThat(lastIi.get("genvocab").asDouble()).isEqualTo(4.69);
        assertThat(lastIi.get("applyvocab").asDouble()).isEqualTo(6.46);
        assertThat(lastIi.get("hex2int").asDouble()).isEqualTo(1);
        for (int i = 0; i < tiers.size(); i++) {
            assertThat(tiers.get(i))
                    .isEqualTo(entries.get(i) * 16 > 50_000 * 16 ? "offchip" : "onchip");
        }
        JsonNode last = all.get(all.size() - 1);
        assertThat(last.get("report").get("final").asBoolean()).isTrue();
        JsonNode c1 = last.get("columns").get(CriteoLayout.DENSE);
        assertThat(c1.get("input_bytes").asLong()).isEqualTo(c1Bytes);
        assertThat(c1.get("vocab_table").asText()).isEqualTo("hashed");
        assertThat(c1.get("vocab_table_bytes").asLong()).isEqualTo(lines / 4 * 16L);
    }

    /**
     * A layout with lists, a generated column and RAP's operators: every column is priced (a list
     * column's values are the ids its vocabulary applied, which are the ids written to its list
     * file), the operators no paper built are flagged as assumed, and the prices agree with the
     * independent model.
     */
    @Test
    void aLayoutWithListsAndGeneratedColumnsIsPricedColumnByColumn() throws Exception {
        RowLayout layout = new RowLayout(3, 4, List.of(1, 3), ',', List.of(0));
        Path input = tmp.resolve("lists.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(layout, 26, 0.001, 0.01, 4).write(out, 20_000);
        }
        String spec =
                """
                {"name": "lists-report", "version": 1,
                 "input": {"format": "criteo-tsv", "dense": 3, "sparse": 4,
                           "list_columns": ["C2", "C4"], "generated_from": ["I1"]},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1": ["decode", "fill_missing", "neg2zero"],
                   "I2": ["decode", "fill_missing", {"op": "bucketize", "borders": [0, 1, 10, 100]},
                          {"op": "onehot", "size": 5}],
                   "I3": ["decode", "fill_missing", "neg2zero", "log"],
                   "G1": ["decode", "fill_missing", "neg2zero",
                          {"op": "bucketize", "borders": [0, 1, 10, 100]}],
                   "C1": ["decode", "fill_missing", "hex2int", "vocab"],
                   "C2": ["decode", "fill_missing", "hex2int",
                          {"op": "sigrid_hash", "salt": 3, "max": 5000}, {"op": "firstx", "x": 4},
                          "vocab"],
                   "C3": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 1000}, "vocab"],
                   "C4": ["decode", {"op": "fill_null", "value": 1}, "hex2int",
                          {"op": "ngram", "n": 2}, {"op": "modulus", "m": 100000}, "vocab"]
                 }}
                """;
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        conf.set(ReportOptions.FIELD_BYTES_EVERY, 1); // exact bytes
        Path out = tmp.resolve("out");
        Preprocess.Summary s = preprocess(input, out, conf);

        JsonNode r = JSON.readTree(out.resolve(OutputLayout.REPORT).toFile());
        JsonNode columns = r.get("columns");
        List<String> names = new ArrayList<>();
        columns.forEach(c -> names.add(c.get("column").asText()));
        assertThat(names).containsExactly("I1", "I2", "I3", "G1", "C1", "C2", "C3", "C4");
        JsonNode g1 = columns.get(3);
        assertThat(g1.get("kind").asText()).isEqualTo("generated");
        assertThat(g1.get("input_bytes").asLong()).isZero(); // it decodes I1's field again
        assertThat(g1.get("values").asLong()).isEqualTo(s.rowsWritten());
        for (int c : new int[] {1, 3}) {
            JsonNode list = columns.get(4 + c);
            assertThat(list.get("list").asBoolean()).isTrue();
            long ids = Files.size(out.resolve(OutputLayout.listValuesFile(c))) / Integer.BYTES;
            assertThat(list.get("values").asLong()).as("C%d", c + 1).isEqualTo(ids);
        }
        assertThat(columns.get(1).get("fpga_assumed_ops").toString()).contains("onehot");
        assertThat(columns.get(5).get("fpga_assumed_ops").toString()).contains("firstx");
        assertThat(columns.get(7).get("fpga_assumed_ops").toString()).contains("ngram");
        assertThat(columns.get(5).get("smartssd_extrapolated_ops").toString())
                .contains("firstx")
                .doesNotContain("sigridhash");
        reports(out).forEach(ReportITCase::agreesWithTheIndependentModel);
        // every sample's time lands on a column, the label or (blocks of dead letters only) apart
        double columnCpu = 0;
        for (JsonNode c : columns) {
            columnCpu += c.get("cpu_core_seconds").asDouble();
        }
        JsonNode job = r.get("job");
        assertThat(columnCpu).isCloseTo(job.get("column_cpu_seconds").asDouble(), within(1e-9));
        assertThat(
                        columnCpu
                                + job.get("label_cpu_seconds").asDouble()
                                + job.get("unattributed_cpu_seconds").asDouble())
                .isCloseTo(job.get("task_cpu_seconds").asDouble(), within(1e-6));
        assertThat(s.taskCpuSeconds()).isPositive();
    }
}
