package dev.piper.pipeline.generate;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.piper.pipeline.layout.RowLayout;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A Criteo text line as a JSON event of named fields, one object per line: {@code label}, {@code
 * I1..} and {@code C1..} as the layout names them; a decimal field within 32 bits as a number,
 * anything else as a string, an empty field left out, a list column's field as an array of its ids.
 * A line without the layout's number of fields is kept as it is (not JSON: the decoder rejects it,
 * as it rejects the text line). Read with {@code input.format} {@code json} and the same chains,
 * the events decode to the text's rows: the byte-identity tests and {@code piper convert} use it.
 */
public final class CriteoEvents {

    private static final JsonFactory JSON = new JsonFactory();

    private final RowLayout layout;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(1024);

    public CriteoEvents(RowLayout layout) {
        this.layout = layout;
    }

    /** The JSON event of {@code line} (without its line break), or the line if it is not a row. */
    public String toJson(String line) {
        String[] fields = line.split("\t", -1);
        if (fields.length != layout.inputFields()) {
            return line;
        }
        buffer.reset();
        try (JsonGenerator g = JSON.createGenerator(buffer)) {
            g.writeStartObject();
            for (int i = 0; i < fields.length; i++) {
                int f = layout.fieldOfInput(i);
                String text = fields[i];
                if (text.isEmpty()) {
                    continue;
                }
                String name = layout.fieldName(f);
                int c = f - layout.labelDenseWidth();
                if (c >= 0 && layout.isList(c)) {
                    g.writeArrayFieldStart(name);
                    for (String id :
                            text.split(
                                    java.util.regex.Pattern.quote(
                                            String.valueOf(layout.listSeparator())),
                                    -1)) {
                        g.writeString(id);
                    }
                    g.writeEndArray();
                } else if (c < 0 && isInt32(text)) {
                    g.writeNumberField(name, Integer.parseInt(text));
                } else {
                    g.writeStringField(name, text);
                }
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }

    private static boolean isInt32(String text) {
        if (!text.matches("-?[0-9]{1,10}")) {
            return false;
        }
        long v = Long.parseLong(text);
        return v == (int) v;
    }
}
