package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.generate.CriteoGenerator;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code piper report} end to end on a small generated file: it warms up on a prefix, measures,
 * prints the table with the binary what-if and the fleet that sustains a target, and keeps
 * report.json saying all of it. Figures are checked against each other, never for speed.
 */
class ReportCommandITCase {

    @TempDir Path tmp;

    @Test
    void warmsUpMeasuresAndSizesTheFleetForATarget() throws Exception {
        Path input = tmp.resolve("in.tsv");
        try (OutputStream out = Files.newOutputStream(input)) {
            new CriteoGenerator(26, 0.01, 0.001).write(out, 12_000);
        }
        Path dir = tmp.resolve("report");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        PrintStream savedErr = System.err;
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(OutputStream.nullOutputStream(), true));
            code =
                    PiperCli.execute(
                            "report",
                            "--input",
                            input.toString(),
                            "--report-dir",
                            dir.toString(),
                            "--warmup-lines",
                            "3000",
                            "--repeat",
                            "2",
                            "--target-rows-per-second",
                            "1000000",
                            "--cpu-watts",
                            "65",
                            "--smartssd-price",
                            "2500");
        } finally {
            System.setOut(saved);
            System.setErr(savedErr);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(text).isZero();
        assertThat(text)
                .contains("report: 12,000 lines, ")
                .contains("2 measured runs (task CPU ")
                .contains("binary input (what-if")
                .contains("JIT warm-up: excluded: the job ran over the input's first 3,000 lines")
                .contains("to sustain 1,000,000 rows/s")
                .contains("SmartSSDs")
                .contains("CPU cores");

        JsonNode r = new ObjectMapper().readTree(dir.resolve(OutputLayout.REPORT).toFile());
        // the generator's bad lines (a rate of 0.001) are dead letters, not rows
        assertThat(r.get("report").get("lines").asLong()).isEqualTo(12_000);
        assertThat(r.get("report").get("rows").asLong()).isBetween(11_950L, 12_000L);
        // both runs measured, the reported one among them, each column's range around it
        JsonNode repeats = r.get("repeats");
        assertThat(repeats.get("runs").asInt()).isEqualTo(2);
        assertThat(repeats.get("task_cpu_seconds")).hasSize(2);
        for (int i = 0; i < r.get("columns").size(); i++) {
            double own = r.get("columns").get(i).get("fpga_speedup").asDouble();
            JsonNode range = repeats.get("columns").get(i);
            assertThat(own)
                    .isBetween(
                            range.get("fpga_speedup_min").asDouble(),
                            range.get("fpga_speedup_max").asDouble());
        }
        // the last line of reports.jsonl is report.json
        java.util.List<String> lines =
                Files.readAllLines(
                        dir.resolve(OutputLayout.REPORT_INTERVALS), StandardCharsets.UTF_8);
        assertThat(new ObjectMapper().readTree(lines.get(lines.size() - 1))).isEqualTo(r);
        JsonNode sizing = r.get("sizing");
        assertThat(sizing.get("target_rows_per_second").asDouble()).isEqualTo(1e6);
        for (String device : new String[] {"fpga", "smartssd", "cpu_cores"}) {
            JsonNode f = sizing.get(device);
            double perDevice = f.get("rows_per_second").asDouble();
            assertThat(perDevice).as(device).isPositive();
            assertThat(f.get("devices").asLong())
                    .as(device)
                    .isEqualTo((long) Math.ceil(1e6 / perDevice - 1e-9));
            assertThat(f.get("watts").asDouble()).as(device).isPositive();
            assertThat(f.get("energy_dollars_per_million_rows").asDouble()).isPositive();
        }
        // a price given is written off; one not given stays unknown
        assertThat(sizing.get("smartssd").get("capex_dollars_per_million_rows").asDouble())
                .isPositive();
        assertThat(sizing.get("fpga").get("capex_dollars_per_million_rows").isNull()).isTrue();
        assertThat(r.get("device").get("cpu_joules").asDouble()).isPositive();
        assertThat(r.get("job").get("jit_warmup").asText()).startsWith("excluded");
    }

    @Test
    void theWarmUpPrefixIsWholeLines() throws Exception {
        Path in = tmp.resolve("three.tsv");
        Files.writeString(in, "a\tb\nc\td\ne\tf", StandardCharsets.US_ASCII);
        Path out = tmp.resolve("prefix.tsv");
        assertThat(ReportCommand.copyLines(in, out, 2)).isEqualTo(2);
        assertThat(Files.readString(out)).isEqualTo("a\tb\nc\td\n");
        assertThat(ReportCommand.copyLines(in, out, 10)).isEqualTo(3);
        assertThat(Files.readString(out)).isEqualTo("a\tb\nc\td\ne\tf");
    }
}
