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

    /** Each field's name, by field number. */
    private final String[] names;

    public CriteoEvents(RowLayout layout) {
        this.layout = layout;
        this.names = new String[layout.fields()];
        for (int f = 0; f < names.length; f++) {
            names[f] = layout.fieldName(f);
        }
    }

    /** The JSON event of {@code line} (without its line break), or the line if it is not a row. */
    public String toJson(String line) {
        String[] fields = split(line, '\t');
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
                g.writeFieldName(names[f]);
                int c = f - layout.labelDenseWidth();
                if (c >= 0 && layout.isList(c)) {
                    g.writeStartArray();
                    for (String id : split(text, layout.listSeparator())) {
                        g.writeString(id);
                    }
                    g.writeEndArray();
                } else if (c < 0 && isInt32(text)) {
                    g.writeNumber(Integer.parseInt(text));
                } else {
                    g.writeString(text);
                }
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }

    /** {@code text} split at every {@code separator}, empty pieces kept. */
    static String[] split(String text, char separator) {
        int n = 1;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == separator) {
                n++;
            }
        }
        String[] out = new String[n];
        int start = 0;
        int k = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == separator) {
                out[k++] = text.substring(start, i);
                start = i + 1;
            }
        }
        return out;
    }

    /**
     * Whether {@code text} is a decimal integer within 32 bits: an optional '-', 1 to 10 digits.
     */
    static boolean isInt32(String text) {
        int start = text.startsWith("-") ? 1 : 0;
        int digits = text.length() - start;
        if (digits < 1 || digits > 10) {
            return false;
        }
        long v = 0;
        for (int i = start; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch < '0' || ch > '9') {
                return false;
            }
            v = v * 10 + (ch - '0');
        }
        v = start == 1 ? -v : v;
        return v == (int) v;
    }
}
