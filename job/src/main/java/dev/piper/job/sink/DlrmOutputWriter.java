package dev.piper.job.sink;

import static dev.piper.operators.decode.CriteoLayout.SPARSE;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.operators.block.AssembledBlock;
import dev.piper.operators.block.DeadLetter;
import dev.piper.operators.decode.ColumnProgram;
import dev.piper.operators.decode.CriteoLayout;
import dev.piper.operators.decode.DecodeOptions;
import dev.piper.operators.decode.Reason;
import dev.piper.state.Vocabulary;
import dev.piper.state.VocabularyPolicy;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Writes the batch output directory from assembled blocks that arrive in input order: {@code
 * rows.bin}, {@code vocab/C1.tsv}..{@code C26.tsv}, {@code dead-letters.jsonl} and, on {@link
 * #finish()}, {@code metadata.json}.
 *
 * <p>It checks the invariants as it goes, so that a bug can never produce a plausible but wrong
 * output: blocks come in sequence, every line of a block is a row or a dead letter, and vocabulary
 * additions continue exactly where the column's file ends.
 */
public final class DlrmOutputWriter implements Closeable {

    private static final int BUFFER = 1 << 20;

    private final Path dir;
    private final DecodeOptions options;
    private final DirectFileOutput rows;
    private final OutputStream[] vocab = new OutputStream[SPARSE];
    private final OutputStream deadOut;
    private final JsonGenerator dead;

    /** Per column, the index the next added key gets: OOV buckets plus entries written. */
    private final int[] nextIndex = new int[SPARSE];

    private final Map<String, Long> deadByReason = new LinkedHashMap<>();
    private long nextSeq;
    private long nextLine = 1;
    private long linesRead;
    private long rowsWritten;
    private long deadLetters;
    private boolean finished;

    public DlrmOutputWriter(Path dir, DecodeOptions options) throws IOException {
        this.dir = dir;
        this.options = options;
        Files.createDirectories(dir.resolve(OutputLayout.VOCAB_DIR));
        rows = new DirectFileOutput(dir.resolve(OutputLayout.ROWS), true);
        for (int c = 0; c < SPARSE; c++) {
            vocab[c] = open(dir.resolve(OutputLayout.vocabFile(c)));
            nextIndex[c] = options.program().vocabPolicy(c).firstIndex();
        }
        deadOut = open(dir.resolve(OutputLayout.DEAD_LETTERS));
        dead = new JsonFactory().createGenerator(deadOut, JsonEncoding.UTF8);
        dead.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        dead.setRootValueSeparator(null);
        for (Reason r : Reason.values()) {
            deadByReason.put(r.code(), 0L);
        }
    }

    private static OutputStream open(Path file) throws IOException {
        return new BufferedOutputStream(Files.newOutputStream(file), BUFFER);
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
        rows.write(block.rowBytes(), 0, block.rows() * CriteoLayout.ROW_BYTES);
        for (DeadLetter d : block.deadLetters()) {
            writeDeadLetter(d, nextLine + d.lineInBlock());
        }
        for (int c = 0; c < SPARSE; c++) {
            appendVocab(c, block.firstNewIndex()[c], block.newKeys()[c]);
        }
        nextSeq++;
        nextLine += block.lines();
        linesRead += block.lines();
        rowsWritten += block.rows();
    }

    /** Writes one dead letter; {@code line} is its 1-based line number in the input. */
    private void writeDeadLetter(DeadLetter d, long line) throws IOException {
        dead.writeStartObject();
        dead.writeNumberField("line", line);
        dead.writeNumberField("offset", d.offset());
        dead.writeStringField("reason", d.reason());
        dead.writeStringField("detail", d.detail());
        dead.writeStringField("raw", RawText.escape(d.raw()));
        dead.writeBooleanField("raw_truncated", d.rawTruncated());
        dead.writeEndObject();
        dead.writeRaw('\n');
        deadLetters++;
        deadByReason.merge(d.reason(), 1L, Long::sum);
    }

    private void appendVocab(int c, int firstNew, long[] keys) throws IOException {
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
        for (long key : keys) {
            out.write(Integer.toString(index).getBytes(StandardCharsets.US_ASCII));
            out.write('\t');
            out.write(Long.toUnsignedString(key).getBytes(StandardCharsets.US_ASCII));
            out.write('\n');
            index++;
        }
        nextIndex[c] = index;
    }

    /** Flushes every file and writes {@code metadata.json}. */
    public void finish() throws IOException {
        if (finished) {
            return;
        }
        if (linesRead != rowsWritten + deadLetters) {
            throw new IllegalStateException(
                    linesRead
                            + " lines read but "
                            + rowsWritten
                            + " rows and "
                            + deadLetters
                            + " dead letters");
        }
        dead.flush();
        rows.close(); // complete, last partial block included, before the metadata says so
        flushAll();
        writeMetadata();
        finished = true;
    }

    private void flushAll() throws IOException {
        deadOut.flush();
        for (OutputStream out : vocab) {
            out.flush();
        }
    }

    private void writeMetadata() throws IOException {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = json.createObjectNode();
        root.put("format", OutputLayout.FORMAT);
        root.put("format_version", OutputLayout.FORMAT_VERSION);
        root.put("lines_read", linesRead);
        root.put("rows_written", rowsWritten);
        root.put("dead_letters", deadLetters);
        ObjectNode reasons = root.putObject("dead_letters_by_reason");
        deadByReason.forEach(reasons::put);
        root.put("row_bytes", CriteoLayout.ROW_BYTES);
        root.put(
                "row_layout",
                "40 little-endian int32 per row: label, I1..I13, C1..C26 vocabulary indices");
        ColumnProgram program = options.program();
        ObjectNode sizes = root.putObject("vocab_size");
        ObjectNode policies = json.createObjectNode();
        for (int c = 0; c < SPARSE; c++) {
            VocabularyPolicy policy = program.vocabPolicy(c);
            int entries = nextIndex[c] - policy.firstIndex();
            sizes.put(CriteoLayout.sparseName(c), entries);
            if (!policy.isFirstAppearance()) {
                ObjectNode p = policies.putObject(CriteoLayout.sparseName(c));
                p.put("min_count", policy.minCount());
                p.put("oov_buckets", policy.oovBuckets());
                if (policy.maxSize() < Vocabulary.MAX_SIZE) {
                    p.put("max_size", policy.maxSize());
                }
                if (policy.importPath() != null) {
                    p.put("import", policy.importPath());
                }
                p.put("first_index", policy.firstIndex());
                p.put("table_size", nextIndex[c]); // an embedding table's rows: buckets + entries
            }
        }
        if (policies.isEmpty()) {
            root.put("vocab_indices", "dense, first appearance order, from 0");
        } else {
            root.put(
                    "vocab_indices",
                    "dense, first appearance order, from 0; columns in vocab_policies: OOV buckets"
                            + " from 0, then entries in order of admission from first_index");
            root.set("vocab_policies", policies);
        }
        ObjectNode pipeline = root.putObject("pipeline");
        pipeline.put("name", program.name());
        pipeline.put("version", program.version());
        OptionalLong dlrm = program.dlrmMaxIndRange();
        if (dlrm.isPresent()) {
            pipeline.put("max_ind_range", dlrm.getAsLong());
        }
        pipeline.put("pad_missing_fields", options.padMissingFields());
        pipeline.put("max_line_bytes", options.maxLineBytes());
        pipeline.put("max_raw_bytes", options.maxRawBytes());
        if (dlrm.isPresent()) {
            // DLRM's shape: one chain per kind of column.
            ObjectNode ops = pipeline.putObject("ops");
            ops.putArray("label").add("decode").add("fill_missing");
            ops.putArray("dense").add("decode").add("fill_missing").add("neg2zero");
            var sparse = ops.putArray("sparse").add("decode").add("fill_missing").add("hex2int");
            if (dlrm.getAsLong() > 0) {
                sparse.add("modulus(" + dlrm.getAsLong() + ")");
            }
            sparse.add("genvocab").add("applyvocab");
        } else {
            ObjectNode columns = pipeline.putObject("columns");
            var floats = pipeline.putArray("float32_columns");
            for (int f = 0; f < CriteoLayout.FIELDS; f++) {
                columns.put(CriteoLayout.fieldName(f), program.chainOf(f));
                if (program.type(f) == dev.piper.operators.ops.Op.ValueType.float32) {
                    floats.add(CriteoLayout.fieldName(f)); // their slots hold IEEE float32 bits
                }
            }
        }
        byte[] bytes = json.writeValueAsBytes(root);
        try (OutputStream out = Files.newOutputStream(dir.resolve(OutputLayout.METADATA))) {
            out.write(bytes);
            out.write('\n');
        }
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (Closeable c : closeables()) {
            try {
                c.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private Closeable[] closeables() {
        Closeable[] all = new Closeable[SPARSE + 3];
        all[0] = dead;
        all[1] = deadOut;
        all[2] = rows;
        System.arraycopy(vocab, 0, all, 3, SPARSE);
        return all;
    }
}
