package dev.piper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.output.OutputLayout;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;

/** The cost report of an output directory as text: a summary line, or the table with sizing. */
final class ReportTable {

    private ReportTable() {}

    static JsonNode read(Path output) throws IOException {
        return new ObjectMapper().readTree(output.resolve(OutputLayout.REPORT).toFile());
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
                output.resolve(OutputLayout.REPORT_HTML));
    }

    /**
     * The per-column table, the device lines (text and the binary what-if), energy per million rows
     * and, if the report sized a fleet, how many devices (or cores) sustain its target.
     */
    static void print(JsonNode r, PrintWriter out) {
        out.printf(
                Locale.ROOT,
                "%-5s %-9s %-44s %12s %9s %-7s %10s %10s %9s %10s %9s%n",
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
                    "%-5s %-9s %-44s %,12d %9s %-7s %10.4f %10.2e %9.1f %10.2e %9.1f%n",
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
        device(r, out);
        JsonNode d = r.get("device");
        JsonNode defaults = r.get("defaults");
        long rows = r.get("report").get("rows").asLong();
        repeats(r, out);
        if (rows > 0) {
            JsonNode cpuJoules = d.get("cpu_joules");
            out.printf(
                    Locale.ROOT,
                    "energy per million rows: CPU %s, FPGA %.1f J (%.0f W), SmartSSD %.1f J"
                            + " (%.0f W, TDP)%n",
                    cpuJoules == null || cpuJoules.isNull()
                            ? "unknown (--cpu-watts)"
                            : String.format(
                                    Locale.ROOT,
                                    "%.1f J (pro-rated to core-seconds)",
                                    cpuJoules.asDouble() / rows * 1e6),
                    d.get("fpga_joules").asDouble() / rows * 1e6,
                    d.get("fpga_watts").asDouble(),
                    d.get("smartssd_joules").asDouble() / rows * 1e6,
                    defaults.get("smartssd_watts").asDouble());
        }
        JsonNode sizing = r.get("sizing");
        if (sizing != null) {
            out.printf(
                    Locale.ROOT,
                    "to sustain %,.0f rows/s, N = ceil(T / P), at $%s/kWh over %s years:%n",
                    sizing.get("target_rows_per_second").asDouble(),
                    sizing.get("dollars_per_kwh").asText(),
                    sizing.get("years").asText());
            fleet(out, "FPGAs", sizing.get("fpga"));
            fleet(out, "SmartSSDs", sizing.get("smartssd"));
            fleet(out, "CPU cores", sizing.get("cpu_cores"));
            out.printf(
                    Locale.ROOT, "  (cores: %s)%n", sizing.get("cpu_cores").get("note").asText());
        }
    }

    /** The device lines: every column together on CPU, FPGA and SmartSSD, and their bases. */
    private static void device(JsonNode r, PrintWriter out) {
        JsonNode d = r.get("device");
        JsonNode job = r.get("job");
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
        JsonNode binary = d.get("binary_input");
        out.printf(
                Locale.ROOT,
                "binary input (what-if: values as int32, nothing to parse): FPGA %.4f s, bound by"
                        + " %s; SmartSSD %.4f s, bound by %s%n",
                binary.get("fpga_seconds").asDouble(),
                binary.get("fpga_bound").asText(),
                binary.get("smartssd_seconds").asDouble(),
                binary.get("smartssd_bound").asText());
        out.printf(Locale.ROOT, "JIT warm-up: %s%n", job.get("jit_warmup").asText());
    }

    /** With several measured runs, how much they varied. */
    private static void repeats(JsonNode r, PrintWriter out) {
        JsonNode repeats = r.get("repeats");
        if (repeats != null) {
            StringBuilder cpus = new StringBuilder();
            for (JsonNode v : repeats.get("task_cpu_seconds")) {
                cpus.append(cpus.length() == 0 ? "" : ", ")
                        .append(String.format(Locale.ROOT, "%.2f", v.asDouble()));
            }
            JsonNode widest = repeats.get("widest");
            out.printf(
                    Locale.ROOT,
                    "%d measured runs (task CPU %s s): the table is the median run's; a column's"
                            + " FPGA speedup varied by at most %.0f%% across them (%s)%n",
                    repeats.get("runs").asInt(),
                    cpus,
                    100 * widest.get("fpga_speedup_spread").asDouble(),
                    widest.get("column").asText());
        }
    }

    private static void fleet(PrintWriter out, String what, JsonNode f) {
        if (f.get("devices").isNull()) {
            out.printf(Locale.ROOT, "  %-10s none: no throughput measured%n", what);
            return;
        }
        out.printf(
                Locale.ROOT,
                "  %-10s %,6d at %,.0f rows/s each; %s; energy %s per million rows; devices %s"
                        + " per million rows%n",
                what,
                f.get("devices").asLong(),
                f.get("rows_per_second").asDouble(),
                f.get("watts").isNull()
                        ? "power unknown"
                        : String.format(Locale.ROOT, "%,.0f W", f.get("watts").asDouble()),
                dollars(f.get("energy_dollars_per_million_rows")),
                dollars(f.get("capex_dollars_per_million_rows")));
    }

    private static String dollars(JsonNode v) {
        return v == null || v.isNull()
                ? "unknown"
                : String.format(Locale.ROOT, "$%.3g", v.asDouble());
    }
}
