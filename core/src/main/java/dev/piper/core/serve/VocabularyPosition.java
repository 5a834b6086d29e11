package dev.piper.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A position of a stream's vocabularies: per sparse column, its epoch and how far its vocabulary
 * had got (the assignments an evicting column had made, else its entries). A rows record states the
 * position once its block was applied ({@code piper.vocab.position}); the trainer client writes the
 * position of the rows it trained on beside each checkpoint, as a position file:
 *
 * <pre>{@code
 * {"format": "piper-vocab-position", "version": 1, "pipeline": "dlrm-criteo/1",
 *  "source": "rows/0@41", "columns": {"C1": {"epoch": 0, "oov_buckets": 0, "position": 1234}, ...}}
 * }</pre>
 *
 * <p>{@code piper vocab snapshot --position FILE} writes the vocabularies at it ({@link
 * VocabularySnapshot}).
 *
 * @param pipeline the pipeline, {@code name/version}, or empty where unknown
 * @param source where the position was taken, for people
 * @param columns per sparse column, in column order; each with a position, not -1
 */
public record VocabularyPosition(
        String pipeline, String source, List<VocabularySnapshot.Column> columns) {

    /** The {@code format} of a position file. */
    public static final String FORMAT = "piper-vocab-position";

    private static final ObjectMapper JSON = new ObjectMapper();

    public VocabularyPosition {
        columns = List.copyOf(columns);
        for (VocabularySnapshot.Column c : columns) {
            if (c.position() < 0 || c.epoch() < 0 || c.oovBuckets() < 0) {
                throw new IllegalArgumentException(
                        c.name() + ": a position needs its epoch, buckets and position, not " + c);
            }
        }
    }

    /**
     * Reads a position file.
     *
     * @throws IOException naming the file and the field that is missing or wrong
     */
    public static VocabularyPosition read(Path file) throws IOException {
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IOException(file + ": not JSON (" + e.getMessage() + ")", e);
        }
        if (root == null || !root.isObject() || !FORMAT.equals(text(root, "format"))) {
            throw new IOException(
                    file + ": not a vocabulary position (\"format\" is not \"" + FORMAT + "\")");
        }
        if (root.path("version").asInt(-1) != 1) {
            throw new IOException(
                    file
                            + ": position file version "
                            + root.get("version")
                            + "; this build reads 1");
        }
        JsonNode cols = root.get("columns");
        if (cols == null || !cols.isObject() || cols.isEmpty()) {
            throw new IOException(file + ": \"columns\" is not an object of columns");
        }
        List<VocabularySnapshot.Column> columns = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = cols.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String where = file + ": columns." + e.getKey();
            columns.add(
                    new VocabularySnapshot.Column(
                            e.getKey(),
                            (int) number(e.getValue(), "epoch", where, Integer.MAX_VALUE),
                            (int) number(e.getValue(), "oov_buckets", where, Integer.MAX_VALUE),
                            number(e.getValue(), "position", where, Long.MAX_VALUE)));
        }
        columns.sort((a, b) -> Integer.compare(number(a.name()), number(b.name())));
        for (int c = 0; c < columns.size(); c++) {
            if (number(columns.get(c).name()) != c + 1) {
                throw new IOException(
                        file
                                + ": columns "
                                + columns.stream().map(VocabularySnapshot.Column::name).toList()
                                + " are not C1..C"
                                + columns.size());
            }
        }
        return new VocabularyPosition(text(root, "pipeline"), text(root, "source"), columns);
    }

    /** Writes this position as a position file. */
    public void write(Path file) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("format", FORMAT);
        root.put("version", 1);
        root.put("pipeline", pipeline);
        root.put("source", source);
        ObjectNode cols = root.putObject("columns");
        for (VocabularySnapshot.Column c : columns) {
            cols.putObject(c.name())
                    .put("epoch", c.epoch())
                    .put("oov_buckets", c.oovBuckets())
                    .put("position", c.position());
        }
        Files.write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
    }

    /** The number of {@code C12}, or -1 for a name that is not C and a number from 1. */
    private static int number(String name) {
        if (name.length() < 2 || name.charAt(0) != 'C') {
            return -1;
        }
        try {
            int n = Integer.parseInt(name.substring(1));
            return n >= 1 && name.equals("C" + n) ? n : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static long number(JsonNode node, String field, String where, long max)
            throws IOException {
        JsonNode v = node.get(field);
        if (v == null
                || !v.isIntegralNumber()
                || !v.canConvertToLong()
                || v.asLong() < 0
                || v.asLong() > max) {
            throw new IOException(
                    where + "." + field + ": " + v + " is not an integer from 0 to " + max);
        }
        return v.asLong();
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || !v.isTextual() ? "" : v.asText();
    }
}
