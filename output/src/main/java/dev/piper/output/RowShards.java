package dev.piper.output;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Sharded output: the rows in several files written in parallel instead of one {@code rows.bin},
 * each file the rows of {@code blocksPerShard} consecutive input blocks ({@code
 * rows/part-000000.bin}, ...), and a manifest ({@code rows/manifest.json}) listing them in row
 * order. The files concatenated in manifest order are byte for byte the single {@code rows.bin} of
 * the same input: a shard's contents depend on the input and the block size, never on the
 * parallelism or on which task wrote it (docs/SEMANTICS.md, "Sharded output").
 */
public final class RowShards {

    private RowShards() {}

    /** The manifest's format name. */
    public static final String FORMAT = "piper-rows-shards";

    /** The shard of block {@code seq}. */
    public static long shardOf(long seq, long blocksPerShard) {
        return seq / blocksPerShard;
    }

    /**
     * The key by which the concatenation of a sharded run is partitioned: distinct for every block
     * ({@code seq} in the high 32 bits), and with {@link Long#hashCode()} equal to the block's
     * shard (the low 32 bits are {@code seq ^ shard}), so that Flink places every block of a shard
     * in the same key group, hence on the same task, which writes the shard's file, while each
     * block keeps state of its own.
     *
     * @throws IllegalArgumentException past 2^31 blocks
     */
    public static long concatenationKey(long seq, long blocksPerShard) {
        if (seq < 0 || seq > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "block " + seq + ": sharded output numbers at most 2^31 blocks");
        }
        long shard = shardOf(seq, blocksPerShard);
        return (seq << 32) | ((seq ^ shard) & 0xffffffffL);
    }

    /** One rows file of a sharded output. */
    public record Shard(String file, long firstRow, long rows, long bytes) {}

    /**
     * Writes the manifest of the shards whose row counts are {@code rowsPerShard} (in shard order)
     * into output directory {@code dir}, after checking that each shard's file holds exactly its
     * rows.
     *
     * @throws IOException naming the shard whose file is missing or of the wrong size
     */
    public static List<Shard> writeManifest(Path dir, int rowBytes, long[] rowsPerShard)
            throws IOException {
        List<Shard> shards = new ArrayList<>();
        long first = 0;
        for (int s = 0; s < rowsPerShard.length; s++) {
            String file = OutputLayout.shardFile(s);
            Path path = dir.resolve(file);
            long bytes = rowsPerShard[s] * rowBytes;
            if (!Files.isRegularFile(path)) {
                throw new IOException(
                        "sharded output: "
                                + path
                                + " is missing (shard "
                                + s
                                + ", its writer failed?)");
            }
            long size = Files.size(path);
            if (size != bytes) {
                throw new IOException(
                        "sharded output: "
                                + path
                                + " holds "
                                + size
                                + " bytes, but its "
                                + rowsPerShard[s]
                                + " rows take "
                                + bytes);
            }
            shards.add(
                    new Shard(
                            file.substring(OutputLayout.ROWS_DIR.length() + 1),
                            first,
                            rowsPerShard[s],
                            bytes));
            first += rowsPerShard[s];
        }
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = json.createObjectNode();
        root.put("format", FORMAT);
        root.put("format_version", 1);
        root.put("row_bytes", rowBytes);
        root.put("rows", first);
        ArrayNode list = root.putArray("shards");
        for (Shard s : shards) {
            ObjectNode n = list.addObject();
            n.put("file", s.file());
            n.put("first_row", s.firstRow());
            n.put("rows", s.rows());
            n.put("bytes", s.bytes());
        }
        Files.createDirectories(dir.resolve(OutputLayout.ROWS_DIR));
        Files.write(dir.resolve(OutputLayout.ROWS_MANIFEST), json.writeValueAsBytes(root));
        return shards;
    }

    /**
     * The rows files of sharded output directory {@code dir}, in row order, as its manifest lists
     * them (each checked to exist with its listed size).
     *
     * @throws IOException naming the manifest or the file that does not agree with it
     */
    public static List<Path> files(Path dir) throws IOException {
        Path manifest = dir.resolve(OutputLayout.ROWS_MANIFEST);
        JsonNode root = new ObjectMapper().readTree(manifest.toFile());
        if (root == null || !FORMAT.equals(root.path("format").asText())) {
            throw new IOException(manifest + " is not a " + FORMAT + " manifest");
        }
        List<Path> files = new ArrayList<>();
        for (JsonNode s : root.path("shards")) {
            Path f = dir.resolve(OutputLayout.ROWS_DIR).resolve(s.path("file").asText());
            if (!Files.isRegularFile(f) || Files.size(f) != s.path("bytes").asLong()) {
                throw new IOException(
                        manifest
                                + " lists "
                                + f
                                + " of "
                                + s.path("bytes").asLong()
                                + " bytes; it is not");
            }
            files.add(f);
        }
        return files;
    }
}
