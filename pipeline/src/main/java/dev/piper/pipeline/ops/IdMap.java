package dev.piper.pipeline.ops;

import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * RAP's Mapid: maps a sparse id to a fixed value through an external table. An id the table holds
 * becomes its value; any other id becomes {@code fallback} if one is given, else stays as it is.
 *
 * <p>The table is a file of {@code id<TAB>value} lines, both unsigned decimals below 2^64 (the
 * layout of {@code vocab/Cj.tsv} read backwards: a vocabulary file maps an index to a key, so a
 * table that maps keys to indices is such a file with its columns swapped). An id may appear once.
 * It is held in a fastutil {@code Long2LongOpenHashMap} (about 24 bytes an entry at its default
 * load).
 */
public final class IdMap {

    private final Long2LongOpenHashMap table;
    private final boolean hasFallback;
    private final long fallback;

    /**
     * @param table ids to values
     * @param fallback the value of an id the table does not hold, or null to keep such an id
     */
    public IdMap(Long2LongOpenHashMap table, Long fallback) {
        this.table = table;
        this.hasFallback = fallback != null;
        this.fallback = fallback == null ? 0 : fallback;
    }

    /** The value of {@code id}. */
    public long map(long id) {
        return table.getOrDefault(id, hasFallback ? fallback : id);
    }

    /** The number of ids in the table. */
    public int size() {
        return table.size();
    }

    /** Reads a table file ({@code id<TAB>value} lines). */
    public static Long2LongOpenHashMap read(Path file) throws IOException {
        TableFiles.requireFile(file, "mapid file");
        Long2LongOpenHashMap table = new Long2LongOpenHashMap();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long lineNo = 0;
            while ((line = in.readLine()) != null) {
                lineNo++;
                String[] f = TableFiles.fields(file, lineNo, line, "id<TAB>value");
                long id = TableFiles.unsigned(file, lineNo, f[0], "id");
                long value = TableFiles.unsigned(file, lineNo, f[1], "value");
                if (table.containsKey(id)) {
                    throw TableFiles.bad(
                            file,
                            lineNo,
                            "repeats id " + Long.toUnsignedString(id) + " (an id may appear once)");
                }
                table.put(id, value);
            }
        }
        table.trim();
        return table;
    }
}
