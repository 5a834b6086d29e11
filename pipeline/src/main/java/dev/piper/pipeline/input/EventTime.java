package dev.piper.pipeline.input;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Objects;

/**
 * An event's time, read from the field a spec's {@code input.timestamp} names: every row carries it
 * as milliseconds since the Unix epoch (UTC), in the output ({@code event_times.bin}, the rows
 * records) and for the stream's watermarks (docs/SEMANTICS.md, "Event time").
 *
 * <p>A value is an integer count of {@code unit}s since the epoch (a number with a fraction is
 * taken to the nearest millisecond; microseconds are cut to the millisecond below), decimal text of
 * one, or ISO-8601 text with a UTC offset ({@code 2026-11-27T08:00:00.123Z}, {@code
 * 2026-11-27T09:00:00+01:00}). Times outside years 1 to 9999 are refused, as are text without an
 * offset (its instant is unknown), booleans, records and arrays; the row becomes a {@code
 * bad_timestamp} dead letter.
 *
 * @param field the path of the time's field ({@link FieldPath}; a CSV column's name for CSV)
 * @param unit what a number in the field counts
 */
public record EventTime(String field, Unit unit) implements Serializable {

    /** What {@link #millis} and the other readers return for a value that is no time. */
    public static final long INVALID = Long.MIN_VALUE;

    /** 0001-01-01T00:00:00Z, the earliest time taken. */
    public static final long MIN_MILLIS = -62_135_596_800_000L;

    /** 9999-12-31T23:59:59.999Z, the latest time taken. */
    public static final long MAX_MILLIS = 253_402_300_799_999L;

    /** The units a number of the field may count, by their names in specs. */
    public enum Unit {
        SECONDS("s"),
        MILLIS("ms"),
        MICROS("us");

        private final String specName;

        Unit(String specName) {
            this.specName = specName;
        }

        public String specName() {
            return specName;
        }

        /** The unit of spec name {@code name}, or null. */
        public static Unit of(String name) {
            for (Unit u : values()) {
                if (u.specName.equals(name)) {
                    return u;
                }
            }
            return null;
        }

        /** The spec names of the units, for messages. */
        public static String names() {
            return String.join(", ", Arrays.stream(values()).map(Unit::specName).toList());
        }
    }

    public EventTime {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(unit, "unit");
    }

    /** The milliseconds of integer {@code v} of this unit, or {@link #INVALID} out of range. */
    public long millis(long v) {
        long ms;
        switch (unit) {
            case SECONDS -> {
                if (v > MAX_MILLIS / 1000 || v < MIN_MILLIS / 1000) {
                    return INVALID;
                }
                ms = v * 1000;
            }
            case MICROS -> ms = Math.floorDiv(v, 1000L);
            default -> ms = v;
        }
        return ms < MIN_MILLIS || ms > MAX_MILLIS ? INVALID : ms;
    }

    /**
     * The milliseconds of number {@code v} of this unit, to the nearest one, or {@link #INVALID}
     * for a value out of range (or not finite).
     */
    public long millis(double v) {
        double ms =
                switch (unit) {
                    case SECONDS -> v * 1000;
                    case MICROS -> v / 1000;
                    default -> v;
                };
        if (!(ms >= MIN_MILLIS && ms <= MAX_MILLIS)) {
            return INVALID;
        }
        return Math.round(ms);
    }

    /**
     * The milliseconds of text {@code b[s, e)} (UTF-8): decimal digits with an optional minus sign
     * (a count of this unit), or ISO-8601 with an offset; {@link #INVALID} for anything else.
     */
    public long millis(byte[] b, int s, int e) {
        if (s == e) {
            return INVALID;
        }
        int i = b[s] == '-' ? s + 1 : s;
        if (i < e && e - i <= 18) {
            long v = 0;
            int j = i;
            while (j < e && b[j] >= '0' && b[j] <= '9') {
                v = v * 10 + (b[j++] - '0');
            }
            if (j == e) {
                return millis(i > s ? -v : v);
            }
        }
        return iso(new String(b, s, e - s, StandardCharsets.UTF_8));
    }

    /** As {@link #millis(byte[], int, int)}, of text {@code text}. */
    public long millis(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return millis(b, 0, b.length);
    }

    /** The milliseconds of ISO-8601 text with an offset, or {@link #INVALID}. */
    private static long iso(String text) {
        try {
            long ms = OffsetDateTime.parse(text).toInstant().toEpochMilli();
            return ms < MIN_MILLIS || ms > MAX_MILLIS ? INVALID : ms;
        } catch (DateTimeParseException | ArithmeticException bad) {
            return INVALID;
        }
    }

    /** Why number {@code value} (as the event wrote it) is no time: out of this unit's range. */
    public String outOfRange(String value) {
        return value + " is out of range as " + unit.specName();
    }

    /**
     * Why text {@code text}, which {@link #millis(String)} refused, is no time: for a dead letter's
     * detail.
     */
    public String whyNot(String text) {
        if (text.isEmpty()) {
            return "is empty";
        }
        String quoted = "\"" + (text.length() <= 64 ? text : text.substring(0, 64) + "...") + "\"";
        if (text.matches("-?[0-9]+")) {
            return quoted + " is out of range as " + unit.specName() + " since 1970";
        }
        try {
            OffsetDateTime.parse(text);
            return quoted + " is out of range (years 1 to 9999)";
        } catch (DateTimeParseException bad) {
            return quoted
                    + " is neither a count of "
                    + unit.specName()
                    + " nor ISO-8601 time with an offset (2026-11-27T08:00:00Z)";
        }
    }
}
