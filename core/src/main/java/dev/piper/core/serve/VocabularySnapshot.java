package dev.piper.core.serve;

import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The vocabularies of a pipeline's sparse columns at one position, frozen: per column, the key each
 * index holds. Read from a batch output's {@code vocab/} files ({@link #read}), built from the
 * vocabulary topic up to a position ({@link #of}, {@code piper vocab snapshot}), or loaded from a
 * snapshot file ({@link #load}, the format in {@link SnapshotFile}). A serving process turns
 * requests into rows with it ({@link Transform}) and never grows it.
 *
 * <p>Immutable once made; safe to share between threads.
 */
public final class VocabularySnapshot {

    /**
     * One sparse column of a snapshot.
     *
     * @param name its name, {@code C1}..
     * @param epoch the vocabulary epoch the entries belong to
     * @param oovBuckets its OOV buckets: the index of its first entry
     * @param position the vocabulary's position the snapshot holds (the assignments an evicting
     *     column had made, else its entries), or -1 for the end of a batch output
     */
    public record Column(String name, int epoch, int oovBuckets, long position) {}

    private final String pipeline;
    private final String source;
    private final List<Column> columns;
    private final Long2IntOpenHashMap[] indices;
    private final int[] tableSizes;

    private VocabularySnapshot(
            String pipeline, String source, List<Column> columns, Long2IntOpenHashMap[] indices) {
        this.pipeline = pipeline;
        this.source = source;
        this.columns = List.copyOf(columns);
        this.indices = indices;
        this.tableSizes = new int[indices.length];
        for (int c = 0; c < indices.length; c++) {
            int top = columns.get(c).oovBuckets();
            for (int index : indices[c].values()) {
                top = Math.max(top, index + 1);
            }
            tableSizes[c] = top;
        }
    }

    /**
     * A snapshot of the given entries: per column, {@code indices[c][i]} holds {@code keys[c][i]}.
     *
     * @param pipeline the pipeline the vocabularies belong to, {@code name/version}, or empty
     * @param source where they were read, for people (a topic and position, a directory)
     * @throws IllegalArgumentException naming the column of an index below its OOV buckets, an
     *     index or a key held twice
     */
    public static VocabularySnapshot of(
            String pipeline, String source, List<Column> columns, int[][] indices, long[][] keys) {
        if (indices.length != columns.size() || keys.length != columns.size()) {
            throw new IllegalArgumentException(
                    "entries of " + indices.length + " columns for " + columns.size());
        }
        Long2IntOpenHashMap[] maps = new Long2IntOpenHashMap[columns.size()];
        for (int c = 0; c < maps.length; c++) {
            Column col = columns.get(c);
            if (indices[c].length != keys[c].length) {
                throw new IllegalArgumentException(
                        col.name() + ": " + indices[c].length + " indices, " + keys[c].length);
            }
            maps[c] = new Long2IntOpenHashMap(keys[c].length);
            maps[c].defaultReturnValue(-1);
            int[] sorted = indices[c].clone();
            Arrays.sort(sorted);
            for (int i = 1; i < sorted.length; i++) {
                if (sorted[i] == sorted[i - 1]) {
                    throw new IllegalArgumentException(
                            col.name() + ": index " + sorted[i] + " holds two keys");
                }
            }
            for (int i = 0; i < keys[c].length; i++) {
                int index = indices[c][i];
                if (index < col.oovBuckets()) {
                    throw new IllegalArgumentException(
                            col.name()
                                    + ": index "
                                    + index
                                    + " is below the column's first entry, "
                                    + col.oovBuckets());
                }
                int before = maps[c].put(keys[c][i], index);
                if (before >= 0) {
                    throw new IllegalArgumentException(
                            col.name()
                                    + ": key "
                                    + Long.toUnsignedString(keys[c][i])
                                    + " at indices "
                                    + before
                                    + " and "
                                    + index);
                }
            }
        }
        return new VocabularySnapshot(pipeline, source, columns, maps);
    }

    /**
     * Reads the vocabularies of {@code program}'s sparse columns from an output directory's {@code
     * vocab/} as they stand at its end (each column's epoch: {@code C3.tsv} for epoch 0, {@code
     * C3.epoch1.tsv} for epoch 1; {@code index<TAB>key[<TAB>string]}, the index absolute: OOV
     * buckets first).
     *
     * @throws IOException naming the file and line of a vocabulary that cannot be read
     */
    public static VocabularySnapshot read(Path output, ColumnProgram program) throws IOException {
        RowLayout layout = program.layout();
        int sparse = layout.sparse();
        Column[] columns = new Column[sparse];
        int[][] indices = new int[sparse][];
        long[][] keys = new long[sparse][];
        for (int c = 0; c < sparse; c++) {
            String name = layout.fieldName(layout.sparseField(c));
            int epoch = program.epoch(c);
            columns[c] = new Column(name, epoch, program.vocabPolicy(c).firstIndex(), -1);
            Path file =
                    output.resolve("vocab")
                            .resolve(name + (epoch == 0 ? "" : ".epoch" + epoch) + ".tsv");
            Entries entries = new Entries(columns[c].oovBuckets());
            try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                String line;
                long n = 0;
                while ((line = in.readLine()) != null) {
                    n++;
                    entries.add(line, file, n);
                }
            } catch (NoSuchFileException e) {
                throw new IOException(
                        file
                                + ": no such vocabulary file; is "
                                + output
                                + " an output of this spec?",
                        e);
            }
            indices[c] = Arrays.copyOf(entries.indices, entries.size);
            keys[c] = Arrays.copyOf(entries.keys, entries.size);
        }
        try {
            return of("", output.toString(), List.of(columns), indices, keys);
        } catch (IllegalArgumentException e) {
            throw new IOException(output.resolve("vocab") + ": " + e.getMessage(), e);
        }
    }

    /** A vocabulary file's lines, read into growing arrays. */
    private static final class Entries {
        final int first;
        int[] indices = new int[1024];
        long[] keys = new long[1024];
        int size;

        Entries(int first) {
            this.first = first;
        }

        void add(String line, Path file, long n) throws IOException {
            int tab = line.indexOf('\t');
            int end = line.indexOf('\t', tab + 1);
            try {
                int index = Integer.parseInt(line.substring(0, tab));
                long key =
                        Long.parseUnsignedLong(
                                line.substring(tab + 1, end < 0 ? line.length() : end));
                if (index < first) {
                    throw new NumberFormatException(
                            "index " + index + " is below the column's first, " + first);
                }
                if (size == indices.length) {
                    indices = Arrays.copyOf(indices, 2 * size);
                    keys = Arrays.copyOf(keys, 2 * size);
                }
                indices[size] = index;
                keys[size++] = key;
            } catch (RuntimeException e) {
                throw new IOException(
                        file + ", line " + n + ": not index<TAB>key (" + e.getMessage() + ")", e);
            }
        }
    }

    /** This snapshot, naming {@code pipeline} ({@code name/version}) as the one it belongs to. */
    public VocabularySnapshot withPipeline(String pipeline) {
        return new VocabularySnapshot(pipeline, source, columns, indices);
    }

    /**
     * Loads a snapshot file ({@link #write}).
     *
     * @throws IOException naming the file and what is wrong with it
     */
    public static VocabularySnapshot load(Path file) throws IOException {
        return SnapshotFile.read(file);
    }

    /** Writes this snapshot to {@code file}, whole or not at all (a temporary file renamed). */
    public void write(Path file) throws IOException {
        SnapshotFile.write(this, file);
    }

    /**
     * Refuses a snapshot that is not of {@code program}'s sparse columns: another number of them,
     * another name, other OOV buckets (its indices would mean other entries).
     *
     * @throws IllegalArgumentException naming the first column that differs
     */
    public void checkFits(ColumnProgram program) {
        RowLayout layout = program.layout();
        if (columns.size() != layout.sparse()) {
            throw new IllegalArgumentException(
                    "a snapshot of "
                            + columns.size()
                            + " sparse columns for a spec of "
                            + layout.sparse());
        }
        for (int c = 0; c < columns.size(); c++) {
            Column col = columns.get(c);
            String name = layout.fieldName(layout.sparseField(c));
            int buckets = program.vocabPolicy(c).firstIndex();
            if (!col.name().equals(name) || col.oovBuckets() != buckets) {
                throw new IllegalArgumentException(
                        "sparse column "
                                + (c + 1)
                                + " of the snapshot is "
                                + col.name()
                                + " with "
                                + col.oovBuckets()
                                + " OOV buckets; the spec's is "
                                + name
                                + " with "
                                + buckets);
            }
        }
    }

    /** The index key {@code key} has in sparse column {@code c}, or -1 if it has none. */
    public int indexOf(int c, long key) {
        return indices[c].get(key);
    }

    /**
     * One past sparse column {@code c}'s largest index at this position (its OOV buckets and
     * entries): the <em>reserved index</em> that {@link Transform} gives a key the snapshot lacks
     * in a column without OOV buckets.
     */
    public int reservedIndex(int c) {
        return tableSizes[c];
    }

    /**
     * The rows an embedding table of sparse column {@code c} needs to serve every index the
     * transform can give at this position: its OOV buckets and entries, and, in a column without
     * OOV buckets, one more for the {@linkplain #reservedIndex reserved index}.
     */
    public int tableSize(int c) {
        return tableSizes[c] + (hasReservedIndex(c) ? 1 : 0);
    }

    /**
     * Whether sparse column {@code c} gives a key the snapshot lacks its {@linkplain #reservedIndex
     * reserved index}: it has no OOV buckets, which take such keys otherwise.
     */
    public boolean hasReservedIndex(int c) {
        return columns.get(c).oovBuckets() == 0;
    }

    /** The entries sparse column {@code c} holds. */
    public int entries(int c) {
        return indices[c].size();
    }

    /** The number of sparse columns. */
    public int columns() {
        return indices.length;
    }

    /** The sparse columns, in order. */
    public List<Column> columnList() {
        return columns;
    }

    /** The pipeline the vocabularies belong to, {@code name/version}, or empty where unknown. */
    public String pipeline() {
        return pipeline;
    }

    /** Where the vocabularies were read, for people. */
    public String source() {
        return source;
    }

    /**
     * Sparse column {@code c}'s entries in index order: fills {@code indices} and {@code keys}
     * (each {@link #entries}{@code (c)} long).
     */
    void entriesInIndexOrder(int c, int[] indices, long[] keys) {
        int first = columns.get(c).oovBuckets();
        long[] keyAt = new long[tableSizes[c] - first];
        java.util.BitSet held = new java.util.BitSet(keyAt.length);
        for (var e : this.indices[c].long2IntEntrySet()) {
            keyAt[e.getIntValue() - first] = e.getLongKey();
            held.set(e.getIntValue() - first);
        }
        int n = 0;
        for (int i = held.nextSetBit(0); i >= 0; i = held.nextSetBit(i + 1)) {
            indices[n] = first + i;
            keys[n++] = keyAt[i];
        }
    }
}
