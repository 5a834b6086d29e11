package dev.piper.pipeline.input;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a column's value sits in an event: field names separated by dots for nested records, and
 * {@code [i]} after a name for element {@code i} (from 0) of an array, e.g. {@code user.id}, {@code
 * recent_items[0]}, {@code features.prices[2]}. A name is any non-empty text without {@code .},
 * {@code [} or {@code ]}.
 *
 * @param text the path as the spec writes it (messages and dead letters quote it)
 * @param segments its steps, each a field name or an array index
 */
public record FieldPath(String text, List<Segment> segments) implements Serializable {

    /** One step of a path: into a record's field ({@code name}) or an array's element. */
    public record Segment(String name, int index) implements Serializable {

        /** A step into field {@code name}. */
        public static Segment field(String name) {
            return new Segment(name, -1);
        }

        /** A step into element {@code index}. */
        public static Segment element(int index) {
            return new Segment(null, index);
        }

        public boolean isField() {
            return name != null;
        }

        @Override
        public String toString() {
            return isField() ? name : "[" + index + "]";
        }
    }

    public FieldPath {
        segments = List.copyOf(segments);
        if (segments.isEmpty() || !segments.get(0).isField()) {
            throw new IllegalArgumentException("a path starts with a field name: " + text);
        }
    }

    /** The longest index a path may name; larger ones are surely typos. */
    public static final int MAX_INDEX = 1_000_000;

    /**
     * Reads a path.
     *
     * @throws IllegalArgumentException naming what is wrong and where, e.g. {@code "user..id":
     *     empty field name at character 6}
     */
    public static FieldPath parse(String text) {
        List<Segment> segments = new ArrayList<>();
        int i = 0;
        int n = text.length();
        if (n == 0) {
            throw new IllegalArgumentException("empty path");
        }
        while (true) {
            int start = i;
            while (i < n && "[].".indexOf(text.charAt(i)) < 0) {
                i++;
            }
            if (i == start) {
                throw bad(text, "empty field name", start);
            }
            segments.add(Segment.field(text.substring(start, i)));
            while (i < n && text.charAt(i) == '[') {
                int close = text.indexOf(']', i);
                if (close < 0) {
                    throw bad(text, "unclosed [", i);
                }
                String digits = text.substring(i + 1, close);
                if (digits.isEmpty()
                        || digits.length() > 7
                        || !digits.chars().allMatch(Character::isDigit)
                        || Integer.parseInt(digits) > MAX_INDEX) {
                    throw bad(
                            text,
                            "[" + digits + "] is not an array index from 0 to " + MAX_INDEX,
                            i);
                }
                segments.add(Segment.element(Integer.parseInt(digits)));
                i = close + 1;
            }
            if (i == n) {
                return new FieldPath(text, segments);
            }
            if (text.charAt(i) != '.') {
                throw bad(text, "unexpected '" + text.charAt(i) + "'", i);
            }
            i++;
            if (i == n) {
                throw bad(text, "empty field name", i);
            }
        }
    }

    /**
     * A path of one field named {@code name} as it is, dots and brackets included: a CSV column's
     * name, which is flat.
     */
    public static FieldPath name(String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty column name");
        }
        return new FieldPath(name, List.of(Segment.field(name)));
    }

    private static IllegalArgumentException bad(String text, String what, int at) {
        return new IllegalArgumentException(
                "\"" + text + "\": " + what + " at character " + (at + 1));
    }

    /** Whether {@code other} lies inside this path's value (this path is a prefix of it). */
    public boolean encloses(FieldPath other) {
        return other.segments.size() > segments.size()
                && other.segments.subList(0, segments.size()).equals(segments);
    }

    @Override
    public String toString() {
        return text;
    }
}
