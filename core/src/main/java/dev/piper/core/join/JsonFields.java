package dev.piper.core.join;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.piper.core.decode.JsonEventDecoder;
import dev.piper.pipeline.input.FieldPath;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a few fields of a JSON event (one object on a line) by their {@link FieldPath}s, with
 * Jackson's streaming parser: the join's key, time, id and value of an action, or an impression's
 * key. Everything else in the object is skipped, but parsed: a line that is not one JSON object is
 * refused. Not thread-safe.
 */
final class JsonFields {

    /** A field's value as read: a string's text, a number's or a boolean's, or null. */
    record Value(JsonToken token, String text) {

        boolean isNumber() {
            return token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT;
        }
    }

    /** A line that is not one JSON object, and why. */
    static final class NotAnObject extends Exception {
        NotAnObject(String why) {
            super(why, null, false, false);
        }
    }

    /** One step of the paths: the fields (and array elements) below it, or the path it ends. */
    private static final class Node {
        final Map<String, Node> fields = new HashMap<>();
        final Map<Integer, Node> elements = new HashMap<>();
        int leaf = -1;
    }

    private final JsonFactory json = JsonEventDecoder.factory();
    private final Node root = new Node();
    private final String topField; // a top-level field whose presence is reported, or null
    private final Value[] values;
    private boolean hasTopField;

    /**
     * @param paths the fields to read, their values in this order
     * @param topField a top-level field whose presence {@link #hasTopField()} reports, or null
     */
    JsonFields(List<FieldPath> paths, String topField) {
        this.topField = topField;
        this.values = new Value[paths.size()];
        for (int i = 0; i < paths.size(); i++) {
            Node n = root;
            for (FieldPath.Segment s : paths.get(i).segments()) {
                n =
                        s.isField()
                                ? n.fields.computeIfAbsent(s.name(), k -> new Node())
                                : n.elements.computeIfAbsent(s.index(), k -> new Node());
            }
            n.leaf = i;
        }
    }

    /**
     * Reads the object on {@code b[s, e)}: afterwards {@link #value(int)} is each path's value
     * (null where the event has none).
     *
     * @throws NotAnObject if the bytes are not one JSON object
     */
    void read(byte[] b, int s, int e) throws NotAnObject {
        java.util.Arrays.fill(values, null);
        hasTopField = false;
        try (JsonParser p = json.createParser(b, s, e - s)) {
            JsonToken first = p.nextToken();
            if (first != JsonToken.START_OBJECT) {
                throw new NotAnObject(
                        first == null ? "the line is empty" : "the line is not a JSON object");
            }
            readObject(p, root, true);
            if (p.nextToken() != null) {
                throw new NotAnObject(
                        "content after the JSON object, at column "
                                + p.currentLocation().getColumnNr());
            }
        } catch (IOException | RuntimeException bad) {
            throw new NotAnObject("not JSON: " + firstLine(bad.getMessage()));
        }
    }

    /** The value of path {@code i} in the object read last, or null. */
    Value value(int i) {
        return values[i];
    }

    /** Whether the object read last has the top-level field named at construction. */
    boolean hasTopField() {
        return hasTopField;
    }

    private void readObject(JsonParser p, Node node, boolean top) throws IOException {
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            if (top && name.equals(topField)) {
                hasTopField = true;
            }
            Node child = node == null ? null : node.fields.get(name);
            readValue(p, p.nextToken(), child);
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IOException("unexpected " + t);
        }
    }

    private void readValue(JsonParser p, JsonToken t, Node node) throws IOException {
        if (t == JsonToken.START_OBJECT) {
            readObject(p, node, false);
        } else if (t == JsonToken.START_ARRAY) {
            int i = 0;
            JsonToken e;
            while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
                readValue(p, e, node == null ? null : node.elements.get(i));
                i++;
            }
        } else if (node != null && node.leaf >= 0 && t != JsonToken.VALUE_NULL) {
            values[node.leaf] = new Value(t, p.getText());
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
