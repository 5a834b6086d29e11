package dev.piper.benchmarks.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A self-contained SVG bar chart of bench results: one group of bars per vocabulary regime, one bar
 * per stage (single-thread decode, single-thread fused work, the job at each parallelism), marginal
 * rows/s on the vertical axis. No scripts, fonts or network.
 */
public final class BenchChart {

    private static final String[] COLOURS = {
        "#9e9e9e", "#616161", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"
    };
    private static final int WIDTH = 760;
    private static final int HEIGHT = 420;
    private static final int LEFT = 90;
    private static final int RIGHT = 20;
    private static final int TOP = 50;
    private static final int BOTTOM = 110;

    private BenchChart() {}

    /**
     * A bar's label: the stage, with the parallelism for job runs and the threaded Parquet read.
     */
    static String series(Bench.Result r) {
        boolean parallel =
                r.stage().startsWith("Flink job") || r.stage().startsWith("Parquet read");
        return parallel ? r.stage() + ", p = " + r.parallelism() : r.stage();
    }

    public static void write(List<Bench.Result> results, String title, Path file)
            throws IOException {
        Map<String, Map<String, Double>> byRegime = new LinkedHashMap<>();
        List<String> seriesNames = new ArrayList<>();
        double max = 0;
        for (Bench.Result r : results) {
            String s = series(r);
            if (!seriesNames.contains(s)) {
                seriesNames.add(s);
            }
            double v = Double.isNaN(r.rowsPerSecond()) ? 0 : r.rowsPerSecond();
            byRegime.computeIfAbsent(
                            r.regime() + " (scale " + BenchResults.plain(r.scale()) + ")",
                            k -> new LinkedHashMap<>())
                    .put(s, v);
            max = Math.max(max, v);
        }
        double top = niceCeiling(max);
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append(
                String.format(
                        Locale.ROOT,
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
                        WIDTH,
                        HEIGHT,
                        WIDTH,
                        HEIGHT));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(
                String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                        LEFT,
                        escape(title)));
        axis(svg, top, plotW, plotH);
        int groups = byRegime.size();
        double groupW = (double) plotW / Math.max(1, groups);
        double barW = groupW * 0.8 / Math.max(1, seriesNames.size());
        int g = 0;
        for (Map.Entry<String, Map<String, Double>> e : byRegime.entrySet()) {
            double x0 = LEFT + g * groupW + groupW * 0.1;
            for (int s = 0; s < seriesNames.size(); s++) {
                Double v = e.getValue().get(seriesNames.get(s));
                if (v == null) {
                    continue;
                }
                double h = plotH * (v / top);
                svg.append(
                        String.format(
                                Locale.ROOT,
                                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s: %,.0f rows/s</title></rect>%n",
                                x0 + s * barW,
                                TOP + plotH - h,
                                barW - 2,
                                h,
                                COLOURS[s % COLOURS.length],
                                escape(seriesNames.get(s)),
                                v));
            }
            svg.append(
                    String.format(
                            Locale.ROOT,
                            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                            LEFT + g * groupW + groupW / 2,
                            TOP + plotH + 18,
                            escape(e.getKey())));
            g++;
        }
        legend(svg, seriesNames);
        svg.append("</svg>\n");
        Files.writeString(file, svg, StandardCharsets.UTF_8);
    }

    /** The value axis: five grid lines up to {@code top}, and its label. */
    private static void axis(StringBuilder svg, double top, int plotW, int plotH) {
        for (int i = 0; i <= 5; i++) {
            double v = top * i / 5;
            double y = TOP + plotH - plotH * (v / top);
            svg.append(
                    String.format(
                            Locale.ROOT,
                            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>%n",
                            LEFT,
                            y,
                            LEFT + plotW,
                            y));
            svg.append(
                    String.format(
                            Locale.ROOT,
                            "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                            LEFT - 6,
                            y + 4,
                            String.format(Locale.ROOT, "%,.0f", v)));
        }
        svg.append(
                String.format(
                        Locale.ROOT,
                        "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">rows/s (marginal)</text>%n",
                        TOP + plotH / 2,
                        TOP + plotH / 2));
    }

    /** One swatch and name per series, two to a line. */
    private static void legend(StringBuilder svg, List<String> seriesNames) {
        for (int s = 0; s < seriesNames.size(); s++) {
            int x = LEFT + (s % 2) * 320;
            int y = HEIGHT - BOTTOM + 45 + (s / 2) * 20;
            svg.append(
                    String.format(
                            Locale.ROOT,
                            "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
                            x,
                            y - 10,
                            COLOURS[s % COLOURS.length],
                            x + 18,
                            y,
                            escape(seriesNames.get(s))));
        }
    }

    /** The smallest of 1, 2 or 5 times a power of ten at or above {@code v}. */
    static double niceCeiling(double v) {
        if (v <= 0) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
