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

/**
 * The vocabularies of a pipeline's sparse columns at one position, frozen: per column, the key each
 * index holds, as a batch output's {@code vocab/} files list them at its end ({@code
 * index<TAB>key[<TAB>string]}, the index absolute: OOV buckets first). A serving process turns
 * requests into rows with it ({@link Transform}) and never grows it.
 *
 * <p>Immutable once read; safe to share between threads.
 */
public final class VocabularySnapshot {

    private final Long2IntOpenHashMap[] indices;
    private final int[] tableSizes;

    private VocabularySnapshot(Long2IntOpenHashMap[] indices, int[] tableSizes) {
        this.indices = indices;
        this.tableSizes = tableSizes;
    }

    /**
     * Reads the vocabularies of {@code program}'s sparse columns from an output directory's {@code
     * vocab/} (each column's epoch: {@code C3.tsv} for epoch 0, {@code C3.epoch1.tsv} for epoch 1).
     *
     * @throws IOException naming the file and line of a vocabulary that cannot be read
     */
    public static VocabularySnapshot read(Path output, ColumnProgram program) throws IOException {
        RowLayout layout = program.layout();
        int sparse = layout.sparse();
        Long2IntOpenHashMap[] indices = new Long2IntOpenHashMap[sparse];
        int[] tableSizes = new int[sparse];
        for (int c = 0; c < sparse; c++) {
            String name = layout.fieldName(layout.labelDenseWidth() + c);
            int epoch = program.epoch(c);
            Path file =
                    output.resolve("vocab")
                            .resolve(name + (epoch == 0 ? "" : ".epoch" + epoch) + ".tsv");
            indices[c] = new Long2IntOpenHashMap();
            indices[c].defaultReturnValue(-1);
            int first = program.vocabPolicy(c).firstIndex();
            int top = first;
            try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                String line;
                long n = 0;
                while ((line = in.readLine()) != null) {
                    n++;
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
                        indices[c].put(key, index);
                        top = Math.max(top, index + 1);
                    } catch (RuntimeException e) {
                        throw new IOException(
                                file
                                        + ", line "
                                        + n
                                        + ": not index<TAB>key ("
                                        + e.getMessage()
                                        + ")",
                                e);
                    }
                }
            } catch (NoSuchFileException e) {
                throw new IOException(
                        file
                                + ": no such vocabulary file; is "
                                + output
                                + " an output of this spec?",
                        e);
            }
            tableSizes[c] = top;
        }
        return new VocabularySnapshot(indices, tableSizes);
    }

    /** The index key {@code key} has in sparse column {@code c}, or -1 if it has none. */
    public int indexOf(int c, long key) {
        return indices[c].get(key);
    }

    /**
     * The size of sparse column {@code c}'s table at this position: its OOV buckets and entries,
     * one past the largest index.
     */
    public int tableSize(int c) {
        return tableSizes[c];
    }

    /** The number of sparse columns. */
    public int columns() {
        return indices.length;
    }
}
