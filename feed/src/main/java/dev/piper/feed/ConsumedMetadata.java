package dev.piper.feed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.output.EventTimesFile;
import dev.piper.output.OutputLayout;
import dev.piper.output.OutputMetadata;
import dev.piper.output.RowsFormat;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The {@code metadata.json} of a consumed stream: what {@code preprocess} writes for the same spec
 * ({@link OutputMetadata}), from the records read. Counts come from the rows records' headers (each
 * block's lines and dead letters) and the dead-letter records' reasons; the pipeline from the
 * records' {@code piper.pipeline} and {@code piper.pipeline.params} headers: the built-in DLRM spec
 * and the presets are known by name and version, any other spec is given ({@code consume --spec}).
 *
 * <p>What the records cannot tell is left out, not guessed: without a known spec, or with rows of
 * several spec versions (a switch; {@code versions.tsv} says which rows), the row layout, table
 * sizes and chains are absent and {@code pipeline} lists the versions read.
 */
final class ConsumedMetadata {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The spec the user gave, or null. */
    private final DecodeOptions given;

    private long lines;
    private long deadLetters;
    private String format;

    /** Per {@code name/version} read, the shape of its first rows record. */
    private final Map<String, String> shapes = new LinkedHashMap<>();

    /** The {@code piper.pipeline.params} of the first record that has them, or null. */
    private String params;

    /** Dead letters read from the dead-letter topic, by reason. */
    private final Map<String, Long> byReason = new LinkedHashMap<>();

    private long deadLettersRead;

    ConsumedMetadata(DecodeOptions given) {
        this.given = given;
        for (Reason r : Reason.values()) {
            byReason.put(r.code(), 0L);
        }
    }

    /**
     * Counts one rows record.
     *
     * @throws IllegalArgumentException if the spec given is another pipeline's
     */
    void rows(ConsumerRecord<byte[], byte[]> r, RowsRecord rows) {
        lines += longHeader(r, RowsRecord.LINES, rows.rows());
        deadLetters += longHeader(r, RowsRecord.DEAD_LETTERS, 0);
        if (format == null) {
            format = RowsRecord.header(r, RowsRecord.FORMAT);
        }
        if (params == null) {
            params = RowsRecord.header(r, RowsRecord.PIPELINE_PARAMS);
        }
        if (given != null
                && !rows.pipeline().startsWith(given.program().name() + "/")
                && !rows.pipeline().isEmpty()) {
            throw new IllegalArgumentException(
                    rows.where()
                            + " holds rows of pipeline "
                            + rows.pipeline()
                            + ", the spec given is "
                            + given.program());
        }
        shapes.putIfAbsent(rows.pipeline(), rows.shape());
    }

    /** Counts one dead-letter record by its reason. */
    void deadLetter(ConsumerRecord<byte[], byte[]> r) {
        String reason;
        try {
            JsonNode node = JSON.readTree(r.value());
            reason = node == null ? "" : node.path("reason").asText("");
        } catch (IOException e) {
            reason = "";
        }
        if (reason.isEmpty()) {
            throw new IllegalStateException(
                    r.topic()
                            + "/"
                            + r.partition()
                            + "@"
                            + r.offset()
                            + ": a dead-letter record without a \"reason\"");
        }
        byReason.merge(reason, 1L, Long::sum);
        deadLettersRead++;
    }

    /** Dead letters the rows records read say their blocks had. */
    long deadLetters() {
        return deadLetters;
    }

    /** Dead-letter records read. */
    long deadLettersRead() {
        return deadLettersRead;
    }

    /**
     * Writes {@code dir/metadata.json}; says on {@code progress} what it leaves out and why.
     *
     * @param rowsWritten rows in {@code rows.bin}
     * @param vocabSizes entries per column and epoch ({@code C3}, {@code C3.epoch1}), or null
     *     without the vocabulary topic
     * @param evicting per (column, epoch) key of an evicting column, its assignments and evictions
     * @param deadLetterTopic whether the dead-letter topic was read
     * @param eventTimes the rows' event times written, or null where the rows carry none
     */
    void write(
            Path dir,
            long rowsWritten,
            Map<String, Integer> vocabSizes,
            EvictingVocabularies evicting,
            boolean deadLetterTopic,
            EventTimesFile eventTimes,
            PrintStream progress)
            throws IOException {
        // by reason only when every dead letter of the blocks read was read, and no other
        Map<String, Long> reasons =
                deadLetterTopic && deadLettersRead == deadLetters ? byReason : null;
        OutputMetadata.Counts counts =
                new OutputMetadata.Counts(lines, rowsWritten, deadLetters, reasons);
        RowsSpec spec = rowsSpec();
        DecodeOptions options = spec.options();
        ObjectNode root;
        if (options != null) {
            RowLayout layout = options.program().layout();
            OutputMetadata.Vocab[] vocab =
                    vocabSizes == null ? null : vocab(layout, vocabSizes, evicting);
            root =
                    OutputMetadata.describe(
                            options,
                            RowsFormat.DLRM_ROWS,
                            counts,
                            n -> n.put("rows_file", RowsFormat.DLRM_ROWS.file()),
                            vocab);
        } else {
            root = partial(counts, vocabSizes);
            if (spec.why() != null) {
                progress.println(
                        "consume: metadata.json holds the counts and vocabulary sizes only: "
                                + spec.why());
            }
        }
        if (eventTimes != null) {
            eventTimes.describe(
                    root,
                    options == null || options.events() == null ? null : options.events().time());
        }
        OutputMetadata.write(dir, root);
    }

    /** The spec of the rows read, or null and why it is not known. */
    private record RowsSpec(DecodeOptions options, String why) {}

    /**
     * The spec of the rows read: the one given, or the built-in one or a preset named by the
     * records, if the records' chains and shape are its; else none, saying why (nothing to say when
     * no rows were read).
     *
     * @throws IllegalArgumentException if the spec given is not the one the stream ran
     */
    private RowsSpec rowsSpec() {
        if (shapes.size() > 1) {
            return new RowsSpec(
                    null, "its rows come from " + shapes.size() + " spec versions (versions.tsv)");
        }
        if (shapes.isEmpty()) {
            return new RowsSpec(null, null);
        }
        String pipeline = shapes.keySet().iterator().next();
        DecodeOptions options =
                given != null ? withRawBytes(given, params) : known(pipeline, params);
        if (options == null) {
            return new RowsSpec(
                    null,
                    "the rows are of pipeline "
                            + pipeline
                            + ", neither the built-in spec nor a preset; give its spec with"
                            + " --spec");
        }
        if (!sameChains(options, params)) {
            if (given != null) {
                throw new IllegalArgumentException(
                        "the spec given ("
                                + options.program()
                                + ") is not the one the stream ran: its chains differ (chains="
                                + options.program().fingerprint()
                                + ", the records' "
                                + params
                                + ")");
            }
            return new RowsSpec(
                    null,
                    "the rows are of a spec named "
                            + pipeline
                            + " whose chains are not piper's; give it with --spec");
        }
        if (!shapeOf(options.program()).equals(shapes.get(pipeline))) {
            if (given != null) {
                throw new IllegalArgumentException(
                        "the spec given ("
                                + options.program()
                                + ") makes rows of "
                                + shapeOf(options.program())
                                + ", the records hold "
                                + shapes.get(pipeline));
            }
            return new RowsSpec(
                    null, "the rows of " + pipeline + " are not of the shape its spec makes");
        }
        return new RowsSpec(options, null);
    }

    /** The counts and what the records state, when the spec is not known. */
    private ObjectNode partial(OutputMetadata.Counts counts, Map<String, Integer> vocabSizes) {
        ObjectNode root = JSON.createObjectNode();
        OutputMetadata.describeCounts(
                root, format == null ? OutputLayout.FORMAT : format, RowsFormat.DLRM_ROWS, counts);
        root.put("rows_file", RowsFormat.DLRM_ROWS.file());
        if (vocabSizes != null) {
            ObjectNode sizes = root.putObject("vocab_size");
            vocabSizes.forEach(sizes::put);
        }
        var versions = root.putObject("pipeline").putArray("versions");
        shapes.keySet().forEach(versions::add);
        return root;
    }

    private static OutputMetadata.Vocab[] vocab(
            RowLayout layout, Map<String, Integer> sizes, EvictingVocabularies evicting) {
        OutputMetadata.Vocab[] vocab = new OutputMetadata.Vocab[layout.sparse()];
        for (int c = 0; c < vocab.length; c++) {
            String name = CriteoLayout.sparseName(c);
            long key = (long) c << 32; // epoch 0
            vocab[c] =
                    new OutputMetadata.Vocab(
                            sizes.getOrDefault(name, 0),
                            evicting.assignments(key),
                            evicting.evictions(key));
        }
        return vocab;
    }

    /**
     * The spec of the rows of {@code pipeline} ({@code name/version}) when piper ships it: the
     * built-in DLRM spec with the settings of {@code params} ({@code piper.pipeline.params}), or a
     * preset; else null.
     */
    static DecodeOptions known(String pipeline, String params) {
        int slash = pipeline.lastIndexOf('/');
        if (slash < 0) {
            return null;
        }
        String name = pipeline.substring(0, slash);
        int version;
        try {
            version = Integer.parseInt(pipeline.substring(slash + 1));
        } catch (NumberFormatException e) {
            return null;
        }
        Map<String, String> settings = settings(params);
        int maxRawBytes =
                parseInt(settings.get("max_raw_bytes"), DecodeOptions.DEFAULT_MAX_RAW_BYTES);
        PipelineSpec builtin = SpecParser.builtin();
        if (name.equals(builtin.name()) && version == builtin.version()) {
            PipelineSpec dlrm =
                    SpecCompiler.dlrm(
                            settings.containsKey("max_ind_range")
                                    ? Long.parseLong(settings.get("max_ind_range"))
                                    : -1,
                            Boolean.parseBoolean(settings.get("pad_missing_fields")),
                            parseInt(
                                    settings.get("max_line_bytes"),
                                    DecodeOptions.DEFAULT_MAX_LINE_BYTES));
            return SpecCompiler.decodeOptions(dlrm, maxRawBytes);
        }
        for (Presets.Preset preset : Presets.ALL) {
            PipelineSpec spec = preset.spec();
            if (spec.name().equals(name) && spec.version() == version) {
                return SpecCompiler.decodeOptions(spec, maxRawBytes);
            }
        }
        return null;
    }

    /**
     * Whether {@code options}' program is the one of {@code params}' {@code chains} fingerprint
     * ({@link ColumnProgram#fingerprint()}); records from before the fingerprint say nothing, so
     * agree.
     */
    static boolean sameChains(DecodeOptions options, String params) {
        String chains = settings(params).get("chains");
        return chains == null || chains.equals(options.program().fingerprint());
    }

    /** {@code given} with the raw-bytes limit the stream ran with, which a spec does not hold. */
    private static DecodeOptions withRawBytes(DecodeOptions given, String params) {
        String raw = settings(params).get("max_raw_bytes");
        return raw == null
                ? given
                : new DecodeOptions(
                        given.program(),
                        given.padMissingFields(),
                        given.maxLineBytes(),
                        Integer.parseInt(raw),
                        given.events());
    }

    /** {@code piper.pipeline.params}' {@code key=value;...} as a map; empty for null. */
    private static Map<String, String> settings(String params) {
        Map<String, String> settings = new HashMap<>();
        if (params != null) {
            for (String kv : params.split(";")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    settings.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
        }
        return settings;
    }

    /** The shape ({@link RowsRecord#shape()}) of the rows {@code program} makes. */
    static String shapeOf(ColumnProgram program) {
        return RowsRecord.shape(program.rowColumns(), program.layout().listNames());
    }

    private static int parseInt(String text, int otherwise) {
        return text == null ? otherwise : Integer.parseInt(text);
    }

    private static long longHeader(ConsumerRecord<byte[], byte[]> r, String key, long otherwise) {
        String text = RowsRecord.header(r, key);
        return text == null ? otherwise : Long.parseLong(text);
    }
}
