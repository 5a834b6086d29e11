package dev.piper.output;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.Assignments;
import dev.piper.core.block.DeadLetter;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes the batch output directory from assembled blocks that arrive in input order: {@code
 * rows.bin} (or {@code rows.parquet}, {@link RowsFormat}), {@code vocab/C1.tsv}..{@code C26.tsv},
 * {@code dead-letters.jsonl} and, on {@link #finish()}, {@code metadata.json}.
 *
 * <p>It checks the invariants as it goes, so that a bug can never produce a plausible but wrong
 * output: blocks come in sequence, every line of a block is a row or a dead letter, and vocabulary
 * additions continue exactly where the column's file ends.
 */
public final class DlrmOutputWriter implements Closeable {

    private static final int BUFFER = 1 << 20;

    /**
     * Rows written so far, by output directory, for the progress lines of a run in this JVM ({@code
     * rows.parquet} cannot be sized from outside the way {@code rows.bin} can). A count stays after
     * its writer finishes and closes, until the next writer of the same directory starts: the job
     * runs on while the last files close (seconds for a large {@code rows.parquet}), and a count
     * that dropped to 0 then read as a negative rate. One small entry per output directory.
     */
    private static final Map<Path, AtomicLong> PROGRESS = new ConcurrentHashMap<>();

    private final Path dir;
    private final AtomicLong progress = new AtomicLong(); // this writer's, in PROGRESS
    private final DecodeOptions options;
    private final RowsFormat format;
    private final RowsFile rows; // null for a sharded output, whose shards write the rows
    private final long blocksPerShard; // sharded output (RowShards): > 0
    private long[] shardRows = new long[0]; // sharded: rows per shard so far
    private final OutputStream[] vocab;
    private final DeadLetterFile dead;
    private final HotlineFiles hotline; // or null: no split
    private final EventTimesFile eventTimes; // or null: the rows carry no event time

    /**
     * Per list column of the layout, in column order: its lengths and its indices, written around
     * the page cache as rows.bin is (RM3's list files are 3.4 KB a row, twice rows.bin: copying
     * them into the page cache was 64% of the sink thread, docs/PERFORMANCE.md).
     */
    private final DirectFileOutput[] listLengths;

    private final DirectFileOutput[] listValues;

    /** The buffer of each list file: 84 of them in RM3, so 64 KiB rather than rows.bin's 4 MiB. */
    private static final int LIST_BUFFER_BYTES = 64 << 10;

    /** Per column, the index the next added key gets: OOV buckets plus entries written. */
    private final int[] nextIndex;

    /** Per evicting column: its assignments file; null for the others. */
    private final OutputStream[] assignments;

    /** Per evicting column: its assignments replayed, so the keys its indices hold; else null. */
    private final AssignmentLog[] logs;

    private JoinedInput joined; // or null: the input is not the label join's
    private long undecoded; // joined rows the decoder refused

    private long nextSeq;
    private long nextLine = 1;
    private long linesRead;
    private long rowsWritten;
    private boolean finished;

    /**
     * Writes into {@code dir}; its progress is known by {@code output}, the directory the run
     * publishes ({@link #rowsWrittenSoFar(Path)}).
     */
    public DlrmOutputWriter(Path dir, Path output, DecodeOptions options, RowsFormat format)
            throws IOException {
        this(dir, output, options, format, null);
    }

    /**
     * As above, also writing Hotline's split of the rows ({@link HotlineFiles}) when {@code
     * hotline} is not null: every block must then carry one.
     */
    public DlrmOutputWriter(
            Path dir,
            Path output,
            DecodeOptions options,
            RowsFormat format,
            HotlineSettings hotline)
            throws IOException {
        this(dir, output, options, format, hotline, 0);
    }

    /**
     * As above; with {@code blocksPerShard > 0} the rows are a sharded output's ({@link
     * RowShards}): written by {@code ShardWriterOperator}s (in {@code connectors}) into {@code
     * dir}, and the blocks arrive here without their bytes; this writer writes the manifest,
     * checking every shard's file against the rows its blocks counted.
     */
    public DlrmOutputWriter(
            Path dir,
            Path output,
            DecodeOptions options,
            RowsFormat format,
            HotlineSettings hotline,
            long blocksPerShard)
            throws IOException {
        if (blocksPerShard > 0 && (format != RowsFormat.DLRM_ROWS || hotline != null)) {
            throw new IllegalArgumentException(
                    "sharded output writes DLRM rows without Hotline's split");
        }
        this.blocksPerShard = blocksPerShard;
        this.dir = dir;
        this.options = options;
        this.format = format;
        PROGRESS.put(OutputCommit.real(output), progress);
        Files.createDirectories(dir.resolve(OutputLayout.VOCAB_DIR));
        rows =
                blocksPerShard > 0
                        ? null
                        : format.open(dir.resolve(format.file()), options.program());
        RowLayout layout = options.program().layout();
        vocab = new OutputStream[layout.sparse()];
        nextIndex = new int[layout.sparse()];
        assignments = new OutputStream[layout.sparse()];
        logs = new AssignmentLog[layout.sparse()];
        for (int c = 0; c < layout.sparse(); c++) {
            vocab[c] = open(dir.resolve(OutputLayout.vocabFile(c)));
            nextIndex[c] = options.program().vocabPolicy(c).firstIndex();
            if (options.program().vocabPolicy(c).evicts()) {
                assignments[c] = open(dir.resolve(OutputLayout.assignmentsFile(c)));
                logs[c] =
                        new AssignmentLog(
                                CriteoLayout.sparseName(c),
                                options.program().vocabPolicy(c).firstIndex(),
                                assignments[c]);
            }
        }
        dead = new DeadLetterFile(dir.resolve(OutputLayout.DEAD_LETTERS));
        this.hotline = hotline == null ? null : new HotlineFiles(dir, hotline);
        this.eventTimes = eventTime(options) == null ? null : new EventTimesFile(dir);
        int lists = format.listsInRows() ? 0 : layout.listColumns().size();
        listLengths = new DirectFileOutput[lists];
        listValues = new DirectFileOutput[lists];
        if (lists > 0) {
            Files.createDirectories(dir.resolve(OutputLayout.LISTS_DIR));
        }
        for (int l = 0; l < lists; l++) {
            int c = layout.listColumns().get(l);
            listLengths[l] =
                    new DirectFileOutput(
                            dir.resolve(OutputLayout.listLengthsFile(c)), true, LIST_BUFFER_BYTES);
            listValues[l] =
                    new DirectFileOutput(
                            dir.resolve(OutputLayout.listValuesFile(c)), true, LIST_BUFFER_BYTES);
        }
    }

    /** The event time the rows carry, or null. */
    private static EventTime eventTime(DecodeOptions options) {
        return options.events() == null ? null : options.events().time();
    }

    private static OutputStream open(Path file) throws IOException {
        return new BufferedOutputStream(NamedOutput.open(file), BUFFER);
    }

    /**
     * Rows written so far for output directory {@code dir} by the latest writer in this JVM (an
     * embedded run's progress; all of them once it finished), or 0 if none has written it.
     */
    public static long rowsWrittenSoFar(Path dir) {
        AtomicLong n = PROGRESS.get(OutputCommit.real(dir));
        return n == null ? 0 : n.get();
    }

    /** Appends one block; blocks must come in sequence order. */
    public void write(AssembledBlock block) throws IOException {
        if (finished) {
            throw new IllegalStateException("writer already finished");
        }
        if (block.seq() != nextSeq) {
            throw new IllegalStateException(
                    "block " + block.seq() + " arrived, expected " + nextSeq);
        }
        if (block.rows() + block.deadLetters().length != block.lines()) {
            throw new IllegalStateException(
                    "block "
                            + block.seq()
                            + ": "
                            + block.lines()
                            + " lines but "
                            + block.rows()
                            + " rows and "
                            + block.deadLetters().length
                            + " dead letters");
        }
        if (blocksPerShard > 0) {
            int shard = Math.toIntExact(RowShards.shardOf(block.seq(), blocksPerShard));
            if (shard >= shardRows.length) {
                shardRows = java.util.Arrays.copyOf(shardRows, shard + 1);
            }
            shardRows[shard] += block.rows();
        } else {
            rows.write(block.rowBytes(), block.rows(), block.listOffsets(), block.listIndices());
        }
        for (DeadLetter d : block.deadLetters()) {
            if (joined == null) {
                dead.write(d, nextLine + d.lineInBlock());
            } else {
                deadJoinedRow(d);
            }
        }
        if (hotline != null) {
            hotline.write(block.split(), block.rows(), "block " + block.seq());
        }
        if (eventTimes != null) {
            eventTimes.write(block.eventTimes(), block.rows(), "block " + block.seq());
        }
        for (int l = 0; l < listLengths.length; l++) {
            int[] offsets = block.listOffsets()[l];
            int rows = block.rows();
            ByteBuffer lengths = ByteBuffer.allocate(rows * Integer.BYTES);
            lengths.order(ByteOrder.LITTLE_ENDIAN);
            for (int r = 0; r < rows; r++) {
                lengths.putInt(offsets[r + 1] - offsets[r]);
            }
            listLengths[l].write(lengths.array());
            ByteBuffer values = ByteBuffer.allocate((offsets[rows] - offsets[0]) * Integer.BYTES);
            values.order(ByteOrder.LITTLE_ENDIAN)
                    .asIntBuffer()
                    .put(block.listIndices()[l], offsets[0], offsets[rows] - offsets[0]);
            listValues[l].write(values.array());
        }
        for (int c = 0; c < vocab.length; c++) {
            if (assignments[c] != null) {
                appendAssignments(c, block);
            } else {
                appendVocab(c, block);
            }
        }
        nextSeq++;
        nextLine += block.lines();
        linesRead += block.lines();
        rowsWritten += block.rows();
        progress.set(rowsWritten);
    }

    /**
     * Column {@code c}'s new entries of {@code block}: {@code index<TAB>key}, and {@code
     * <TAB>string} after a key with an original string ({@link NameText}).
     */
    private void appendVocab(int c, AssembledBlock block) throws IOException {
        int firstNew = block.firstNewIndex()[c];
        long[] keys = block.newKeys()[c];
        if (firstNew != nextIndex[c]) {
            throw new IllegalStateException(
                    CriteoLayout.sparseName(c)
                            + ": new entries start at index "
                            + firstNew
                            + " but the vocabulary file continues at "
                            + nextIndex[c]);
        }
        OutputStream out = vocab[c];
        int index = firstNew;
        StringBuilder line = new StringBuilder(48);
        for (int i = 0; i < keys.length; i++) {
            line.setLength(0);
            line.append(index).append('\t').append(Long.toUnsignedString(keys[i]));
            String name = block.newName(c, i);
            if (name != null) {
                NameText.append(line.append('\t'), name);
            }
            line.append('\n');
            out.write(line.toString().getBytes(StandardCharsets.UTF_8));
            index++;
        }
        nextIndex[c] = index;
    }

    /**
     * An evicting column's assignments of one block, each at its output row; the vocabulary file is
     * written at the end, from the keys the indices then hold.
     */
    private void appendAssignments(int c, AssembledBlock block) throws IOException {
        Assignments a = block.assignments() == null ? null : block.assignments()[c];
        if (a == null) {
            throw new IllegalStateException(
                    CriteoLayout.sparseName(c)
                            + ": block "
                            + block.seq()
                            + " has no assignments, but the column's vocabulary evicts");
        }
        AssignmentLog log = logs[c];
        if (a.first() != log.next()) {
            throw new IllegalStateException(
                    CriteoLayout.sparseName(c)
                            + ": block "
                            + block.seq()
                            + " starts at assignment "
                            + a.first()
                            + " but the assignments file continues at "
                            + log.next());
        }
        for (int i = 0; i < a.size(); i++) {
            log.append(
                    a.first() + i,
                    rowsWritten + a.rows()[i],
                    a.indices()[i],
                    a.keys()[i],
                    a.reused(i),
                    a.reused(i) ? a.evictedBy(i) : 0,
                    block.newName(c, i));
        }
        nextIndex[c] = options.program().vocabPolicy(c).firstIndex() + log.held();
    }

    /**
     * The input is the label join's rows ({@code preprocess} with a spec's {@code labels}): its
     * dead letters go first, a row the decoder refuses is reported where its impression was read,
     * and {@code metadata.json} counts the join's records ({@link JoinedInput}).
     */
    public void joinedInput(JoinedInput input) throws IOException {
        if (nextSeq > 0 || joined != null) {
            throw new IllegalStateException("the joined input is set before the first block");
        }
        this.joined = input;
        dead.append(
                Path.of(input.deadLetters()),
                input.counts().byReason(),
                input.counts().deadLetters());
    }

    private void deadJoinedRow(DeadLetter d) throws IOException {
        JoinedInput.Origin at = joined.origin(nextLine + d.lineInBlock());
        dead.write(
                new DeadLetter(
                        d.lineInBlock(),
                        at.offset(),
                        d.reason(),
                        d.detail() + " (the impression with its labels)",
                        d.raw(),
                        d.rawTruncated()),
                at.line(),
                "impressions",
                at.file());
        undecoded++;
    }

    /** Flushes every file and writes {@code metadata.json}. */
    public void finish() throws IOException {
        if (finished) {
            return;
        }
        long joinDead = joined == null ? 0 : joined.counts().deadLetters();
        if (linesRead != rowsWritten + dead.count() - joinDead) {
            throw new IllegalStateException(
                    linesRead
                            + " lines read but "
                            + rowsWritten
                            + " rows and "
                            + dead.count()
                            + " dead letters");
        }
        // complete, last partial block (or row group) included, before the metadata says so
        if (blocksPerShard > 0) {
            RowShards.writeManifest(dir, options.program().rowBytes(), shardRows);
        } else {
            rows.finish();
        }
        flushAll();
        writeMetadata();
        finished = true;
    }

    private void flushAll() throws IOException {
        dead.flush();
        if (eventTimes != null) {
            eventTimes.flush();
        }
        if (hotline != null) {
            hotline.finish();
        }
        for (int l = 0; l < listLengths.length; l++) {
            listLengths[l].close(); // complete, last partial block included
            listValues[l].close();
        }
        for (int c = 0; c < vocab.length; c++) {
            if (assignments[c] != null) {
                logs[c].writeMap(vocab[c]);
                assignments[c].flush();
            }
            vocab[c].flush();
        }
    }

    private void writeMetadata() throws IOException {
        int sparse = options.program().layout().sparse();
        OutputMetadata.Vocab[] vocabs = new OutputMetadata.Vocab[sparse];
        for (int c = 0; c < sparse; c++) {
            int entries = nextIndex[c] - options.program().vocabPolicy(c).firstIndex();
            vocabs[c] =
                    logs[c] == null
                            ? new OutputMetadata.Vocab(entries, 0, 0)
                            : new OutputMetadata.Vocab(
                                    entries, logs[c].next(), logs[c].evictions());
        }
        ObjectNode root =
                OutputMetadata.describe(
                        options,
                        format,
                        new OutputMetadata.Counts(
                                joined == null
                                        ? linesRead
                                        : joined.counts().impressions() + joined.counts().actions(),
                                rowsWritten,
                                dead.count(),
                                dead.byReason()),
                        this::describeRowsFile,
                        vocabs);
        if (joined != null) {
            joined.describe(root, undecoded);
        }
        if (hotline != null) {
            hotline.describe(root);
        }
        if (eventTimes != null) {
            eventTimes.describe(root, eventTime(options));
        }
        OutputMetadata.write(dir, root);
    }

    private void describeRowsFile(ObjectNode root) {
        if (blocksPerShard > 0) {
            // the rows files concatenated in the manifest's order are the single rows.bin
            root.put("rows_file", OutputLayout.ROWS_MANIFEST);
            root.put("rows_shards", shardRows.length);
            root.put("shard_blocks", blocksPerShard);
        } else {
            root.put("rows_file", format.file());
        }
    }

    /**
     * Closes every file. After {@link #finish()} that completes them; before (the run failed, the
     * staging directory is thrown away) nothing more is written and no error is raised: a failing
     * close while the task is already failing made Flink treat it as fatal and shut the whole
     * TaskManager down, hiding the cause ("The TaskExecutor is shutting down." on a full disk).
     */
    @Override
    public void close() throws IOException {
        if (finished) {
            Closeables.closeAll(java.util.Arrays.asList(closeables()));
            return;
        }
        if (rows != null) {
            try {
                rows.abort();
            } catch (IOException | RuntimeException ignored) {
                // the run has failed already, with its own cause
            }
        }
        for (int l = 0; l < listLengths.length; l++) {
            abortQuietly(listLengths[l]);
            abortQuietly(listValues[l]);
        }
        for (Closeable c : closeables()) {
            try {
                c.close(); // a buffered stream tries to flush, fails, and closes its file
            } catch (IOException | RuntimeException ignored) {
                // the run has failed already, with its own cause
            }
        }
    }

    private static void abortQuietly(DirectFileOutput out) {
        try {
            out.abort();
        } catch (IOException | RuntimeException ignored) {
            // the run has failed already, with its own cause
        }
    }

    private Closeable[] closeables() {
        int lists = listLengths == null ? 0 : listLengths.length;
        Closeable[] all = new Closeable[2 * vocab.length + 4 + 2 * lists];
        all[vocab.length + 2 + 2 * lists] = hotline != null ? hotline : () -> {};
        all[all.length - 1] = eventTimes != null ? eventTimes : () -> {};
        for (int c = 0; c < vocab.length; c++) {
            OutputStream a = assignments == null ? null : assignments[c];
            all[vocab.length + 3 + 2 * lists + c] = a != null ? a : () -> {};
        }
        all[0] = dead;
        all[1] = () -> {}; // the rows file: finished before, or abandoned by close()
        System.arraycopy(vocab, 0, all, 2, vocab.length);
        for (int l = 0; l < lists; l++) {
            all[2 + vocab.length + 2 * l] = listLengths[l];
            all[3 + vocab.length + 2 * l] = listValues[l];
        }
        return all;
    }
}
