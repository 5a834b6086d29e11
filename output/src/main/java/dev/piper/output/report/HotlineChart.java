package dev.piper.output.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A self-contained SVG of a Hotline study ({@code piper hotline}, {@code docs/HOTLINE.md}), drawn
 * as the paper does: the popular share of rows against the hot set's budget (Hotline's Fig. 6/27),
 * online and for the static oracle; and per window, how the online share follows drifting
 * popularity against the oracle's. No scripts, fonts or network.
 */
public final class HotlineChart {

    /** A line: its name, colour, whether dashed, and its points. */
    public record Series(String name, String colour, boolean dashed, double[] x, double[] y) {}

    private static final int WIDTH = 820;
    private static final int PANEL_W = 340;
    private static final int HEIGHT = 380;
    private static final int TOP = 60;
    private static final int PLOT_H = 220;

    private HotlineChart() {}

    /**
     * Writes the two panels to {@code file}.
     *
     * @param byBudget lines over the budget (x: bytes, drawn on a log scale)
     * @param byWindow lines over the window number
     */
    public static void write(String title, List<Series> byBudget, List<Series> byWindow, Path file)
            throws IOException {
        StringBuilder svg = new StringBuilder();
        svg.append(
                String.format(
                        Locale.ROOT,
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\""
                                + " font-size=\"12\">%n",
                        WIDTH,
                        HEIGHT,
                        WIDTH,
                        HEIGHT));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(
                String.format(
                        Locale.ROOT,
                        "<text x=\"60\" y=\"24\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                        escape(title)));
        panel(svg, 60, "popular rows vs budget (log scale)", byBudget, true);
        panel(svg, 60 + PANEL_W + 80, "popular rows per window", byWindow, false);
        svg.append("</svg>\n");
        Files.writeString(file, svg, StandardCharsets.UTF_8);
    }

    private static void panel(
            StringBuilder svg, int left, String caption, List<Series> lines, boolean logX) {
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        for (Series s : lines) {
            for (double x : s.x()) {
                double v = logX ? Math.log10(x) : x;
                minX = Math.min(minX, v);
                maxX = Math.max(maxX, v);
            }
        }
        if (minX == maxX) {
            maxX = minX + 1;
        }
        svg.append(
                String.format(
                        Locale.ROOT,
                        "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
                        left,
                        TOP - 12,
                        escape(caption)));
        for (int i = 0; i <= 4; i++) {
            double y = TOP + PLOT_H - PLOT_H * i / 4.0;
            svg.append(
                    String.format(
                            Locale.ROOT,
                            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>%n",
                            left,
                            y,
                            left + PANEL_W,
                            y,
                            left - 6,
                            y + 4,
                            i * 25));
        }
        xTicks(svg, left, lines, logX, minX, maxX);
        int legend = 0;
        for (Series s : lines) {
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < s.x().length; i++) {
                double v = logX ? Math.log10(s.x()[i]) : s.x()[i];
                points.append(
                        String.format(
                                Locale.ROOT,
                                "%.1f,%.1f ",
                                left + PANEL_W * (v - minX) / (maxX - minX),
                                TOP + PLOT_H - PLOT_H * Math.max(0, Math.min(1, s.y()[i]))));
            }
            svg.append(
                    String.format(
                            Locale.ROOT,
                            "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s"
                                    + " points=\"%s\"/>%n",
                            s.colour(),
                            s.dashed() ? " stroke-dasharray=\"6 4\"" : "",
                            points.toString().strip()));
            int y = TOP + PLOT_H + 40 + legend * 18;
            svg.append(
                    String.format(
                            Locale.ROOT,
                            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\""
                                    + " stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\">%s</text>%n",
                            left,
                            y - 4,
                            left + 24,
                            y - 4,
                            s.colour(),
                            s.dashed() ? " stroke-dasharray=\"6 4\"" : "",
                            left + 30,
                            y,
                            escape(s.name())));
            legend++;
        }
    }

    /** The x axis's labels: each of the first series' x, at most about 12 on a linear axis. */
    private static void xTicks(
            StringBuilder svg,
            int left,
            List<Series> lines,
            boolean logX,
            double minX,
            double maxX) {
        if (!lines.isEmpty()) {
            double[] xs = lines.get(0).x();
            for (int i = 0; i < xs.length; i++) {
                if (!logX && xs.length > 12 && i % Math.ceil(xs.length / 12.0) != 0) {
                    continue;
                }
                double v = logX ? Math.log10(xs[i]) : xs[i];
                svg.append(
                        String.format(
                                Locale.ROOT,
                                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                                left + PANEL_W * (v - minX) / (maxX - minX),
                                TOP + PLOT_H + 16,
                                logX ? bytes(xs[i]) : String.valueOf((long) xs[i])));
            }
        }
    }

    /** Bytes with a binary unit: 64 KiB, 1 MiB. */
    public static String bytes(double b) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        while (b >= 1024 && u < units.length - 1) {
            b /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, b == Math.rint(b) ? "%.0f %s" : "%.1f %s", b, units[u]);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
