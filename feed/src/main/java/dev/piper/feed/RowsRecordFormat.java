package dev.piper.feed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The rows record's headers as {@code formats/rows-record.json} describes them (the one description
 * the Java writer, the Java reader and the Python reader are tested against): each header's type,
 * count, when it is present and from which record format on. {@link #check} applies it to a
 * record's headers; {@link RowsRecord#of} checks every record it reads with it.
 */
public final class RowsRecordFormat {

    /** The description, loaded from this package's {@code rows-record.json}. */
    public static final RowsRecordFormat DESCRIBED = load();

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** One header of the description. */
    public record Header(
            String name, String type, String count, String when, int since, List<String> choices) {}

    private final Map<String, Header> headers;

    private RowsRecordFormat(Map<String, Header> headers) {
        this.headers = Collections.unmodifiableMap(headers);
    }

    /** Every described header by name, in the description's order. */
    public Map<String, Header> headers() {
        return headers;
    }

    private static RowsRecordFormat load() {
        try (InputStream in = RowsRecordFormat.class.getResourceAsStream("rows-record.json")) {
            if (in == null) {
                throw new IllegalStateException(
                        "rows-record.json is not on the class path beside "
                                + RowsRecordFormat.class.getName()
                                + " (the build copies formats/rows-record.json there)");
            }
            JsonNode root = new ObjectMapper().readTree(in);
            Map<String, Header> headers = new LinkedHashMap<>();
            root.get("headers")
                    .fields()
                    .forEachRemaining(
                            e -> {
                                JsonNode h = e.getValue();
                                List<String> choices = new ArrayList<>();
                                if (h.has("choices")) {
                                    h.get("choices").forEach(c -> choices.add(c.asText()));
                                }
                                headers.put(
                                        e.getKey(),
                                        new Header(
                                                e.getKey(),
                                                h.get("type").asText(),
                                                h.has("count") ? h.get("count").asText() : null,
                                                h.get("when").asText(),
                                                h.has("since") ? h.get("since").asInt() : 1,
                                                List.copyOf(choices)));
                            });
            return new RowsRecordFormat(headers);
        } catch (IOException e) {
            throw new UncheckedIOException("reading rows-record.json", e);
        }
    }

    /**
     * Checks {@code values} (header name to its ASCII text; headers not described, such as another
     * tool's, are left alone) of a record of format {@code version} against the description: every
     * header that is always there, each group of headers present together or not at all, none
     * before its format, and every value of its type and count. The counts come from the record's
     * own {@code piper.row.columns} and {@code piper.list.columns} (Criteo's 26 sparse columns in
     * format 1).
     *
     * @throws IllegalStateException naming {@code where}, the header and what is wrong
     */
    public void check(Map<String, String> values, int version, String where) {
        checkPresence(values, version, where);
        checkValues(values, version, where);
    }

    /**
     * Refuses a header missing from a record of its format, one of a later format, and one of a
     * group without the others.
     */
    private void checkPresence(Map<String, String> values, int version, String where) {
        Map<String, List<String>> groups = new TreeMap<>();
        for (Header h : headers.values()) {
            boolean present = values.containsKey(h.name());
            if (h.when().equals("always")) {
                if (!present && version >= h.since()) {
                    throw new IllegalStateException(
                            where
                                    + ": no "
                                    + h.name()
                                    + " header (every record of format "
                                    + version
                                    + " has it)");
                }
            } else {
                groups.computeIfAbsent(h.when(), w -> new ArrayList<>());
                if (present) {
                    groups.get(h.when()).add(h.name());
                }
            }
            if (present && version < h.since() && !h.when().equals("always")) {
                throw new IllegalStateException(
                        where
                                + ": header "
                                + h.name()
                                + " in a record of format "
                                + version
                                + " (it belongs to format "
                                + h.since()
                                + " and later)");
            }
        }
        for (Map.Entry<String, List<String>> g : groups.entrySet()) {
            List<String> all = namesWhen(g.getKey());
            if (!g.getValue().isEmpty() && g.getValue().size() < all.size()) {
                List<String> missing = new ArrayList<>(all);
                missing.removeAll(g.getValue());
                throw new IllegalStateException(
                        where
                                + ": header "
                                + g.getValue().get(0)
                                + " without "
                                + String.join(", ", missing)
                                + " (with "
                                + g.getKey()
                                + " a record has all of "
                                + String.join(", ", all)
                                + ")");
            }
        }
    }

    /** Refuses a header whose value is not of its type, or not as many as its count says. */
    private void checkValues(Map<String, String> values, int version, String where) {
        int lists = count(values.get(RowsRecord.LIST_COLUMNS));
        int sparse =
                version < 2
                        ? 26
                        : (int)
                                        split(values.getOrDefault(RowsRecord.ROW_COLUMNS, ""))
                                                .stream()
                                                .filter(c -> RowsRecord.sparseColumn(c) >= 0)
                                                .count()
                                + lists;
        // the names first: the other headers' counts come from them
        List<Map.Entry<String, String>> described = new ArrayList<>();
        for (Map.Entry<String, String> v : values.entrySet()) {
            Header h = headers.get(v.getKey());
            if (h != null) {
                described.add(h.type().equals("names") ? 0 : described.size(), v);
            }
        }
        for (Map.Entry<String, String> v : described) {
            Header h = headers.get(v.getKey());
            Integer expected =
                    h.count() == null
                            ? null
                            : switch (h.count()) {
                                case "lists" -> lists;
                                case "bucketized" ->
                                        count(values.get(RowsRecord.BUCKETIZED_COLUMNS));
                                default -> sparse;
                            };
            String problem = problem(h, v.getValue(), expected);
            if (problem != null) {
                throw new IllegalStateException(
                        where + ": header " + h.name() + " \"" + v.getValue() + "\": " + problem);
            }
        }
    }

    /** The described headers that are present when {@code when}. */
    public List<String> namesWhen(String when) {
        return headers.values().stream()
                .filter(h -> h.when().equals(when))
                .map(Header::name)
                .toList();
    }

    private static int count(String names) {
        return names == null ? 0 : split(names).size();
    }

    private static List<String> split(String text) {
        return text.isEmpty() ? List.of() : List.of(text.split(",", -1));
    }

    /** What is wrong with {@code value} as header {@code h}, or null. */
    private static String problem(Header h, String value, Integer count) {
        switch (h.type()) {
            case "text":
                return value.isEmpty() ? "empty (" + describe(h) + ")" : null;
            case "count":
                return number(value, Integer.MAX_VALUE) ? null : "not " + describe(h);
            case "number":
                return number(value, Long.MAX_VALUE) ? null : "not " + describe(h);
            case "counts":
            case "numbers":
            case "choices":
                {
                    List<String> items = List.of(value.split(",", -1));
                    if (items.size() != count) {
                        return items.size() + " values, the record's columns call for " + count;
                    }
                    long max = h.type().equals("counts") ? Integer.MAX_VALUE : Long.MAX_VALUE;
                    for (int i = 0; i < items.size(); i++) {
                        String item = items.get(i);
                        boolean ok =
                                h.type().equals("choices")
                                        ? item.isEmpty() || h.choices().contains(item)
                                        : number(item, max);
                        if (!ok) {
                            return "value " + (i + 1) + " \"" + item + "\" is not " + describe(h);
                        }
                    }
                    return null;
                }
            case "names":
                {
                    List<String> names = List.of(value.split(",", -1));
                    for (String n : names) {
                        if (!NAME.matcher(n).matches()) {
                            return "\"" + n + "\" is not a column name";
                        }
                    }
                    return Set.copyOf(names).size() == names.size() ? null : "a name twice";
                }
            case "range":
                {
                    int dash = value.indexOf('-');
                    if (dash < 0
                            || !number(value.substring(0, dash), Long.MAX_VALUE)
                            || !number(value.substring(dash + 1), Long.MAX_VALUE)) {
                        return "not two numbers joined by a dash";
                    }
                    return Long.parseLong(value.substring(0, dash))
                                    > Long.parseLong(value.substring(dash + 1))
                            ? "its first number is above its second"
                            : null;
                }
            default:
                throw new IllegalStateException(
                        "rows-record.json: header " + h.name() + " has unknown type " + h.type());
        }
    }

    private static String describe(Header h) {
        return switch (h.type()) {
            case "count" -> "an integer from 0 to 2^31 - 1";
            case "number" -> "an integer from 0 to 2^63 - 1";
            case "counts" -> "an integer from 0 to 2^31 - 1";
            case "numbers" -> "an integer from 0 to 2^63 - 1";
            case "choices" -> "empty or one of " + String.join(", ", h.choices());
            default -> h.type();
        };
    }

    /** Whether {@code text} is a decimal integer from 0 to {@code max}. */
    private static boolean number(String text, long max) {
        if (text.isEmpty() || text.length() > 19) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        try {
            return Long.parseLong(text) <= max;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
