package dev.piper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.connectors.report.ReportFiles;
import dev.piper.hwmodel.Sizing;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;

/** The cost report of an output directory as text: a summary line, or the table with sizing. */
final class ReportTable {

    private ReportTable() {}

    static JsonNode read(Path output) throws IOException {
        return new ObjectMapper().readTree(output.resolve(ReportFiles.REPORT).toFile());
    }

    /** One line: the device speedups and where the report is. */
    static String summary(Path output, double taskCpuSeconds) throws IOException {
        JsonNode r = read(output);
        JsonNode d = r.get("device");
        JsonNode job = r.get("job");
        return String.format(
                Locale.ROOT,
                "report: columns account for %.2f of %.2f task CPU s (tasks measured from start"
                        + " to end: %.2f s); FPGA %.3f s (%s-bound, %.1fx), SmartSSD %.3f s"
                        + " (%s-bound, %.1fx) vs one core -> %s",
                job.get("column_cpu_seconds").asDouble(),
                job.get("task_cpu_seconds").asDouble(),
                taskCpuSeconds,
                d.get("fpga_seconds").asDouble(),
                d.get("fpga_bound").asText(),
                d.get("fpga_speedup").asDouble(),
                d.get("smartssd_seconds").asDouble(),
                d.get("smartssd_bound").asText(),
                d.get("smartssd_speedup").asDouble(),
                output.resolve(ReportFiles.HTML));
    }

    /**
     * The per-column table, the device line and, for a target throughput, how many devices (or
     * cores) sustain it; with the CPU's power, energy per million rows.
     *
     * @param targetRowsPerSecond 0 for no sizing
     * @param cpuWatts the measuring CPU's power for the cores the job used, 0 if not given
     */
    static void print(JsonNode r, double targetRowsPerSecond, double cpuWatts, PrintWriter out) {
        out.printf(
                Locale.ROOT,
                "%-4s %-7s %-44s %12s %9s %-7s %10s %10s %9s %10s %9s%n",
                "col",
                "kind",
                "ops",
                "input bytes",
                "vocab",
                "tier",
                "cpu core-s",
                "fpga s",
                "fpga x",
                "ssd s",
                "ssd x");
        for (JsonNode c : r.get("columns")) {
            StringBuilder ops = new StringBuilder();
            for (JsonNode op : c.get("ops")) {
                ops.append(ops.isEmpty() ? "" : ",").append(op.asText());
            }
            out.printf(
                    Locale.ROOT,
                    "%-4s %-7s %-44s %,12d %9s %-7s %10.4f %10.2e %9.1f %10.2e %9.1f%n",
                    c.get("column").asText(),
                    c.get("kind").asText(),
                    ops,
                    c.get("input_bytes").asLong(),
                    c.get("vocab_entries").isNull() ? "-" : c.get("vocab_entries").asText(),
                    c.get("vocab_tier").isNull() ? "-" : c.get("vocab_tier").asText(),
                    c.get("cpu_core_seconds").asDouble(),
                    c.get("fpga_seconds").asDouble(),
                    c.get("fpga_speedup").asDouble(),
                    c.get("smartssd_seconds").asDouble(),
                    c.get("smartssd_speedup").asDouble());
        }
        JsonNode d = r.get("device");
        JsonNode job = r.get("job");
        long rows = r.get("report").get("rows").asLong();
        double cpu = d.get("cpu_core_seconds").asDouble();
        out.printf(
                Locale.ROOT,
                "%ndevice (all columns): CPU %.2f core-s (%,.0f rows/s per core); FPGA %.4f s,"
                        + " bound by %s (%.1fx, %,.0f rows/s); SmartSSD %.4f s, bound by %s (%.1fx,"
                        + " %,.0f rows/s)%n",
                cpu,
                job.get("rows_per_core_second").asDouble(),
                d.get("fpga_seconds").asDouble(),
                d.get("fpga_bound").asText(),
                d.get("fpga_speedup").asDouble(),
                d.get("fpga_rows_per_second").asDouble(),
                d.get("smartssd_seconds").asDouble(),
                d.get("smartssd_bound").asText(),
                d.get("smartssd_speedup").asDouble(),
                d.get("smartssd_rows_per_second").asDouble());
        JsonNode defaults = r.get("defaults");
        out.printf(
                Locale.ROOT,
                "basis: %s%nFPGA: %s%nSmartSSD: %s%n",
                defaults.get("speedup_basis").asText(),
                defaults.get("fpga").asText(),
                defaults.get("smartssd").asText());
        if (cpuWatts > 0 && rows > 0) {
            double cores = Runtime.getRuntime().availableProcessors();
            double cpuJoules = Sizing.joules(cpuWatts / cores, cpu);
            out.printf(
                    Locale.ROOT,
                    "energy per million rows: CPU %.1f J (%.0f W over %.0f cores, pro-rated to"
                            + " core-seconds), FPGA %.1f J (%.0f W), SmartSSD %.1f J (%.0f W, TDP)%n",
                    cpuJoules / rows * 1e6,
                    cpuWatts,
                    cores,
                    d.get("fpga_joules").asDouble() / rows * 1e6,
                    defaults.get("fpga_watts").asDouble(),
                    d.get("smartssd_joules").asDouble() / rows * 1e6,
                    defaults.get("smartssd_watts").asDouble());
        }
        if (targetRowsPerSecond > 0) {
            double perCore = job.get("rows_per_core_second").asDouble();
            out.printf(
                    Locale.ROOT,
                    "to sustain %,.0f rows/s: %d CPU cores of this machine (at the measured rows per"
                            + " core-second, assuming linear scaling, which COMBINING.md pitfall 2"
                            + " warns is optimistic), %d FPGAs, %d SmartSSDs (ceil(T / P))%n",
                    targetRowsPerSecond,
                    perCore > 0 ? Sizing.devices(targetRowsPerSecond, perCore) : 0,
                    devices(targetRowsPerSecond, d.get("fpga_rows_per_second").asDouble()),
                    devices(targetRowsPerSecond, d.get("smartssd_rows_per_second").asDouble()));
        }
    }

    private static long devices(double target, double perDevice) {
        return perDevice > 0 ? Sizing.devices(target, perDevice) : 0;
    }
}
