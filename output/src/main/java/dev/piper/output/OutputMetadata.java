package dev.piper.output;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.state.Vocabulary;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * An output directory's {@code metadata.json} ({@code docs/SEMANTICS.md}): what a run read and
 * wrote, the rows' layout, every embedding table's size and the pipeline. One description for the
 * batch writer ({@link DlrmOutputWriter}) and for {@code piper consume}, so that the same lines
 * under the same spec give the same keys and values either way.
 */
public final class OutputMetadata {

    private OutputMetadata() {}

    /**
     * What a run read and wrote.
     *
     * @param linesRead input lines (rows and dead letters)
     * @param rowsWritten rows in the rows file
     * @param deadLetters lines rejected
     * @param deadLettersByReason dead letters per reason code, every code (zeros included); null
     *     when unknown (the key is then left out)
     */
    public record Counts(
            long linesRead,
            long rowsWritten,
            long deadLetters,
            Map<String, Long> deadLettersByReason) {}

    /**
     * One sparse column's vocabulary at the end of the run (its first epoch).
     *
     * @param entries the keys it holds (an evicting column: at most its capacity)
     * @param assignments an evicting column: the index assignments it made, else 0
     * @param evictions an evicting column: the keys it evicted, else 0
     */
    public record Vocab(int entries, long assignments, long evictions) {}

    /**
     * The description of an output of {@code options}' pipeline.
     *
     * @param rowsFile puts the keys that say where the rows are ({@code rows_file}, and for a
     *     sharded output {@code rows_shards} and {@code shard_blocks})
     * @param vocab per sparse column, its vocabulary; null when the run did not read them (a
     *     consume without the vocabulary topic): {@code vocab_size}, {@code table_size} of the
     *     sparse columns and {@code vocab_policies}' counts are then left out
     */
    public static ObjectNode describe(
            DecodeOptions options,
            RowsFormat format,
            Counts counts,
            Consumer<ObjectNode> rowsFile,
            Vocab[] vocab) {
        ColumnProgram program = options.program();
        ObjectNode root = new ObjectMapper().createObjectNode();
        describeCounts(root, OutputLayout.format(program), format, counts);
        rowsFile.accept(root);
        describeRows(root, program, format);
        if (vocab != null) {
            describeVocabularies(root, program, vocab);
        }
        describePipeline(root.putObject("pipeline"), options);
        return root;
    }

    /**
     * The first keys of every {@code metadata.json}: {@code format} ({@code outputFormat}), its
     * version, the counts and {@code rows_format}.
     */
    public static void describeCounts(
            ObjectNode root, String outputFormat, RowsFormat format, Counts counts) {
        root.put("format", outputFormat);
        root.put("format_version", OutputLayout.FORMAT_VERSION);
        root.put("lines_read", counts.linesRead());
        root.put("rows_written", counts.rowsWritten());
        root.put("dead_letters", counts.deadLetters());
        if (counts.deadLettersByReason() != null) {
            ObjectNode reasons = root.putObject("dead_letters_by_reason");
            counts.deadLettersByReason().forEach(reasons::put);
        }
        root.put("rows_format", format.id());
    }

    /** Writes {@code root} as {@code dir/metadata.json}, indented, with a final line break. */
    public static void write(Path dir, ObjectNode root) throws IOException {
        byte[] bytes =
                new ObjectMapper()
                        .enable(SerializationFeature.INDENT_OUTPUT)
                        .writeValueAsBytes(root);
        try (OutputStream out = Files.newOutputStream(dir.resolve(OutputLayout.METADATA))) {
            out.write(bytes);
            out.write('\n');
        }
    }

    private static void describeRows(ObjectNode root, ColumnProgram program, RowsFormat format) {
        RowLayout layout = program.layout();
        String rowColumns = ranges(program.rowColumns());
        String lists = ranges(layout.listNames());
        format.describe(root, program, rowColumns, lists);
        root.put("dense_columns", layout.dense());
        root.put("sparse_columns", layout.sparse());
        int[] onehot = program.onehotSizes();
        if (onehot != null) {
            ObjectNode columns = root.putObject("onehot_columns");
            for (int f = 0; f < onehot.length; f++) {
                if (onehot[f] > 0) {
                    columns.put(layout.fieldName(f), onehot[f] - 1); // its columns in the row
                }
            }
        }
        if (layout.generated() > 0) {
            ObjectNode generated = root.putObject("generated_columns");
            for (int g = 0; g < layout.generated(); g++) {
                generated.put("G" + (g + 1), "I" + (layout.generatedFrom().get(g) + 1));
            }
        }
        if (layout.hasLists()) {
            var names = root.putArray("list_columns");
            layout.listNames().forEach(names::add);
            root.put("list_layout", format.listLayout());
        }
    }

    /**
     * {@code vocab_size}, {@code table_size} (every column whose values index an embedding table:
     * the sparse columns and the bucketized label/dense/generated ones), {@code vocab_indices} and
     * {@code vocab_policies}.
     */
    private static void describeVocabularies(
            ObjectNode root, ColumnProgram program, Vocab[] vocab) {
        RowLayout layout = program.layout();
        ObjectNode sizes = root.putObject("vocab_size");
        ObjectNode tables = root.putObject("table_size");
        ObjectNode policies = new ObjectMapper().createObjectNode();
        for (int f = 0; f < layout.labelDenseWidth(); f++) {
            int buckets = program.bucketCount(f);
            if (buckets > 0) {
                tables.put(layout.fieldName(f), buckets);
            }
        }
        for (int c = 0; c < layout.sparse(); c++) {
            String name = CriteoLayout.sparseName(c);
            VocabularyPolicy policy = program.vocabPolicy(c);
            Vocab v = vocab[c];
            sizes.put(name, v.entries());
            // the embedding table a trainer allocates: every index the column may use
            long table =
                    policy.evicts()
                            ? (long) policy.firstIndex() + policy.capacity()
                            : (long) policy.firstIndex() + v.entries(); // buckets + entries
            tables.put(name, table);
            if (policy.isFirstAppearance()) {
                continue;
            }
            ObjectNode p = policies.putObject(name);
            p.put("min_count", policy.minCount());
            p.put("oov_buckets", policy.oovBuckets());
            if (policy.maxSize() < Vocabulary.MAX_SIZE) {
                p.put("max_size", policy.maxSize());
            }
            if (policy.importPath() != null) {
                p.put("import", policy.importPath());
            }
            p.put("first_index", policy.firstIndex());
            if (policy.evicts()) {
                p.put("capacity", policy.capacity());
                p.put("evict", policy.eviction().label());
                if (policy.ttlRows() > 0) {
                    p.put("ttl_rows", policy.ttlRows());
                }
                p.put("assignments", v.assignments());
                p.put("evictions", v.evictions());
                p.put("assignments_file", OutputLayout.assignmentsFile(c));
            }
            p.put("table_size", table);
        }
        if (policies.isEmpty()) {
            root.put("vocab_indices", "dense, first appearance order, from 0");
        } else {
            root.put(
                    "vocab_indices",
                    "dense, first appearance order, from 0; columns in vocab_policies: OOV buckets"
                            + " from 0, then entries in order of admission from first_index;"
                            + " a column with evict reuses an evicted key's index: its"
                            + " assignments_file says from which row each index names which key");
            root.set("vocab_policies", policies);
        }
    }

    private static void describePipeline(ObjectNode pipeline, DecodeOptions options) {
        ColumnProgram program = options.program();
        RowLayout layout = program.layout();
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
            for (int f = 0; f < layout.fields(); f++) {
                columns.put(layout.fieldName(f), program.chainOf(f));
                if (program.type(f) == Op.ValueType.float32) {
                    floats.add(layout.fieldName(f)); // their slots hold IEEE float32 bits
                }
            }
        }
    }

    /**
     * Column names with runs of one prefix and consecutive numbers shortened: {@code label, I1, I2,
     * I3, G1, C1} is {@code label, I1..I3, G1, C1}.
     */
    static String ranges(List<String> names) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < names.size()) {
            String prefix = prefix(names.get(i));
            int first = number(names.get(i), prefix);
            int j = i;
            while (first >= 0
                    && j + 1 < names.size()
                    && prefix.equals(prefix(names.get(j + 1)))
                    && number(names.get(j + 1), prefix) == first + (j + 1 - i)) {
                j++;
            }
            out.append(out.isEmpty() ? "" : ", ").append(names.get(i));
            if (j > i) {
                out.append(j > i + 1 ? ".." : ", ").append(names.get(j));
            }
            i = j + 1;
        }
        return out.toString();
    }

    private static String prefix(String name) {
        int end = name.length();
        while (end > 0 && Character.isDigit(name.charAt(end - 1))) {
            end--;
        }
        return name.substring(0, end);
    }

    /** The number after {@code prefix}, or -1 if there is none (or it does not fit an int). */
    private static int number(String name, String prefix) {
        String digits = name.substring(prefix.length());
        if (digits.isEmpty()
                || digits.length() > 9
                || digits.startsWith("0") && digits.length() > 1) {
            return -1;
        }
        return Integer.parseInt(digits);
    }
}
