package dev.piper.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.convert.TsvToJson;
import dev.piper.convert.TsvToParquet;
import dev.piper.output.NamedOutput;
import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.generate.ClickModel;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.generate.ImpressionLog;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code piper generate}: seeded Criteo-like data for tests, benchmarks and demos. */
@Command(
        name = "generate",
        mixinStandardHelpOptions = true,
        description = {
            "Write seeded synthetic Criteo-like text (label, I1..I13, C1..C26, tab-separated).",
            "Categorical cardinalities are the Criteo Kaggle set's times --scale, ids Zipf-skewed.",
            "--dense/--sparse write wider (or narrower) lines, column j shaped as Criteo's"
                    + " column j mod 13 (dense) or j mod 26 (categorical).",
            "An --output ending in .jsonl gets them as JSON events, one object per line (as"
                    + " bin/piper convert --output-format json writes them: read them with"
                    + " --preset dlrm-criteo-json, or a json spec of your own).",
            "An --output ending in .parquet gets the lines as bin/piper convert writes them"
                    + " (malformed lines to its .dead-letters.jsonl).",
            "--click-model draws each label from a hidden logistic model over I1..I6 and ten"
                    + " categorical columns (every id its own hidden weight), so a model can learn"
                    + " from the log; it prints the Bayes AUC (the hidden model's own) and writes"
                    + " it to OUTPUT.model.json. --drift-at changes the hidden model from a line on.",
            "--events json|csv|avro|protobuf writes e-commerce click events instead: string user"
                    + " and item ids, a category, a country, a device, the recently viewed items"
                    + " (a list), price, position, age and an event time (epoch ms), clicked drawn"
                    + " from a hidden model of them (its Bayes AUC printed, as --click-model"
                    + " does). Read them with --preset clicks-json, clicks-csv or clicks-avro (a"
                    + " .pb file: its descriptor set is written to OUTPUT.desc)."
        })
final class GenerateCommand implements Callable<Integer> {

    private static final long PROGRESS_EVERY = 1_000_000;

    @Spec CommandSpec spec;

    @Option(names = "--rows", required = true, paramLabel = "N", description = "Number of lines.")
    long rows;

    @Option(
            names = "--seed",
            defaultValue = "1",
            paramLabel = "S",
            description =
                    "Random seed; the same seed gives the same bytes (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--output",
            required = true,
            paramLabel = "PATH",
            description =
                    "File to write: text, JSON events if its name ends in .jsonl, or Parquet if"
                            + " it ends in .parquet.")
    Path output;

    @Option(
            names = "--bad-rate",
            defaultValue = "0",
            paramLabel = "r",
            description =
                    "Fraction of lines made malformed, of every dead-letter kind (default: ${DEFAULT-VALUE}).")
    double badRate;

    @Option(
            names = "--scale",
            defaultValue = "1.0",
            paramLabel = "s",
            description =
                    "Multiplier of the Kaggle cardinalities (0.0005: largest vocabulary ~5K, 0.1: ~1M) (default: ${DEFAULT-VALUE}).")
    double scale;

    @Mixin LayoutOptions layoutOptions;

    @Option(
            names = "--click-model",
            description =
                    "Labels from a hidden logistic model of the fields (seeded by --seed), not"
                            + " Criteo's click rate alone; Criteo's layout only.")
    boolean clickModel;

    @Option(
            names = "--drift-at",
            paramLabel = "LINE",
            description =
                    "With --click-model: from this line on (0-based), new hidden weights and new"
                            + " popular ids.")
    Long driftAt;

    @Option(
            names = "--preset",
            paramLabel = "NAME",
            description =
                    "Write lines of a preset's layout (rm1..rm5: PreSto's feature mixes, their"
                            + " lists of 20 ids on average) instead of --dense/--sparse.")
    String preset;

    @Option(
            names = "--events",
            paramLabel = "FORMAT",
            description =
                    "Write e-commerce click events in FORMAT (json, csv, avro, protobuf) instead of"
                            + " Criteo lines; labels always from their hidden model.")
    String events;

    @Option(
            names = "--actions",
            description =
                    "With --events json: write a log of impressions and a log of their clicks"
                            + " (--output is then a directory: impressions.jsonl, clicks.jsonl and"
                            + " impressions.spec.json, the spec that joins them), as a serving"
                            + " system and a click tracker would: clicks after an exponential"
                            + " delay, records out of order, some late, duplicate or orphan.")
    boolean actions;

    @Option(
            names = "--click-delay-ms",
            defaultValue = "10000",
            paramLabel = "MS",
            description =
                    "With --actions: the clicks' mean delay after their impression, exponential"
                            + " (default: ${DEFAULT-VALUE}).")
    double clickDelayMs;

    @Option(
            names = "--out-of-order-ms",
            defaultValue = "2000",
            paramLabel = "MS",
            description =
                    "With --actions: the bound the records stay within (up to half of it behind"
                            + " their time), unless late; the spec's max_out_of_orderness"
                            + " (default: ${DEFAULT-VALUE}).")
    long outOfOrderMs;

    @Option(
            names = "--late-rate",
            defaultValue = "0.01",
            paramLabel = "r",
            description =
                    "With --actions: the share of records arriving more than the bound late"
                            + " (default: ${DEFAULT-VALUE}).")
    double lateRate;

    @Option(
            names = "--duplicate-rate",
            defaultValue = "0.01",
            paramLabel = "r",
            description =
                    "With --actions: the share of clicks sent twice (default: ${DEFAULT-VALUE}).")
    double duplicateRate;

    @Option(
            names = "--orphan-rate",
            defaultValue = "0.005",
            paramLabel = "r",
            description =
                    "With --actions: per impression, the chance of a click for a request never"
                            + " logged (default: ${DEFAULT-VALUE}).")
    double orphanRate;

    @Option(
            names = "--negative-sample-rate",
            defaultValue = "1",
            paramLabel = "r",
            description =
                    "With --actions: the spec's labels.negative_sample_rate, the share of negative"
                            + " rows kept (1/n: 0.5, 0.25, ...); below 1 the spec maps each row's"
                            + " weight to column I4, for the trainer's --weight-column I4"
                            + " (default: ${DEFAULT-VALUE}).")
    double negativeSampleRate;

    /** Refuses the values that are wrong on their own, naming the option. */
    private void checkArguments() {
        if (rows < 0) {
            throw new ParameterException(spec.commandLine(), "--rows: must not be negative");
        }
        if (!(badRate >= 0 && badRate <= 1)) {
            throw new ParameterException(
                    spec.commandLine(), "--bad-rate: must be between 0 and 1, not " + badRate);
        }
        if (!(scale > 0 && scale <= 100)) {
            throw new ParameterException(
                    spec.commandLine(), "--scale: must be in (0, 100], not " + scale);
        }
        if (driftAt != null && !clickModel && events == null) {
            throw new ParameterException(
                    spec.commandLine(), "--drift-at: needs --click-model or --events");
        }
        if (driftAt != null && (driftAt < 1 || driftAt >= rows)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--drift-at: must be a line between 1 and " + (rows - 1) + ", not " + driftAt);
        }
        Path parent = output.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new ParameterException(
                    spec.commandLine(), "--output: directory " + parent + " does not exist");
        }
    }

    /**
     * Writes the generator's lines to {@code --output}: as text, or, for a name ending in .parquet,
     * as text first and then converted (what convert makes of them).
     */
    private void write(CriteoGenerator generator, RowLayout layout) throws IOException {
        boolean parquet = output.getFileName().toString().endsWith(".parquet");
        boolean events = output.getFileName().toString().matches(".*\\.jsonl?$");
        if (events) {
            // JSON events: the lines written as text beside the output, then converted
            Path text = output.resolveSibling("." + output.getFileName() + ".tsv");
            try {
                try (OutputStream out =
                        new BufferedOutputStream(Files.newOutputStream(text), 1 << 20)) {
                    generate(generator, out, rows, System.err);
                }
                TsvToJson.convert(text, output, layout, System.err);
            } finally {
                Files.deleteIfExists(text);
            }
            return;
        }
        if (!parquet) {
            writeWhole(out -> generate(generator, out, rows, System.err));
            return;
        }
        // Parquet: the lines written as text beside it, then converted
        Path target = Files.exists(output) ? output.toRealPath() : output;
        Path text = target.resolveSibling("." + target.getFileName() + ".tsv");
        try {
            try (OutputStream out = new BufferedOutputStream(NamedOutput.open(text), 1 << 20)) {
                generate(generator, out, rows, System.err);
            }
            Path dead =
                    output.resolveSibling(
                            output.getFileName().toString().replaceFirst("\\.parquet$", "")
                                    + ".dead-letters.jsonl");
            TsvToParquet.convert(
                    text,
                    output,
                    dead,
                    new DecodeOptions(
                            ColumnProgram.raw(layout),
                            false,
                            DecodeOptions.DEFAULT_MAX_LINE_BYTES,
                            DecodeOptions.DEFAULT_MAX_RAW_BYTES),
                    CompressionCodecName.SNAPPY,
                    TsvToParquet.DEFAULT_ROW_GROUP_ROWS,
                    System.err);
        } finally {
            Files.deleteIfExists(text);
        }
    }

    @Override
    public Integer call() throws IOException {
        if (actions) {
            return writeImpressions();
        }
        if (events != null) {
            return writeEvents();
        }
        RowLayout layout = layoutOptions.layout(spec.commandLine());
        int meanListLength = 0;
        checkArguments();
        if (preset != null) {
            LayoutOptions.refuseNextTo(spec.commandLine(), "--preset, which sets the layout");
            try {
                Presets.Preset p = Presets.named(preset);
                layout = p.spec().layout();
                meanListLength = p.meanListLength();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--preset: " + e.getMessage());
            }
        }
        if (clickModel && !layout.equals(RowLayout.CRITEO)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--click-model: the hidden model reads Criteo's columns; not with "
                            + (preset != null ? "--preset" : "--dense/--sparse"));
        }
        long start = System.nanoTime();
        CriteoGenerator generator =
                new CriteoGenerator(layout, seed, scale, badRate, meanListLength);
        ClickModel model = clickModel ? new ClickModel(seed) : null;
        if (model != null) {
            generator.withClickModel(model, driftAt == null ? -1 : driftAt);
        }
        write(generator, layout);
        spec.commandLine()
                .getOut()
                .printf(
                        "generate: %,d lines (%,d malformed) of %s, seed %d, scale %s in %.1f s"
                                + " -> %s%n",
                        rows,
                        generator.badLines(),
                        layout,
                        seed,
                        scale,
                        (System.nanoTime() - start) / 1e9,
                        output);
        if (model != null) {
            Path modelFile = output.resolveSibling(output.getFileName() + ".model.json");
            writeModel(
                    modelFile,
                    model.seed(),
                    "lines",
                    "line",
                    generator.bayesAuc(0),
                    generator.bayesAuc(1),
                    root -> {
                        var dense = root.putArray("dense_columns");
                        for (int j : ClickModel.denseColumns()) {
                            dense.add("I" + (j + 1));
                        }
                        var sparse = root.putArray("sparse_columns");
                        for (int c : ClickModel.sparseColumns()) {
                            sparse.add("C" + (c + 1));
                        }
                    },
                    "P(click) = sigmoid(bias + sum of dense weights * (log1p(max(0, I)) - centre)"
                            + " + sum of each id's hidden weight); Bayes AUC: the AUC of those"
                            + " probabilities against the labels drawn from them, over the valid"
                            + " lines (before the drift, and from it on)");
        }
        return 0;
    }

    /** {@code --events}: click events, written beside the output and renamed into place. */
    private int writeEvents() throws IOException {
        checkArguments();
        ClickEvents.Format format;
        try {
            format = ClickEvents.Format.of(events);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--events: " + e.getMessage());
        }
        if (badRate != 0 || preset != null || clickModel) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--events: its events are all well-formed and always have a hidden model; not"
                            + " with --bad-rate, --preset or --click-model");
        }
        LayoutOptions.refuseNextTo(spec.commandLine(), "--events, whose fields are its own");
        long start = System.nanoTime();
        ClickEvents generator = new ClickEvents(seed, scale, driftAt == null ? -1 : driftAt);
        writeWhole(
                out ->
                        generator.write(
                                format,
                                out,
                                rows,
                                done -> {
                                    double seconds = (System.nanoTime() - start) / 1e9;
                                    if (seconds > 3 && done % PROGRESS_EVERY == 0) {
                                        System.err.printf(
                                                "generate: %,d of %,d events, %.0f s%n",
                                                done, rows, seconds);
                                    }
                                }));
        String read = "--preset clicks-" + format;
        if (format == ClickEvents.Format.PROTOBUF) {
            Path desc = output.resolveSibling(output.getFileName() + ".desc");
            Files.write(desc, ClickEvents.descriptorSet());
            read =
                    "a spec of input.format protobuf, input.descriptor "
                            + desc
                            + " and input.message "
                            + ClickEvents.MESSAGE
                            + " (clicks-json's fields and columns)";
        }
        spec.commandLine()
                .getOut()
                .printf(
                        "generate: %,d click events (%s), seed %d, scale %s in %.1f s -> %s%n"
                                + "generate: read them with %s%n",
                        rows, format, seed, scale, (System.nanoTime() - start) / 1e9, output, read);
        Path modelFile = output.resolveSibling(output.getFileName() + ".model.json");
        writeModel(
                modelFile,
                seed,
                "events",
                "event",
                generator.bayesAuc(0),
                generator.bayesAuc(1),
                root -> {},
                "P(click) = sigmoid(bias + each id's hidden weight (user, item, category, country,"
                        + " device, half of each recent item's) + weights * (log1p(price_cents,"
                        + " position, age) - centre)); Bayes AUC: the AUC of those probabilities"
                        + " against the labels drawn from them");
        return 0;
    }

    /**
     * {@code --events json --actions}: the impressions' and the clicks' logs and their spec, into
     * the directory {@code --output}, each file written beside its name and renamed into place.
     */
    private int writeImpressions() throws IOException {
        if (!"json".equals(events)) {
            throw new ParameterException(
                    spec.commandLine(), "--actions: needs --events json (the join reads JSON)");
        }
        if (badRate != 0 || preset != null || clickModel || driftAt != null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--actions: not with --bad-rate, --preset, --click-model or --drift-at");
        }
        LayoutOptions.refuseNextTo(spec.commandLine(), "--events, whose fields are its own");
        checkArguments();
        ImpressionLog.Rates rates = impressionRates();
        String joinSpec = impressionsSpec();
        Files.createDirectories(output);
        long start = System.nanoTime();
        ClickEvents generator = new ClickEvents(seed, scale, -1);
        Path impressions = output.resolve("impressions.jsonl");
        Path clicks = output.resolve("clicks.jsonl");
        Path impressionsPart = output.resolve(".impressions.jsonl.part");
        Path clicksPart = output.resolve(".clicks.jsonl.part");
        ImpressionLog.Counts counts;
        try (OutputStream i = new BufferedOutputStream(Files.newOutputStream(impressionsPart));
                OutputStream c = new BufferedOutputStream(Files.newOutputStream(clicksPart))) {
            counts =
                    new ImpressionLog(generator, seed, rates)
                            .write(
                                    rows,
                                    i,
                                    c,
                                    done -> {
                                        if (done % PROGRESS_EVERY == 0) {
                                            System.err.printf(
                                                    "generate: %,d of %,d impressions, %.0f s%n",
                                                    done, rows, (System.nanoTime() - start) / 1e9);
                                        }
                                    });
        }
        Files.move(impressionsPart, impressions, StandardCopyOption.REPLACE_EXISTING);
        Files.move(clicksPart, clicks, StandardCopyOption.REPLACE_EXISTING);
        Path specFile = output.resolve("impressions.spec.json");
        Files.writeString(specFile, joinSpec);
        spec.commandLine()
                .getOut()
                .printf(
                        "generate: %,d impressions (%,d clicked) and %,d clicks (%,d late records,"
                                + " %,d duplicate clicks, %,d orphan clicks), seed %d, in %.1f s"
                                + " -> %s, %s%n"
                                + "generate: join and read them with --spec %s (a 1-minute click"
                                + " window)%n",
                        counts.impressions(),
                        counts.clicked(),
                        counts.clicks(),
                        counts.late(),
                        counts.duplicates(),
                        counts.orphans(),
                        seed,
                        (System.nanoTime() - start) / 1e9,
                        impressions,
                        clicks,
                        specFile);
        Path modelFile = output.resolve("model.json");
        writeModel(
                modelFile,
                seed,
                "events",
                "impression",
                generator.bayesAuc(0),
                generator.bayesAuc(1),
                root -> {},
                "P(click) as for --events; an impression is clicked when its click is drawn, which"
                        + " arrives after an exponential delay (mean --click-delay-ms)");
        return 0;
    }

    /** The rates of {@code --actions}' logs; a bad one refused, naming the option. */
    private ImpressionLog.Rates impressionRates() {
        try {
            return new ImpressionLog.Rates(
                    clickDelayMs, outOfOrderMs, lateRate, duplicateRate, orphanRate);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--actions: " + e.getMessage());
        }
    }

    /** The spec of {@code --actions}' logs, checked before anything is written. */
    private String impressionsSpec() {
        if (!(negativeSampleRate > 0 && negativeSampleRate <= 1)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--negative-sample-rate: the share of negatives kept, in (0, 1], not "
                            + negativeSampleRate);
        }
        String joinSpec = ImpressionLog.spec(outOfOrderMs, "1m", negativeSampleRate);
        try {
            SpecParser.parse(joinSpec.getBytes(StandardCharsets.UTF_8), "impressions.spec.json");
        } catch (SpecException | IllegalArgumentException e) {
            throw new ParameterException(
                    spec.commandLine(), "--negative-sample-rate: " + e.getMessage());
        }
        return joinSpec;
    }

    /** Says the hidden model's Bayes AUC, before and (with --drift-at) after the drift. */
    private void printBayesAuc(double before, double after, String unit, Path modelFile) {
        spec.commandLine()
                .getOut()
                .printf(
                        "generate: Bayes AUC %.4f%s (the hidden model's) -> %s%n",
                        before,
                        driftAt == null
                                ? ""
                                : String.format(
                                        ", %.4f after the drift at %s %d", after, unit, driftAt),
                        modelFile);
    }

    /**
     * {@code OUTPUT.model.json}: the hidden model's description and its Bayes AUC, before and (with
     * --drift-at) after the drift; {@code count} names the number of rows written ("lines",
     * "events"), {@code extra} adds the fields of the model's own. Then says the Bayes AUC, the
     * drift's place counted in {@code unit}s.
     */
    private void writeModel(
            Path file,
            long modelSeed,
            String count,
            String unit,
            double before,
            double after,
            Consumer<ObjectNode> extra,
            String description)
            throws IOException {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = json.createObjectNode();
        root.put("model", "logistic");
        root.put("seed", modelSeed);
        root.put(count, rows);
        root.put("bayes_auc", before);
        if (driftAt != null) {
            root.put("drift_at", driftAt);
            root.put("bayes_auc_after_drift", after);
        }
        extra.accept(root);
        root.put("description", description);
        Files.write(file, json.writeValueAsBytes(root));
        printBayesAuc(before, after, unit, file);
    }

    /**
     * Writes {@code --output} whole: into a partial file beside it, renamed into place once
     * complete, so that a killed run never leaves a shorter file that reads as a complete input. A
     * pipe or device ({@code --output /dev/stdout}) is written in place: a stream cannot be renamed
     * into, and renaming over /dev/stdout would replace the link with a file. A link to a file is
     * followed: the file is replaced, not the link.
     */
    private void writeWhole(Body body) throws IOException {
        boolean stream = Files.exists(output) && !Files.isRegularFile(output);
        Path target = Files.exists(output) ? output.toRealPath() : output;
        Path partial =
                stream ? output : target.resolveSibling("." + target.getFileName() + ".partial");
        try {
            try (OutputStream out = new BufferedOutputStream(NamedOutput.open(partial), 1 << 20)) {
                body.write(out);
            }
            if (!stream) {
                Files.move(
                        partial,
                        target,
                        StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            if (!stream) {
                Files.deleteIfExists(partial);
            }
        }
    }

    /** What {@link #writeWhole} writes. */
    private interface Body {
        void write(OutputStream out) throws IOException;
    }

    /** Writes {@code rows} lines, reporting progress every million lines when it takes a while. */
    static void generate(CriteoGenerator g, OutputStream out, long rows, PrintStream progress)
            throws IOException {
        long start = System.nanoTime();
        for (long done = 0; done < rows; ) {
            long n = Math.min(PROGRESS_EVERY, rows - done);
            g.write(out, n);
            done += n;
            double seconds = (System.nanoTime() - start) / 1e9;
            if (done < rows && seconds > 3) {
                progress.printf("generate: %,d of %,d lines, %.0f s%n", done, rows, seconds);
            }
        }
    }
}
