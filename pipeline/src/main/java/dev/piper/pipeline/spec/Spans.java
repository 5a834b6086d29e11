package dev.piper.pipeline.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stretch of a row stream as specs write it: a count of rows ({@code 100000}, {@code "5M rows"})
 * or a span of event time ({@code "10m"}, {@code "1h"}, {@code "7d"}), for settings that may follow
 * either clock (Hotline's window, a vocabulary's ttl).
 */
final class Spans {

    private static final Pattern ROWS = Pattern.compile("\\s*([0-9]+)\\s*([kMG]?)\\s*rows?\\s*");
    private static final Pattern TIME = Pattern.compile("\\s*([0-9]+)\\s*(ms|s|m|h|d|w)\\s*");

    /** What a span may be, for messages. */
    static final String WHAT =
            "a number of rows (100000, \"5M rows\"; k, M, G) or a span of event time (\"90s\","
                    + " \"10m\", \"1h\", \"7d\"; ms, s, m, h, d, w)";

    /**
     * A span: exactly one of {@code rows} and {@code millis} is positive.
     *
     * @param rows a count of rows, or 0
     * @param millis milliseconds of event time, or 0
     */
    record Span(long rows, long millis) {

        /** Whether the span is counted in event time. */
        boolean inEventTime() {
            return millis > 0;
        }
    }

    private Spans() {}

    /**
     * Reads {@code node} as a span.
     *
     * @throws IllegalArgumentException saying what the node is instead (it does not name the
     *     setting: the caller does)
     */
    static Span read(JsonNode node) {
        if (node.isIntegralNumber() && node.canConvertToLong() && node.longValue() >= 1) {
            return new Span(node.longValue(), 0);
        }
        if (!node.isTextual()) {
            throw new IllegalArgumentException("must be " + WHAT + ", not " + node);
        }
        Matcher rows = ROWS.matcher(node.asText());
        Matcher time = TIME.matcher(node.asText());
        try {
            if (rows.matches()) {
                long n = Math.multiplyExact(Long.parseLong(rows.group(1)), rowScale(rows.group(2)));
                return n >= 1 ? new Span(n, 0) : notPositive(node);
            }
            if (time.matches()) {
                long ms = Math.multiplyExact(Long.parseLong(time.group(1)), millis(time.group(2)));
                return ms >= 1 ? new Span(0, ms) : notPositive(node);
            }
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException(
                    "must be below 2^63 rows or milliseconds, not " + node);
        }
        throw new IllegalArgumentException("must be " + WHAT + ", not " + node);
    }

    private static Span notPositive(JsonNode node) {
        throw new IllegalArgumentException("must be at least 1 row or 1 ms, not " + node);
    }

    private static long rowScale(String unit) {
        return switch (unit) {
            case "k" -> 1_000L;
            case "M" -> 1_000_000L;
            case "G" -> 1_000_000_000L;
            default -> 1L;
        };
    }

    private static long millis(String unit) {
        return switch (unit) {
            case "ms" -> 1L;
            case "s" -> 1_000L;
            case "m" -> 60_000L;
            case "h" -> 3_600_000L;
            case "d" -> 86_400_000L;
            default -> 604_800_000L; // w
        };
    }
}
