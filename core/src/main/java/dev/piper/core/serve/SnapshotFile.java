package dev.piper.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The snapshot file ({@code piper vocab snapshot}): one text line {@value #MAGIC}, one line of JSON
 * (the header), then the body, little-endian: per column of the header, in order, its {@code
 * entries} int32 indices in increasing order, then their {@code entries} int64 keys. The header:
 *
 * <pre>{@code
 * {"pipeline": "dlrm-criteo/1", "source": "...", "body_bytes": N, "crc32": C,
 *  "columns": [{"name": "C1", "epoch": 0, "oov_buckets": 0, "position": 1234,
 *               "entries": 1234, "table_size": 1235, "reserved_index": 1234}, ...]}
 * }</pre>
 *
 * <p>{@code crc32} is zlib's CRC-32 of the body; {@code position} is null for the end of a batch
 * output. {@code table_size} is the rows a model's embedding table needs to serve the column at
 * this position ({@link VocabularySnapshot#tableSize}); {@code reserved_index} the index a key the
 * snapshot lacks takes, in a column without OOV buckets (null in one with buckets). Files written
 * before 2026-12-07 announced {@code table_size} one short for such a column and have no {@code
 * reserved_index}; readers use neither (both follow from the entries), so every file reads the
 * same. A reader checks the body's length and checksum, so a file cut short or damaged is refused,
 * never read as a smaller vocabulary. docs/SERVING.md has the same description.
 */
final class SnapshotFile {

    /** The file's first line. */
    static final String MAGIC = "piper vocabulary snapshot 1";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The most bytes of entries a file holds (read whole, as one array): some 178 million entries,
     * far beyond a serving process's memory for the maps they become.
     */
    static final long MAX_BODY = Integer.MAX_VALUE - (1 << 20);

    private SnapshotFile() {}

    static void write(VocabularySnapshot snapshot, Path file) throws IOException {
        List<VocabularySnapshot.Column> columns = snapshot.columnList();
        long bodyBytes = 0;
        for (int c = 0; c < columns.size(); c++) {
            bodyBytes += (long) snapshot.entries(c) * (Integer.BYTES + Long.BYTES);
        }
        if (bodyBytes > MAX_BODY) {
            throw new IOException(
                    file
                            + ": "
                            + bodyBytes
                            + " bytes of entries; a snapshot holds at most "
                            + MAX_BODY);
        }
        CRC32 crc = new CRC32();
        List<ByteBuffer> body = new ArrayList<>();
        for (int c = 0; c < columns.size(); c++) {
            int n = snapshot.entries(c);
            int[] indices = new int[n];
            long[] keys = new long[n];
            snapshot.entriesInIndexOrder(c, indices, keys);
            ByteBuffer b =
                    ByteBuffer.allocate(n * (Integer.BYTES + Long.BYTES))
                            .order(ByteOrder.LITTLE_ENDIAN);
            b.asIntBuffer().put(indices);
            b.position(n * Integer.BYTES);
            b.asLongBuffer().put(keys);
            b.position(0);
            crc.update(b.duplicate());
            body.add(b);
        }
        ObjectNode header = JSON.createObjectNode();
        header.put("pipeline", snapshot.pipeline());
        header.put("source", snapshot.source());
        header.put("body_bytes", bodyBytes);
        header.put("crc32", crc.getValue());
        ArrayNode cols = header.putArray("columns");
        for (int c = 0; c < columns.size(); c++) {
            VocabularySnapshot.Column col = columns.get(c);
            ObjectNode o = cols.addObject();
            o.put("name", col.name());
            o.put("epoch", col.epoch());
            o.put("oov_buckets", col.oovBuckets());
            if (col.position() < 0) {
                o.putNull("position");
            } else {
                o.put("position", col.position());
            }
            o.put("entries", snapshot.entries(c));
            o.put("table_size", snapshot.tableSize(c));
            if (snapshot.hasReservedIndex(c)) {
                o.put("reserved_index", snapshot.reservedIndex(c));
            } else {
                o.putNull("reserved_index");
            }
        }
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(temp)) {
                out.write((MAGIC + "\n").getBytes(StandardCharsets.US_ASCII));
                out.write(JSON.writeValueAsBytes(header));
                out.write('\n');
                for (ByteBuffer b : body) {
                    out.write(b.array());
                }
            }
            Files.move(
                    temp,
                    file,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** A file's header, once its first line, its length and its checksum were checked. */
    private record Checked(JsonNode header, int bodyStart, long bodyBytes) {}

    static VocabularySnapshot read(Path file) throws IOException {
        long size = Files.size(file);
        if (size > MAX_BODY + (1 << 20)) {
            throw new IOException(file + ": " + size + " bytes, more than a snapshot holds");
        }
        byte[] bytes = Files.readAllBytes(file);
        Checked checked = checked(bytes, file);
        JsonNode header = checked.header();
        int bodyStart = checked.bodyStart();
        long bodyBytes = checked.bodyBytes();
        JsonNode cols = header.get("columns");
        if (cols == null || !cols.isArray()) {
            throw new IOException(file + ": the header has no \"columns\" array");
        }
        List<VocabularySnapshot.Column> columns = new ArrayList<>();
        int[][] indices = new int[cols.size()][];
        long[][] keys = new long[cols.size()][];
        ByteBuffer body = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long at = bodyStart;
        for (int c = 0; c < cols.size(); c++) {
            JsonNode col = cols.get(c);
            String where = file + ": columns[" + c + "]";
            JsonNode name = col.get("name");
            if (name == null || !name.isTextual()) {
                throw new IOException(where + ": no \"name\"");
            }
            JsonNode position = col.get("position");
            columns.add(
                    new VocabularySnapshot.Column(
                            name.asText(),
                            (int) number(col, "epoch", where),
                            (int) number(col, "oov_buckets", where),
                            position == null || position.isNull()
                                    ? -1
                                    : number(col, "position", where)));
            long n = number(col, "entries", where);
            if (at + n * (Integer.BYTES + Long.BYTES) > bytes.length) {
                throw new IOException(where + ": " + n + " entries run past the body");
            }
            indices[c] = new int[(int) n];
            keys[c] = new long[(int) n];
            body.position((int) at);
            body.asIntBuffer().get(indices[c]);
            body.position((int) (at + n * Integer.BYTES));
            body.asLongBuffer().get(keys[c]);
            at += n * (Integer.BYTES + Long.BYTES);
        }
        if (at != bytes.length) {
            throw new IOException(
                    file
                            + ": the columns' entries take "
                            + (at - bodyStart)
                            + " bytes of "
                            + bodyBytes);
        }
        try {
            return VocabularySnapshot.of(
                    text(header, "pipeline"), text(header, "source"), columns, indices, keys);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Checks the first line, the header's JSON, the body's length and its checksum.
     *
     * @throws IOException naming the file and the first thing wrong
     */
    private static Checked checked(byte[] bytes, Path file) throws IOException {
        int magicEnd = lineEnd(bytes, 0);
        if (magicEnd < 0
                || !new String(bytes, 0, magicEnd, StandardCharsets.US_ASCII).equals(MAGIC)) {
            throw new IOException(
                    file + ": not a vocabulary snapshot (its first line is not \"" + MAGIC + "\")");
        }
        int headerEnd = lineEnd(bytes, magicEnd + 1);
        if (headerEnd < 0) {
            throw new IOException(file + ": the snapshot's header line is cut short");
        }
        JsonNode header;
        try {
            header = JSON.readTree(bytes, magicEnd + 1, headerEnd - magicEnd - 1);
        } catch (IOException e) {
            throw new IOException(file + ": the header is not JSON (" + e.getMessage() + ")", e);
        }
        int bodyStart = headerEnd + 1;
        long bodyBytes = number(header, "body_bytes", file);
        if (bytes.length - bodyStart != bodyBytes) {
            throw new IOException(
                    file
                            + ": the header announces "
                            + bodyBytes
                            + " bytes of entries, the file holds "
                            + (bytes.length - bodyStart)
                            + " (cut short or damaged)");
        }
        CRC32 crc = new CRC32();
        crc.update(bytes, bodyStart, bytes.length - bodyStart);
        if (crc.getValue() != number(header, "crc32", file)) {
            throw new IOException(file + ": the entries do not match the header's crc32 (damaged)");
        }
        return new Checked(header, bodyStart, bodyBytes);
    }

    private static int lineEnd(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static long number(JsonNode node, String field, Object where) throws IOException {
        JsonNode v = node.get(field);
        if (v == null || !v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0) {
            throw new IOException(where + ": \"" + field + "\" is not a non-negative integer");
        }
        return v.asLong();
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || !v.isTextual() ? "" : v.asText();
    }
}
