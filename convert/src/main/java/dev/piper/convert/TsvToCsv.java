package dev.piper.convert;

import dev.piper.pipeline.layout.RowLayout;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Criteo text to CSV with a header line naming the layout's input fields ({@code label}, {@code
 * I1..}, {@code C1..}): every line is written, in order, a value quoted (RFC 4180) where it holds a
 * comma, a quote or a carriage return, so that preprocessing the CSV with a {@code csv} spec of the
 * same chains ({@code dlrm-criteo-csv}) gives the text's rows, indices and dead letters. A line
 * that is not a row of the layout (another field count) keeps its field count (its tabs become
 * commas), and the CSV decoder rejects it as the text decoder does; a line that is not UTF-8 is
 * written as it is. The file appears complete under its name or not at all.
 */
public final class TsvToCsv {

    private TsvToCsv() {}

    /** The header line of {@code layout}'s CSV: its input fields' names, comma-separated. */
    public static String header(RowLayout layout) {
        return String.join(",", columns(layout));
    }

    /** The CSV's columns: {@code layout}'s input fields, in the text's order. */
    public static List<String> columns(RowLayout layout) {
        List<String> names = new ArrayList<>(layout.inputFields());
        for (int i = 0; i < layout.inputFields(); i++) {
            names.add(layout.fieldName(layout.fieldOfInput(i)));
        }
        return names;
    }

    /**
     * @param progress where a line goes every ten seconds of a long conversion
     */
    public static TsvToJson.Result convert(
            Path input, Path output, RowLayout layout, PrintStream progress) throws IOException {
        int fields = layout.inputFields();
        StringBuilder line = new StringBuilder(256);
        return TsvToJson.eachLineTo(
                input,
                output,
                progress,
                out -> out.write((header(layout) + "\n").getBytes(StandardCharsets.UTF_8)),
                (out, text, buf, from, to) -> {
                    if (text == null) {
                        for (int i = from; i < to; i++) {
                            out.write(buf[i] == '\t' ? ',' : buf[i]);
                        }
                    } else {
                        out.write(csvLine(text, fields, line).getBytes(StandardCharsets.UTF_8));
                    }
                });
    }

    /**
     * A line of text as a CSV line: a value quoted where it holds a comma, a quote or a carriage
     * return; a line of another field count with its tabs as commas.
     */
    static String csvLine(String text, int fields, StringBuilder line) {
        line.setLength(0);
        int count = 1;
        for (int i = 0; i < text.length(); i++) {
            count += text.charAt(i) == '\t' ? 1 : 0;
        }
        int from = 0;
        while (true) {
            int tab = text.indexOf('\t', from);
            String v = text.substring(from, tab < 0 ? text.length() : tab);
            if (count == fields
                    && (v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\r') >= 0)) {
                line.append('"').append(v.replace("\"", "\"\"")).append('"');
            } else {
                line.append(v);
            }
            if (tab < 0) {
                return line.toString();
            }
            line.append(',');
            from = tab + 1;
        }
    }
}
