package dev.piper.output;

import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * File names of the batch output directory (the contract in {@code docs/SEMANTICS.md}). Each file
 * or directory a run leaves there is named here through {@link #entry}, and that is the list of
 * them ({@link #entries()}) that replacing an output removes: there is no list kept beside.
 */
public final class OutputLayout {

    /** The directory's entries, as {@link #entry} names them; declared before every name. */
    private static final Set<String> ENTRIES = new TreeSet<>();

    /**
     * Names {@code path}, a file or directory of the output directory or one under such a
     * directory, and makes its first segment one of {@link #entries()}.
     */
    private static String entry(String path) {
        ENTRIES.add(path.split("/", 2)[0]);
        return path;
    }

    public static final String ROWS = entry("rows.bin");
    public static final String ROWS_PARQUET = entry("rows.parquet");

    /** Sharded output ({@link RowShards}): the rows files and their manifest, instead of ROWS. */
    public static final String ROWS_DIR = entry("rows");

    /** The manifest of a sharded output's rows files, in row order. */
    public static final String ROWS_MANIFEST = ROWS_DIR + "/manifest.json";

    /** The rows file of shard {@code shard} of a sharded output. */
    public static String shardFile(long shard) {
        return String.format("%s/part-%06d.bin", ROWS_DIR, shard);
    }

    public static final String VOCAB_DIR = entry("vocab");
    public static final String DEAD_LETTERS = entry("dead-letters.jsonl");

    /** Each row's event time ({@link EventTimesFile}), for a spec with {@code input.timestamp}. */
    public static final String EVENT_TIMES = entry("event_times.bin");

    public static final String METADATA = entry("metadata.json");

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
    public static final String LISTS_DIR = entry("lists");

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
    public static final String HOTLINE_DIR = entry("hotline");

    /** One byte per row of the rows file: 1 if the row is popular, else 0. */
    public static final String HOTLINE_POPULAR = HOTLINE_DIR + "/popular.bin";

    /** One JSON object per window: its first row, rows and hot set. */
    public static final String HOTLINE_HOT_SETS = HOTLINE_DIR + "/hot-sets.jsonl";

    /** {@code piper consume}'s list of the row ranges and the spec version each came from. */
    public static final String VERSIONS = entry("versions.tsv");

    /** The whole run's cost report (the last line of {@link #REPORT_INTERVALS}, pretty-printed). */
    public static final String REPORT = entry("report.json");

    /** Every cost report in order, one JSON object per line: the intervals, then the run's. */
    public static final String REPORT_INTERVALS = entry("reports.jsonl");

    /** The whole run's cost report as a self-contained page (inline SVG, no network). */
    public static final String REPORT_HTML = entry("report.html");

    /**
     * Every entry a run leaves in an output directory: replacing a previous output removes only
     * these, and a directory holding anything else is never replaced.
     */
    public static Set<String> entries() {
        return Collections.unmodifiableSet(ENTRIES);
    }

    /**
     * The first entry of directory {@code dir}, in name order, that is not one of {@link
     * #entries()} (a file a run did not write, which replacing the directory would lose), if any.
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
