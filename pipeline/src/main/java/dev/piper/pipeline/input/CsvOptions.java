package dev.piper.pipeline.input;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * How a CSV input is laid out: its columns in order ({@code input.columns} of a spec), whether a
 * file starts with a header line naming them ({@code input.header}), and the character between
 * fields ({@code input.delimiter}). Quoting follows RFC 4180: a field in double quotes may hold the
 * delimiter, and a quote inside it is written twice.
 *
 * @param columns the CSV's column names, in order; at least one, no two alike
 * @param header whether each input file's first line is a header (batch input; Kafka records are
 *     lines without one)
 * @param delimiter the field delimiter: one ASCII character, neither a quote, a line break, a
 *     letter nor a digit
 */
public record CsvOptions(List<String> columns, boolean header, char delimiter)
        implements Serializable {

    /** The delimiter when a spec names none. */
    public static final char DEFAULT_DELIMITER = ',';

    public CsvOptions {
        columns = List.copyOf(columns);
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a CSV input needs its columns");
        }
        if (columns.stream().distinct().count() != columns.size()) {
            throw new IllegalArgumentException("two CSV columns of one name: " + columns);
        }
        if (!validDelimiter(delimiter)) {
            throw new IllegalArgumentException("not a CSV delimiter: " + describe(delimiter));
        }
    }

    /**
     * Whether {@code c} may separate fields: an ASCII character, not a quote nor a line break, and
     * no letter or digit (which values are made of).
     */
    public static boolean validDelimiter(char c) {
        return c < 0x80 && c != '"' && c != '\n' && c != '\r' && !Character.isLetterOrDigit(c);
    }

    /** A delimiter as messages name it: {@code ','}, {@code tab}. */
    public static String describe(char c) {
        if (c == '\t') {
            return "tab";
        }
        if (c == '"') {
            return "'\"' (the quote)";
        }
        if (c == '\n' || c == '\r') {
            return "a line break";
        }
        if (Character.isLetterOrDigit(c) && c < 0x80) {
            return "'" + c + "' (a letter or digit)";
        }
        return c < 0x80 ? "'" + c + "'" : "'" + c + "' (beyond ASCII)";
    }

    /**
     * Checks a file's header line (its line break removed) against {@link #columns}.
     *
     * @throws IllegalArgumentException naming the first column that differs, or the quoting that is
     *     broken
     */
    public void checkHeader(String line) {
        List<String> names = new ArrayList<>();
        StringBuilder name = new StringBuilder();
        int i = 0;
        while (true) {
            name.setLength(0);
            if (i < line.length() && line.charAt(i) == '"') {
                int q = i + 1;
                while (true) {
                    int close = line.indexOf('"', q);
                    if (close < 0) {
                        throw new IllegalArgumentException(
                                "its column "
                                        + (names.size() + 1)
                                        + " opens a quote it never closes");
                    }
                    name.append(line, q, close);
                    if (close + 1 < line.length() && line.charAt(close + 1) == '"') {
                        name.append('"');
                        q = close + 2;
                        continue;
                    }
                    i = close + 1;
                    break;
                }
            } else {
                int d = line.indexOf(delimiter, i);
                int to = d < 0 ? line.length() : d;
                name.append(line, i, to);
                i = to;
            }
            names.add(name.toString());
            if (i >= line.length()) {
                break;
            }
            if (line.charAt(i) != delimiter) {
                throw new IllegalArgumentException(
                        "its column " + names.size() + " has text after its closing quote");
            }
            i++;
            if (i == line.length()) {
                names.add("");
                break;
            }
        }
        for (int c = 0; c < Math.max(names.size(), columns.size()); c++) {
            String found = c < names.size() ? "\"" + names.get(c) + "\"" : "nothing";
            String expected = c < columns.size() ? "\"" + columns.get(c) + "\"" : "nothing";
            if (!found.equals(expected)) {
                throw new IllegalArgumentException(
                        "its header has "
                                + found
                                + " as column "
                                + (c + 1)
                                + " where input.columns has "
                                + expected
                                + " ("
                                + names.size()
                                + " columns against "
                                + columns.size()
                                + ")");
            }
        }
    }

    /** The column named {@code name}, from 0, or -1. */
    public int indexOf(String name) {
        return columns.indexOf(name);
    }
}
