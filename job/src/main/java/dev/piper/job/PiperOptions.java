package dev.piper.job;

import dev.piper.connectors.text.source.CriteoFileSource;
import dev.piper.operators.vocab.VocabularyImport;
import dev.piper.output.RowsFormat;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.IdMap;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;

/** Every piper-specific configuration option, with its default and description. */
public final class PiperOptions {

    public static final ConfigOption<Long> MAX_IND_RANGE =
            ConfigOptions.key("piper.max-ind-range")
                    .longType()
                    .defaultValue(-1L)
                    .withDescription(
                            "Modulus applied to categorical ids before the vocabulary (DLRM's"
                                    + " --max-ind-range). 0 or negative: no modulus.");

    public static final ConfigOption<Boolean> PAD_MISSING_FIELDS =
            ConfigOptions.key("piper.pad-missing-fields")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Treat absent trailing fields of a short line as missing values"
                                    + " instead of rejecting the line as wrong_field_count.");

    /** The largest block: a block and its arrays must fit Java arrays with room to spare. */
    public static final int MAX_BLOCK_BYTES = CriteoFileSource.MAX_BLOCK_BYTES;

    /**
     * The smallest block of a file read by ranges: blocks cost split requests (one per 8 since the
     * splits of several ranges; the limits below were measured at one per block), and Flink 2.2.0
     * keeps a metric group per split until the job ends (a 262 KB file in 1-byte blocks took 46 s
     * and 4.8 GB).
     */
    public static final int MIN_BLOCK_BYTES = 64 << 10;

    /** The most ranges (splits) one plain file is read as, for the same reason. */
    public static final long MAX_RANGES = 100_000;

    /**
     * What is wrong with reading a plain file of {@code fileBytes} in blocks of {@code blockBytes},
     * if anything: blocks out of [{@link #MIN_BLOCK_BYTES}, {@link #MAX_BLOCK_BYTES}], or more than
     * {@link #MAX_RANGES} of them (a file of no size is read as one stream).
     */
    public static java.util.Optional<String> blockBytesProblem(long fileBytes, int blockBytes) {
        if (blockBytes < MIN_BLOCK_BYTES || blockBytes > MAX_BLOCK_BYTES) {
            return java.util.Optional.of(
                    "must be between "
                            + MIN_BLOCK_BYTES
                            + " (64 KiB: the blocks of a file cost splits and a few KB each"
                            + " held until the job ends) and "
                            + MAX_BLOCK_BYTES
                            + ", not "
                            + blockBytes);
        }
        long ranges = (fileBytes + blockBytes - 1) / blockBytes;
        if (ranges > MAX_RANGES) {
            long least = (fileBytes + MAX_RANGES - 1) / MAX_RANGES;
            return java.util.Optional.of(
                    blockBytes
                            + " makes "
                            + ranges
                            + " blocks of the "
                            + fileBytes
                            + "-byte input, more than "
                            + MAX_RANGES
                            + "; use at least "
                            + least);
        }
        return java.util.Optional.empty();
    }

    public static final ConfigOption<Integer> BLOCK_BYTES =
            ConfigOptions.key(CriteoFileSource.BLOCK_BYTES_KEY)
                    .intType()
                    .defaultValue(1 << 20)
                    .withDescription(
                            "Input bytes per block, the unit of work on the data path (about"
                                    + " 4,000 Criteo lines at the default 1 MiB). A plain file is"
                                    + " read as byte ranges of this size, one block each: at"
                                    + " least 64 KiB, and at most 100,000 blocks of one file."
                                    + " Does not change the output.");

    public static final ConfigOption<Integer> MAX_LINE_BYTES =
            ConfigOptions.key("piper.max-line-bytes")
                    .intType()
                    .defaultValue(DecodeOptions.DEFAULT_MAX_LINE_BYTES)
                    .withDescription(
                            "Longest accepted input line in bytes, without its line break;"
                                    + " longer lines become line_too_long dead letters.");

    public static final ConfigOption<Integer> MAX_RAW_BYTES =
            ConfigOptions.key("piper.max-raw-bytes")
                    .intType()
                    .defaultValue(DecodeOptions.DEFAULT_MAX_RAW_BYTES)
                    .withDescription("How many bytes of a rejected line its dead letter keeps.");

    private PiperOptions() {}

    public static final ConfigOption<String> INPUT_FORMAT =
            ConfigOptions.key("piper.input-format")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "How the batch input is read: tsv (Criteo text, optionally .gz) or"
                                    + " parquet (the layout's columns, named as in the spec's"
                                    + " input.parquet_columns, or by its input.fields paths for a"
                                    + " spec of named fields). Unset: parquet for a file"
                                    + " whose name ends in .parquet, tsv otherwise.");

    /** The largest Parquet block: its 40 column arrays must fit Java arrays with room to spare. */
    public static final int MAX_BLOCK_ROWS = 1 << 24;

    public static final ConfigOption<Integer> BLOCK_ROWS =
            ConfigOptions.key("piper.block-rows")
                    .intType()
                    .defaultValue(4096)
                    .withDescription(
                            "Rows per block of a Parquet input (a text input's blocks are sized"
                                    + " by piper.block-bytes). Does not change the output.");

    public static final ConfigOption<String> OUTPUT_FORMAT =
            ConfigOptions.key("piper.output-format")
                    .stringType()
                    .defaultValue(RowsFormat.DLRM_ROWS.id())
                    .withDescription(
                            "How the batch output holds its rows: " + RowsFormat.described() + ".");

    public static final ConfigOption<String> VOCAB_STORE =
            ConfigOptions.key("piper.vocab.store")
                    .stringType()
                    .defaultValue("value")
                    .withDescription(
                            "How each column's vocabulary is kept in keyed state. value (the"
                                    + " default): the whole vocabulary is one state value, the"
                                    + " fastest on the hashmap backend; on rocksdb every block"
                                    + " reads and writes all of it. entries: one state entry per"
                                    + " key behind a heap cache (piper.vocab.cache-entries), for"
                                    + " vocabularies larger than memory on the rocksdb backend,"
                                    + " whose incremental checkpoints then write only the new"
                                    + " entries. Both give the same indices; an evicting column"
                                    + " keeps value (its capacity bounds it). A savepoint restores"
                                    + " into the store it was taken with.");

    public static final ConfigOption<Integer> VOCAB_CACHE_ENTRIES =
            ConfigOptions.key("piper.vocab.cache-entries")
                    .intType()
                    .defaultValue(1 << 18)
                    .withDescription(
                            "With piper.vocab.store: entries, the heap cache in front of each"
                                    + " column's vocabulary (per column and vocabulary epoch, on"
                                    + " the subtask that owns it): how many entries it holds, 12"
                                    + " bytes each. A miss reads the state; entries never change,"
                                    + " so the cache is never stale.");

    /**
     * The heap cache's entries per column with {@link #VOCAB_STORE} {@code entries}, or 0 for the
     * default store.
     *
     * @throws IllegalArgumentException naming the option, for an unknown store or a cache below 1
     */
    public static int vocabEntriesCache(Configuration conf) {
        String store = conf.get(VOCAB_STORE);
        if (store.equals("value")) {
            return 0;
        }
        if (!store.equals("entries")) {
            throw new IllegalArgumentException(
                    VOCAB_STORE.key() + ": value or entries, not \"" + store + "\"");
        }
        int cache = conf.get(VOCAB_CACHE_ENTRIES);
        if (cache < 1) {
            throw new IllegalArgumentException(
                    VOCAB_CACHE_ENTRIES.key() + ": at least 1, not " + cache);
        }
        return cache;
    }

    public static final ConfigOption<Integer> SHARD_BLOCKS =
            ConfigOptions.key("piper.output.shard-blocks")
                    .intType()
                    .defaultValue(0)
                    .withDescription(
                            "0 (the default): the batch output's rows are one rows.bin, written"
                                    + " by one task. N > 0: a sharded output, for clusters: the"
                                    + " rows of every N consecutive input blocks are a file of"
                                    + " their own (rows/part-000000.bin, ...), written in"
                                    + " parallel where they are assembled, listed in row order by"
                                    + " rows/manifest.json; concatenated in that order they are"
                                    + " rows.bin. dlrm-rows only, without Hotline's split.");

    /** Whether the batch input {@code input} is Parquet under {@code conf}. */
    public static boolean parquetInput(Configuration conf, String input) {
        String format = conf.get(INPUT_FORMAT);
        if (format == null) {
            return input.endsWith(".parquet");
        }
        return switch (format) {
            case "parquet" -> true;
            case "tsv" -> false;
            default ->
                    throw new IllegalArgumentException(
                            INPUT_FORMAT.key()
                                    + ": unknown format \""
                                    + format
                                    + "\" (known: tsv, parquet)");
        };
    }

    public static final ConfigOption<String> LABEL_ACTIONS =
            ConfigOptions.key("piper.labels.actions")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "For a spec with a labels section: each action stream's file,"
                                    + " NAME=PATH, comma-separated (click=clicks.jsonl,"
                                    + "conversion=conversions.jsonl).");

    public static final ConfigOption<String> SPEC =
            ConfigOptions.key("piper.spec")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A pipeline spec's JSON text (docs/SPECS.md). When set, it defines"
                                    + " the column operators, padding and the line limit, and"
                                    + " piper.max-ind-range, piper.pad-missing-fields and"
                                    + " piper.max-line-bytes must not be set.");

    /**
     * The pipeline spec held in {@code conf}: its spec if it has one, otherwise the built-in DLRM
     * pipeline with the individual options.
     *
     * @throws IllegalArgumentException if the spec is invalid, naming every problem, or if
     *     individual options are set next to it
     */
    public static PipelineSpec spec(Configuration conf) {
        String spec = conf.get(SPEC);
        if (spec == null) {
            return SpecCompiler.dlrm(
                    conf.get(MAX_IND_RANGE),
                    conf.get(PAD_MISSING_FIELDS),
                    conf.get(MAX_LINE_BYTES));
        }
        for (ConfigOption<?> o : List.of(MAX_IND_RANGE, PAD_MISSING_FIELDS, MAX_LINE_BYTES)) {
            if (conf.contains(o)) {
                throw new IllegalArgumentException(
                        o.key() + " is set next to " + SPEC.key() + ", which defines it");
            }
        }
        try {
            return runnable(parsed(spec, SPEC.key()), SPEC.key());
        } catch (SpecException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The specs this process has parsed, by their text: the last few, least recently used out. */
    private static final Map<String, PipelineSpec> PARSED =
            Collections.synchronizedMap(
                    new LinkedHashMap<>(16, 0.75f, true) {
                        @Override
                        protected boolean removeEldestEntry(Map.Entry<String, PipelineSpec> e) {
                            return size() > 16;
                        }
                    });

    /**
     * The spec {@code text} as {@link SpecParser} reads it, parsed once per process: a run reads
     * its spec from its configuration in several places (the checks, the job graph, its operators'
     * options), each now the same parse. A spec is immutable, so sharing it is safe.
     *
     * @param source what a refusal names as the spec's origin (a file, a configuration key)
     * @throws SpecException naming every problem of the spec; a refused text is not remembered
     */
    public static PipelineSpec parsed(String text, String source) throws SpecException {
        return parsed(text.getBytes(StandardCharsets.UTF_8), source);
    }

    /** As {@link #parsed(String, String)}, from the spec's bytes (which must be UTF-8). */
    public static PipelineSpec parsed(byte[] text, String source) throws SpecException {
        String key = new String(text, StandardCharsets.UTF_8);
        PipelineSpec spec = PARSED.get(key);
        if (spec == null) {
            spec = SpecParser.parse(text, source);
            PARSED.put(key, spec);
        }
        return spec;
    }

    /**
     * {@code spec}, if a job can run it. A route ({@code input.route}: the lines whose field has a
     * value) is valid but runs nowhere yet: every pipeline takes all the lines of its input, so a
     * spec with one is refused rather than have its route ignored.
     *
     * @param source where the spec came from, for the message
     * @throws IllegalArgumentException naming the field and why
     */
    public static PipelineSpec runnable(PipelineSpec spec, String source) {
        if (spec.input().routeField().isPresent()) {
            throw new IllegalArgumentException(
                    source
                            + ": input.route: routing lines by a field's value is not run by"
                            + " preprocess or stream yet (every pipeline takes all the lines of"
                            + " its input); remove the route rather than have it ignored");
        }
        return spec;
    }

    /**
     * The decoder settings held in {@code conf}: from its spec if it has one, otherwise the
     * built-in DLRM pipeline with the individual options.
     *
     * @throws IllegalArgumentException if the spec is invalid, naming every problem, or if
     *     individual options are set next to it
     */
    public static DecodeOptions decodeOptions(Configuration conf) {
        String spec = conf.get(SPEC);
        if (spec == null) {
            return new DecodeOptions(
                    conf.get(MAX_IND_RANGE),
                    conf.get(PAD_MISSING_FIELDS),
                    conf.get(MAX_LINE_BYTES),
                    conf.get(MAX_RAW_BYTES));
        }
        for (ConfigOption<?> o : List.of(MAX_IND_RANGE, PAD_MISSING_FIELDS, MAX_LINE_BYTES)) {
            if (conf.contains(o)) {
                throw new IllegalArgumentException(
                        o.key() + " is set next to " + SPEC.key() + ", which defines it");
            }
        }
        try {
            return SpecCompiler.decodeOptions(
                    runnable(parsed(spec, SPEC.key()), SPEC.key()), conf.get(MAX_RAW_BYTES));
        } catch (SpecException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Reads every file {@code spec} names (vocabularies to import, mapid tables) as the operators
     * will, and returns what keeps one from being read (each naming its column), or nothing. The
     * operators read the files where they run: this check is for jobs that start on this machine.
     */
    public static List<String> fileProblems(PipelineSpec spec) {
        List<String> problems = new ArrayList<>();
        // a table several columns use is read once: its outcome, by file (null: it reads)
        java.util.Map<String, String> mapids = new java.util.HashMap<>();
        for (PipelineSpec.Column c : spec.columns()) {
            for (Op op : c.ops()) {
                String problem = null;
                if (op instanceof Op.Vocab v && v.policy().importPath() != null) {
                    try {
                        VocabularyImport.read(v.policy());
                    } catch (IOException e) {
                        problem = "vocab import: " + e.getMessage();
                    }
                } else if (op instanceof IdOp.MapIdOp m) {
                    problem =
                            mapids.computeIfAbsent(
                                    m.file(),
                                    f -> {
                                        try {
                                            IdMap.read(Path.of(f));
                                            return "";
                                        } catch (IOException e) {
                                            return op.name() + ": " + e.getMessage();
                                        }
                                    });
                    problem = problem.isEmpty() ? null : problem;
                }
                if (problem != null) {
                    problems.add("columns." + c.name() + ": " + problem);
                }
            }
        }
        return problems;
    }
}
