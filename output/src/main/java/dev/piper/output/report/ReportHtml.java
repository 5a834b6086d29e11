package dev.piper.output.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * Renders a cost report as one self-contained HTML page: the device-level figures, a bar chart of
 * each column's FPGA and SmartSSD speedup (inline SVG, logarithmic axis, the vocabulary tier beside
 * each categorical column) and the table of every figure. No script, style sheet or font is
 * fetched: the page opens offline.
 */
public final class ReportHtml {

    private static final int ROW = 16;
    private static final int LABEL = 150;
    private static final int PLOT = 560;
    private static final String FPGA_COLOR = "#1f77b4";
    private static final String SSD_COLOR = "#ff7f0e";

    private ReportHtml() {}

    /** The page of {@code report}, without an interval history. */
    public static String render(JsonNode report) {
        return render(report, java.util.List.of());
    }

    /**
     * The page of {@code report}, with the history of the interval reports before it (those of the
     * same pipeline and version: a chart and a table of each interval's figures with the spread of
     * its columns' speedups).
     */
    public static String render(JsonNode report, java.util.List<JsonNode> intervals) {
        StringBuilder h = new StringBuilder(64 * 1024);
        JsonNode defaults = report.get("defaults");
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<title>piper cost report: ")
                .append(esc(report.path("pipeline").asText()))
                .append("</title><style>")
                .append("body{font-family:sans-serif;margin:24px;color:#222}")
                .append("table{border-collapse:collapse;font-size:12px}")
                .append("td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}")
                .append("td:first-child,th:first-child{text-align:left}")
                .append(".k{color:#555;font-size:13px}</style></head><body>\n");
        h.append("<h1>Hardware cost report: ")
                .append(esc(report.path("pipeline").asText()))
                .append(" v")
                .append(report.path("pipeline_version").asInt())
                .append("</h1>\n");
        JsonNode rep = report.path("report");
        h.append("<p class=\"k\">")
                .append(String.format(Locale.ROOT, "%,d", rep.path("lines").asLong()))
                .append(" lines, ")
                .append(String.format(Locale.ROOT, "%,d", rep.path("rows").asLong()))
                .append(" rows, input ")
                .append(esc(report.path("input_format").asText()))
                .append("; speedup basis: ")
                .append(esc(defaults.path("speedup_basis").asText()))
                .append("</p>\n");
        device(h, report);
        repeats(h, report.path("repeats"));
        sizing(h, report.path("sizing"));
        history(h, report, intervals);
        h.append("<h2>Speedup per column (isolated, log scale)</h2>\n");
        chart(h, report.get("columns"));
        columns(h, report.get("columns"));
        h.append("</table>\n</body></html>\n");
        return h.toString();
    }

    /** The whole device's table and the models' bases. */
    private static void device(StringBuilder h, JsonNode report) {
        JsonNode device = report.get("device");
        JsonNode defaults = report.get("defaults");
        h.append("<h2>Whole device</h2>\n<table><tr><th></th><th>seconds</th><th>bound by</th>")
                .append("<th>speedup vs job CPU</th><th>rows/s</th><th>joules</th></tr>\n");
        deviceRow(h, "FPGA (PIPER)", device, "fpga");
        deviceRow(h, "SmartSSD (PreSto)", device, "smartssd");
        JsonNode binary = device.path("binary_input");
        if (!binary.isMissingNode()) {
            h.append("<tr><td>FPGA, binary input (what-if)</td><td>")
                    .append(num(binary.path("fpga_seconds").asDouble()))
                    .append("</td><td>")
                    .append(esc(binary.path("fpga_bound").asText()))
                    .append("</td><td></td><td></td><td></td></tr>\n")
                    .append("<tr><td>SmartSSD, binary input (what-if)</td><td>")
                    .append(num(binary.path("smartssd_seconds").asDouble()))
                    .append("</td><td>")
                    .append(esc(binary.path("smartssd_bound").asText()))
                    .append("</td><td></td><td></td><td></td></tr>\n");
        }
        h.append("<tr><td>CPU, as measured</td><td>")
                .append(num(device.path("cpu_core_seconds").asDouble()))
                .append(" core-s</td><td></td><td>1</td><td>")
                .append(num(report.path("job").path("rows_per_core_second").asDouble()))
                .append(" per core</td><td></td></tr></table>\n");
        h.append("<p class=\"k\">FPGA: ")
                .append(esc(defaults.path("fpga").asText()))
                .append(".<br>SmartSSD: ")
                .append(esc(defaults.path("smartssd").asText()))
                .append(".<br>")
                .append(esc(defaults.path("column_time").asText()))
                .append(".</p>\n");
        h.append("<p class=\"k\">JIT warm-up: ")
                .append(esc(report.path("job").path("jit_warmup").asText()))
                .append(".</p>\n");
    }

    /** The table of the columns, each with its work and its speedups. */
    private static void columns(StringBuilder h, JsonNode columns) {
        h.append("<h2>Columns</h2>\n<table><tr><th>column</th><th>ops</th><th>values</th>")
                .append("<th>input bytes</th><th>vocab entries</th><th>tier</th>")
                .append("<th>FPGA II gen/apply</th>")
                .append("<th>CPU core-s</th><th>of it task overhead</th>")
                .append("<th>FPGA s</th><th>FPGA bound</th><th>FPGA speedup</th>")
                .append("<th>SmartSSD s</th><th>SmartSSD bound</th><th>SmartSSD speedup</th>")
                .append("<th>FPGA speedup, binary</th><th>SmartSSD speedup, binary</th>")
                .append("<th>SmartSSD extrapolated</th></tr>\n");
        for (JsonNode c : columns) {
            h.append("<tr><td>")
                    .append(esc(c.path("column").asText()))
                    .append("</td><td>")
                    .append(esc(join(c.path("ops"))))
                    .append("</td><td>")
                    .append(String.format(Locale.ROOT, "%,d", c.path("values").asLong()))
                    .append("</td><td>")
                    .append(String.format(Locale.ROOT, "%,d", c.path("input_bytes").asLong()))
                    .append("</td><td>")
                    .append(
                            c.path("vocab_entries").isNull()
                                    ? ""
                                    : String.format(
                                            Locale.ROOT, "%,d", c.path("vocab_entries").asLong()))
                    .append("</td><td>")
                    .append(c.path("vocab_tier").isNull() ? "" : esc(c.path("vocab_tier").asText()))
                    .append("</td><td>")
                    .append(vocabIi(c.path("fpga_ii_cycles_per_beat")))
                    .append("</td><td>")
                    .append(num(c.path("cpu_core_seconds").asDouble()))
                    .append("</td><td>")
                    .append(num(c.path("cpu_breakdown").path("task_overhead").asDouble()))
                    .append("</td><td>")
                    .append(num(c.path("fpga_seconds").asDouble()))
                    .append("</td><td>")
                    .append(esc(c.path("fpga_bound").asText()))
                    .append("</td><td>")
                    .append(num(c.path("fpga_speedup").asDouble()))
                    .append("</td><td>")
                    .append(num(c.path("smartssd_seconds").asDouble()))
                    .append("</td><td>")
                    .append(esc(c.path("smartssd_bound").asText()))
                    .append("</td><td>")
                    .append(num(c.path("smartssd_speedup").asDouble()))
                    .append("</td><td>")
                    .append(num(c.path("binary_input").path("fpga_speedup").asDouble()))
                    .append("</td><td>")
                    .append(num(c.path("binary_input").path("smartssd_speedup").asDouble()))
                    .append("</td><td>")
                    .append(esc(join(c.path("smartssd_extrapolated_ops"))))
                    .append("</td></tr>\n");
        }
    }

    /** What repeated runs measured: each run's CPU time, each column's speedups' range. */
    private static void repeats(StringBuilder h, JsonNode repeats) {
        if (repeats.isMissingNode()) {
            return;
        }
        StringBuilder cpu = new StringBuilder();
        for (JsonNode v : repeats.path("task_cpu_seconds")) {
            cpu.append(cpu.length() == 0 ? "" : ", ").append(num(v.asDouble()));
        }
        JsonNode widest = repeats.path("widest");
        h.append("<p class=\"k\">")
                .append(repeats.path("runs").asInt())
                .append(" measured runs, task CPU ")
                .append(cpu)
                .append(" s; ")
                .append(esc(repeats.path("basis").asText()))
                .append(
                        String.format(
                                Locale.ROOT,
                                "; the widest range of a column's FPGA speedup across runs: %.0f%% (%s)",
                                100 * widest.path("fpga_speedup_spread").asDouble(),
                                esc(widest.path("column").asText())))
                .append(".</p>\n");
    }

    /** The fleets that sustain the report's target, if it has one. */
    private static void sizing(StringBuilder h, JsonNode sizing) {
        if (sizing.isMissingNode()) {
            return;
        }
        h.append("<h2>Fleet for ")
                .append(
                        String.format(
                                Locale.ROOT,
                                "%,.0f",
                                sizing.path("target_rows_per_second").asDouble()))
                .append(" rows/s</h2>\n<p class=\"k\">")
                .append(esc(sizing.path("basis").asText()))
                .append(".</p>\n<table><tr><th></th><th>rows/s each</th><th>devices</th>")
                .append("<th>watts</th><th>J per million rows</th>")
                .append("<th>energy $ per million rows</th><th>device $ per million rows</th>")
                .append("</tr>\n");
        String[][] kinds = {
            {"fpga", "FPGAs"}, {"smartssd", "SmartSSDs"}, {"cpu_cores", "CPU cores"}
        };
        for (String[] k : kinds) {
            JsonNode f = sizing.path(k[0]);
            h.append("<tr><td>")
                    .append(k[1])
                    .append("</td><td>")
                    .append(num(f.path("rows_per_second").asDouble()))
                    .append("</td><td>")
                    .append(known(f.path("devices")))
                    .append("</td><td>")
                    .append(known(f.path("watts")))
                    .append("</td><td>")
                    .append(known(f.path("joules_per_million_rows")))
                    .append("</td><td>")
                    .append(known(f.path("energy_dollars_per_million_rows")))
                    .append("</td><td>")
                    .append(known(f.path("capex_dollars_per_million_rows")))
                    .append("</td></tr>\n");
        }
        h.append("</table>\n");
    }

    private static String known(JsonNode v) {
        return v.isMissingNode() || v.isNull() ? "unknown" : num(v.asDouble());
    }

    /**
     * Each interval's device speedups and the 10th, 50th and 90th percentile of its columns' FPGA
     * speedups: a chart (inline SVG) and a table, for the intervals of the report's pipeline and
     * version.
     */
    private static void history(StringBuilder h, JsonNode report, java.util.List<JsonNode> all) {
        java.util.List<JsonNode> intervals = new java.util.ArrayList<>();
        for (JsonNode i : all) {
            if (i.path("pipeline").asText().equals(report.path("pipeline").asText())
                    && i.path("pipeline_version").asInt() == report.path("pipeline_version").asInt()
                    && !i.path("report").path("final").asBoolean()) {
                intervals.add(i);
            }
        }
        if (intervals.size() < 2) {
            return;
        }
        double[][] series = series(intervals);
        intervalChart(h, series);
        intervalTable(h, intervals, series);
    }

    /**
     * Per interval: the device's FPGA and SmartSSD speedups and the 10th, 50th and 90th percentile
     * of its columns' FPGA speedups, in that order.
     */
    private static double[][] series(java.util.List<JsonNode> intervals) {
        int n = intervals.size();
        double[][] series = new double[5][n]; // device FPGA, device SmartSSD, p10, p50, p90
        for (int k = 0; k < n; k++) {
            JsonNode i = intervals.get(k);
            series[0][k] = i.path("device").path("fpga_speedup").asDouble();
            series[1][k] = i.path("device").path("smartssd_speedup").asDouble();
            double[] cols = new double[i.path("columns").size()];
            int m = 0;
            for (JsonNode c : i.path("columns")) {
                double v = c.path("fpga_speedup").asDouble();
                if (v > 0) {
                    cols[m++] = v;
                }
            }
            double[] sorted = java.util.Arrays.copyOf(cols, m);
            java.util.Arrays.sort(sorted);
            series[2][k] = quantile(sorted, 0.1);
            series[3][k] = quantile(sorted, 0.5);
            series[4][k] = quantile(sorted, 0.9);
        }
        return series;
    }

    /** The intervals' speedups as an inline SVG chart. */
    private static void intervalChart(StringBuilder h, double[][] series) {
        int n = series[0].length;
        double max = 0;
        for (double[] s : series) {
            for (double v : s) {
                max = Math.max(max, v);
            }
        }
        max = max > 0 ? max * 1.1 : 1;
        int width = 640;
        int height = 200;
        int left = 40;
        h.append("<h2>Intervals</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(width + left + 10)
                .append("\" height=\"")
                .append(height + 30)
                .append("\" role=\"img\" aria-label=\"speedups per interval\">\n");
        double step = n > 1 ? width / (double) (n - 1) : 0;
        // the band of the columns' FPGA speedups, 10th to 90th percentile
        StringBuilder band = new StringBuilder();
        for (int k = 0; k < n; k++) {
            band.append(k == 0 ? "M" : "L")
                    .append(num(left + k * step))
                    .append(' ')
                    .append(num(height - series[4][k] / max * height));
        }
        for (int k = n - 1; k >= 0; k--) {
            band.append("L")
                    .append(num(left + k * step))
                    .append(' ')
                    .append(num(height - series[2][k] / max * height));
        }
        h.append("<path d=\"").append(band).append("Z\" fill=\"#1f77b422\"/>\n");
        String[] colors = {FPGA_COLOR, SSD_COLOR, "", "#1f77b4aa", ""};
        for (int s = 0; s < 4; s++) {
            if (colors[s].isEmpty()) {
                continue;
            }
            StringBuilder line = new StringBuilder();
            for (int k = 0; k < n; k++) {
                line.append(k == 0 ? "" : " ")
                        .append(num(left + k * step))
                        .append(',')
                        .append(num(height - series[s][k] / max * height));
            }
            h.append("<polyline fill=\"none\" stroke=\"")
                    .append(colors[s])
                    .append(s == 3 ? "\" stroke-dasharray=\"4 3" : "")
                    .append("\" stroke-width=\"2\" points=\"")
                    .append(line)
                    .append("\"/>\n");
        }
        h.append("<line x1=\"")
                .append(left)
                .append("\" y1=\"")
                .append(height)
                .append("\" x2=\"")
                .append(left + width)
                .append("\" y2=\"")
                .append(height)
                .append("\" stroke=\"#888\"/>\n<text x=\"2\" y=\"12\" font-size=\"11\">")
                .append(num(max))
                .append("x</text><text x=\"2\" y=\"")
                .append(height)
                .append("\" font-size=\"11\">0</text><text x=\"")
                .append(left)
                .append("\" y=\"")
                .append(height + 20)
                .append("\" font-size=\"11\">interval 0 to ")
                .append(n - 1)
                .append(": FPGA (blue) and SmartSSD (orange) device speedup; columns' FPGA")
                .append(" speedup, median (dashed) and 10th to 90th percentile (band)</text>\n")
                .append("</svg>\n");
    }

    /** The intervals' speedups as a table. */
    private static void intervalTable(
            StringBuilder h, java.util.List<JsonNode> intervals, double[][] series) {
        int n = intervals.size();
        h.append("<table><tr><th>interval</th><th>lines</th><th>task CPU s</th>")
                .append("<th>FPGA speedup</th><th>SmartSSD speedup</th>")
                .append("<th>columns' FPGA speedup p10</th><th>median</th><th>p90</th></tr>\n");
        for (int k = 0; k < n; k++) {
            JsonNode i = intervals.get(k);
            h.append("<tr><td>")
                    .append(i.path("report").path("index").asInt())
                    .append("</td><td>")
                    .append(
                            String.format(
                                    Locale.ROOT, "%,d", i.path("report").path("lines").asLong()))
                    .append("</td><td>")
                    .append(num(i.path("job").path("task_cpu_seconds").asDouble()));
            for (int s = 0; s < 5; s++) {
                h.append("</td><td>").append(num(series[s][k]));
            }
            h.append("</td></tr>\n");
        }
        h.append("</table>\n");
    }

    /** The {@code q}-quantile of {@code sorted}, interpolated (0 if empty). */
    private static double quantile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = (int) Math.ceil(pos);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
    }

    private static void deviceRow(StringBuilder h, String name, JsonNode device, String key) {
        h.append("<tr><td>")
                .append(name)
                .append("</td><td>")
                .append(num(device.path(key + "_seconds").asDouble()))
                .append("</td><td>")
                .append(esc(device.path(key + "_bound").asText()))
                .append("</td><td>")
                .append(num(device.path(key + "_speedup").asDouble()))
                .append("</td><td>")
                .append(num(device.path(key + "_rows_per_second").asDouble()))
                .append("</td><td>")
                .append(num(device.path(key + "_joules").asDouble()))
                .append("</td></tr>\n");
    }

    /** Horizontal bars, two per column, on a log10 axis from the decade below the smallest. */
    private static void chart(StringBuilder h, JsonNode columns) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (JsonNode c : columns) {
            for (String k : new String[] {"fpga_speedup", "smartssd_speedup"}) {
                double v = c.path(k).asDouble();
                if (v > 0) {
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
            }
        }
        if (max == 0) {
            h.append("<p>No column did any work in this report.</p>\n");
            return;
        }
        double lo = Math.floor(Math.log10(min));
        double hi = Math.max(lo + 1, Math.ceil(Math.log10(max)));
        int n = columns.size();
        int height = n * (2 * ROW + 4) + 40;
        int width = LABEL + PLOT + 120;
        h.append(
                        String.format(
                                Locale.ROOT,
                                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
                                        + " height=\"%d\" font-family=\"sans-serif\""
                                        + " font-size=\"11\" role=\"img\">\n",
                                width,
                                height))
                .append("<title>FPGA and SmartSSD speedup per column</title>\n");
        for (double d = lo; d <= hi; d++) {
            double x = LABEL + (d - lo) / (hi - lo) * PLOT;
            h.append(
                    String.format(
                            Locale.ROOT,
                            "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                                    + "<text x=\"%.1f\" y=\"14\" text-anchor=\"middle\">%s×</text>\n",
                            x,
                            x,
                            height - 20,
                            x,
                            tick(d)));
        }
        int y = 24;
        for (JsonNode c : columns) {
            h.append(
                    String.format(
                            Locale.ROOT,
                            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
                            LABEL - 6,
                            y + ROW + 2,
                            esc(c.path("column").asText())));
            bar(h, c.path("fpga_speedup").asDouble(), lo, hi, y, FPGA_COLOR);
            bar(h, c.path("smartssd_speedup").asDouble(), lo, hi, y + ROW, SSD_COLOR);
            if (!c.path("vocab_tier").isNull()) {
                h.append(
                        String.format(
                                Locale.ROOT,
                                "<text x=\"%d\" y=\"%d\" fill=\"#555\">%s</text>\n",
                                LABEL + PLOT + 60,
                                y + ROW + 2,
                                esc(c.path("vocab_tier").asText())));
            }
            y += 2 * ROW + 4;
        }
        chartLegend(h, height);
        h.append("</svg>\n");
    }

    /** The chart's legend: one swatch per device, along its bottom. */
    private static void chartLegend(StringBuilder h, int height) {
        h.append(
                String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                                + "<text x=\"%d\" y=\"%d\">FPGA (PIPER)</text>"
                                + "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                                + "<text x=\"%d\" y=\"%d\">SmartSSD (PreSto)</text>\n",
                        LABEL,
                        height - 14,
                        FPGA_COLOR,
                        LABEL + 14,
                        height - 5,
                        LABEL + 120,
                        height - 14,
                        SSD_COLOR,
                        LABEL + 134,
                        height - 5));
    }

    private static void bar(StringBuilder h, double v, double lo, double hi, int y, String color) {
        double w = v > 0 ? Math.max(1, (Math.log10(v) - lo) / (hi - lo) * PLOT) : 0;
        h.append(
                String.format(
                        Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                                + "<title>%s×</title></rect>"
                                + "<text x=\"%.1f\" y=\"%d\">%s</text>\n",
                        LABEL,
                        y + 2,
                        w,
                        ROW - 3,
                        color,
                        num(v),
                        LABEL + w + 4,
                        y + ROW - 3,
                        num(v)));
    }

    private static String tick(double decade) {
        double v = Math.pow(10, decade);
        return v >= 1
                ? String.format(Locale.ROOT, "%,.0f", v)
                : String.format(Locale.ROOT, "%s", v);
    }

    /** The vocabulary operators' initiation intervals, e.g. {@code 2 / 1}, or empty. */
    private static String vocabIi(JsonNode ii) {
        if (!ii.has("genvocab")) {
            return "";
        }
        return num(ii.get("genvocab").asDouble()) + " / " + num(ii.get("applyvocab").asDouble());
    }

    private static String join(JsonNode array) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode op : array) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(op.asText());
        }
        return sb.toString();
    }

    /** Three significant digits, grouped thousands above 1000. */
    static String num(double v) {
        if (v == 0) {
            return "0";
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    static String esc(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}
