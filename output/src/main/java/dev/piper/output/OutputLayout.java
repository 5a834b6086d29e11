package dev.piper.output;

import dev.piper.output.report.ReportFiles;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/** File names of the batch output directory (the contract in {@code docs/SEMANTICS.md}). */
public final class OutputLayout {

    public static final String ROWS = "rows.bin";
    public static final String ROWS_PARQUET = "rows.parquet";

    /** Sharded output ({@link RowShards}): the rows files and their manifest, instead of ROWS. */
    public static final String ROWS_DIR = "rows";

    /** The manifest of a sharded output's rows files, in row order. */
    public static final String ROWS_MANIFEST = ROWS_DIR + "/manifest.json";

    /** The rows file of shard {@code shard} of a sharded output. */
    public static String shardFile(long shard) {
        return String.format("%s/part-%06d.bin", ROWS_DIR, shard);
    }

    public static final String VOCAB_DIR = "vocab";
    public static final String DEAD_LETTERS = "dead-letters.jsonl";

    /** Each row's event time ({@link EventTimesFile}), for a spec with {@code input.timestamp}. */
    public static final String EVENT_TIMES = "event_times.bin";

    public static final String METADATA = "metadata.json";

    /**
     * Name of the output format in {@code metadata.json} when the rows are DLRM's Criteo rows: 40
     * int32 (label, I1..I13, C1..C26), no list or generated columns.
     */
    public static final String FORMAT = "piper-dlrm-criteo";

    /**
     * Name of the output format of every other row layout (a spec's: other column counts, lists,
     * generated, onehot or float32 columns); {@code metadata.json}'s {@code row_layout} says what a
     * row holds.
     */
    public static final String FORMAT_ROWS = "piper-rows";

    /** Version of the output format; bumped on any change of the files' layout. */
    public static final int FORMAT_VERSION = 1;

    private OutputLayout() {}

    /** The output format of {@code program}'s rows: {@link #FORMAT} or {@link #FORMAT_ROWS}. */
    public static String format(ColumnProgram program) {
        RowLayout layout = program.layout();
        boolean criteo =
                layout.dense() == CriteoLayout.DENSE
                        && layout.sparse() == CriteoLayout.SPARSE
                        && layout.generated() == 0
                        && !layout.hasLists()
                        && program.rowBytes() == CriteoLayout.ROW_BYTES
                        && program.float32Columns().isEmpty();
        return criteo ? FORMAT : FORMAT_ROWS;
    }

    /** Path of column {@code c}'s vocabulary file relative to the output directory. */
    public static String vocabFile(int c) {
        return VOCAB_DIR + "/" + CriteoLayout.sparseName(c) + ".tsv";
    }

    /**
     * The vocabulary file of sparse column {@code c} (0 for C1) in vocabulary epoch {@code epoch}:
     * {@link #vocabFile(int)} for epoch 0, {@code vocab/C3.epoch1.tsv} for later ones.
     */
    public static String vocabFile(int c, int epoch) {
        return epoch == 0
                ? vocabFile(c)
                : VOCAB_DIR + "/" + CriteoLayout.sparseName(c) + ".epoch" + epoch + ".tsv";
    }

    /**
     * The assignments of sparse column {@code c}'s evicting vocabulary: one line per assignment, in
     * order, {@code row<TAB>index<TAB>key<TAB>evicted key} (the evicted key empty for an index no
     * key held before): from output row {@code row} on, {@code index} names {@code key}.
     */
    public static String assignmentsFile(int c) {
        return VOCAB_DIR + "/" + CriteoLayout.sparseName(c) + ".assignments.tsv";
    }

    /** The directory of list columns' files. */
    public static final String LISTS_DIR = "lists";

    /**
     * List column {@code c}'s lengths: one little-endian int32 per row, the number of its ids (a
     * KeyedJaggedTensor's {@code lengths}).
     */
    public static String listLengthsFile(int c) {
        return LISTS_DIR + "/" + CriteoLayout.sparseName(c) + ".lengths";
    }

    /**
     * List column {@code c}'s indices: every row's ids' vocabulary indices, rows in order, as
     * little-endian int32 (a KeyedJaggedTensor's {@code values}).
     */
    public static String listValuesFile(int c) {
        return LISTS_DIR + "/" + CriteoLayout.sparseName(c) + ".values";
    }

    /** The directory of Hotline's split ({@code docs/HOTLINE.md}). */
    public static final String HOTLINE_DIR = "hotline";

    /** One byte per row of the rows file: 1 if the row is popular, else 0. */
    public static final String HOTLINE_POPULAR = HOTLINE_DIR + "/popular.bin";

    /** One JSON object per window: its first row, rows and hot set. */
    public static final String HOTLINE_HOT_SETS = HOTLINE_DIR + "/hot-sets.jsonl";

    /** {@code piper consume}'s list of the row ranges and the spec version each came from. */
    public static final String VERSIONS = "versions.tsv";

    /**
     * Every entry a run leaves in an output directory, the cost report's files ({@link
     * ReportFiles}) among them: replacing a previous output removes only these, and a directory
     * holding anything else is never replaced.
     */
    public static final Set<String> ENTRIES =
            Set.of(
                    ROWS,
                    ROWS_PARQUET,
                    ROWS_DIR,
                    VOCAB_DIR,
                    LISTS_DIR,
                    HOTLINE_DIR,
                    DEAD_LETTERS,
                    EVENT_TIMES,
                    METADATA,
                    VERSIONS,
                    ReportFiles.REPORT,
                    ReportFiles.INTERVALS,
                    ReportFiles.HTML);

    /**
     * The first entry of directory {@code dir}, in name order, that is not one of {@link #ENTRIES}
     * (a file a run did not write, which replacing the directory would lose), if any.
     */
    public static Optional<String> firstForeignEntry(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString())
                    .filter(name -> !ENTRIES.contains(name))
                    .sorted()
                    .findFirst();
        }
    }
}
