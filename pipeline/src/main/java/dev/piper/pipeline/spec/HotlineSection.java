package dev.piper.pipeline.spec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.piper.pipeline.hotline.HotlineSettings;
import java.util.Set;

/** The {@code hotline} section of a spec, read with its problems reported to the spec's. */
final class HotlineSection {

    static final Set<String> HOTLINE =
            Set.of(
                    "budget",
                    "dim",
                    "window",
                    "sample",
                    "sample_rows",
                    "tracker",
                    "tracker_entries",
                    "decay");

    private HotlineSection() {}

    /**
     * The {@code hotline} section: {@code budget} (bytes, a number or a string with a binary unit,
     * {@code "512m"}) required, every other setting optional with its default; {@code window} rows
     * or a span of event time ({@link Spans}), the latter only for an input with {@code
     * input.timestamp} ({@code timed}).
     */
    static HotlineSettings read(SpecParser spec, JsonNode node, boolean timed) {
        if (node == null) {
            return null;
        }
        if (!node.isObject()) {
            spec.problem("hotline", "must be an object");
            return null;
        }
        spec.unknownFields(node, HOTLINE, "hotline");
        int before = spec.problemCount();
        long budget = -1;
        JsonNode b = node.get("budget");
        if (b == null) {
            spec.problem(
                    "hotline.budget", "missing (bytes of GPU memory for popular embedding rows)");
        } else if (b.isIntegralNumber() && b.canConvertToLong() && b.longValue() > 0) {
            budget = b.longValue();
        } else {
            String notASize =
                    "must be a positive number of bytes or a size such as \"512m\", not " + b;
            try {
                if (b.isTextual()) {
                    budget = Sizes.bytes(b.asText());
                } else {
                    spec.problem("hotline.budget", notASize);
                }
            } catch (Sizes.TooLarge e) {
                spec.problem("hotline.budget", b + " is too large");
            } catch (IllegalArgumentException e) {
                spec.problem("hotline.budget", notASize);
            }
        }
        int dim = hotlineInt(spec, node, "dim", HotlineSettings.DEFAULT_DIM);
        Spans.Span window = window(spec, node, timed);
        double sample = hotlineDouble(spec, node, "sample", HotlineSettings.DEFAULT_SAMPLE_RATE);
        int sampleRows = hotlineInt(spec, node, "sample_rows", HotlineSettings.DEFAULT_SAMPLE_ROWS);
        int trackerEntries =
                hotlineInt(spec, node, "tracker_entries", HotlineSettings.AUTO_TRACKER_ENTRIES);
        double decay = hotlineDouble(spec, node, "decay", HotlineSettings.DEFAULT_DECAY);
        HotlineSettings.Tracker tracker = HotlineSettings.Tracker.EXACT;
        JsonNode t = node.get("tracker");
        if (t != null) {
            tracker = HotlineSettings.Tracker.of(t.asText()).orElse(null);
            if (tracker == null || !t.isTextual()) {
                spec.problem("hotline.tracker", "must be \"exact\" or \"srrip\", not " + t);
            }
        }
        if (spec.problemCount() > before) {
            return null;
        }
        java.util.Optional<String> why =
                HotlineSettings.problem(
                        budget,
                        dim,
                        window.rows(),
                        window.millis(),
                        sample,
                        sampleRows,
                        trackerEntries,
                        decay);
        if (why.isPresent()) {
            spec.problem(
                    "hotline." + why.get().substring(0, why.get().indexOf(':')),
                    why.get().substring(why.get().indexOf(':') + 2));
            return null;
        }
        return new HotlineSettings(
                budget,
                dim,
                window.rows(),
                window.millis(),
                sample,
                sampleRows,
                tracker,
                trackerEntries,
                decay);
    }

    /** {@code hotline.window}: rows, or event time when the input has it; 1,000,000 rows absent. */
    private static Spans.Span window(SpecParser spec, JsonNode node, boolean timed) {
        JsonNode n = node.get("window");
        Spans.Span rows = new Spans.Span(HotlineSettings.DEFAULT_WINDOW_ROWS, 0);
        if (n == null) {
            return rows;
        }
        try {
            Spans.Span w = Spans.read(n);
            if (w.inEventTime() && !timed) {
                spec.problem(
                        "hotline.window",
                        n
                                + " is a span of event time, and the input has none: name its"
                                + " time field in input.timestamp, or count the window in rows");
                return rows;
            }
            return w;
        } catch (IllegalArgumentException e) {
            spec.problem("hotline.window", e.getMessage());
            return rows;
        }
    }

    private static int hotlineInt(SpecParser spec, JsonNode node, String field, int absent) {
        JsonNode n = node.get(field);
        if (n == null) {
            return absent;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            spec.problem("hotline." + field, "must be an integer, not " + n);
            return absent;
        }
        return n.intValue();
    }

    private static double hotlineDouble(
            SpecParser spec, JsonNode node, String field, double absent) {
        JsonNode n = node.get(field);
        if (n == null) {
            return absent;
        }
        if (!n.isNumber()) {
            spec.problem("hotline." + field, "must be a number, not " + n);
            return absent;
        }
        return n.doubleValue();
    }
}
