package dev.piper.benchmarks.bench;

import dev.piper.connectors.convert.TsvToAvro;
import dev.piper.connectors.convert.TsvToCsv;
import dev.piper.connectors.convert.TsvToJson;
import dev.piper.connectors.convert.TsvToParquet;
import dev.piper.connectors.text.source.reader.AvroBlockChunker;
import dev.piper.job.HotlineOptions;
import dev.piper.job.PiperOptions;
import dev.piper.job.ReportOptions;
import dev.piper.pipeline.generate.CriteoAvro;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.input.AvroOptions;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * {@code piper bench}: marginal throughput of the data path, single-threaded without Flink and as
 * the full job, for vocabulary regimes of different sizes.
 *
 * <p>Method: every measurement runs on two inputs from the same generator, N and N/2 lines (the
 * second is the first half of the first), and reports (N - N/2) / (t(N) - t(N/2)): start-up, JIT
 * warm-up and cluster start cancel out. Single-thread loops get one warm-up pass first. Every job
 * run's {@code rows.bin} must hash to the same sha256 as the single-thread loop's rows, so a fast
 * wrong answer fails the bench.
 *
 * <p>With a preset ({@link #withPreset}, PreSto's rm1..rm5) the inputs are the preset's layout from
 * the same generator ({@code generate --preset}), every stage runs the preset's spec, and the
 * verified output is {@code rows.bin} and each list column's {@code lengths} and {@code values}
 * files ({@link JobRuns#outputSha256}).
 */
public final class Bench {

    /** A vocabulary regime: the generator scale that gives it. */
    public record Regime(String name, double scale, String largest) {}

    public static final List<Regime> REGIMES =
            List.of(
                    new Regime("small", 0.0005, "~5K"),
                    new Regime("medium", 0.01, "~100K"),
                    new Regime("large", 0.1, "~1M"));

    /** One row of the result table. */
    public record Result(
            String regime,
            double scale,
            String stage,
            int parallelism,
            long rows,
            long inputBytes,
            double secondsFull,
            double secondsHalf,
            double rowsPerSecond,
            double mbPerSecond,
            boolean outputVerified) {}

    private final Path dataDir;
    private final long rows;
    private final long seed;
    private final int blockBytes;
    private final List<Integer> parallelisms;
    private final PrintStream progress;
    private final int repeat;
    private boolean withReport;
    private long hotlineBudget; // bytes; 0: not measured
    private boolean withFusion;
    private boolean withParquet;

    private boolean withEvents;

    /** The command that starts a CLI process ({@link #withCold}); null: not measured. */
    private List<String> coldCommand;

    /** The yardstick's source ({@link #withYardstick}); null: none asked for. */
    private Path yardstickSource;

    /**
     * The compiled yardstick, once looked for; null: none (then {@link #yardstickNote} says why).
     */
    private Yardstick yardstick;

    private String yardstickNote;

    private final List<Ratio> ratios = new ArrayList<>();

    /** The preset whose spec and layout every stage runs ({@link #withPreset}); null: Criteo's. */
    private Presets.Preset preset;

    /** The decode options of every stage: the preset's spec, or the built-in spec's defaults. */
    private DecodeOptions options = DecodeOptions.defaults();

    public Bench(
            Path dataDir,
            long rows,
            long seed,
            int blockBytes,
            List<Integer> parallelisms,
            int repeat,
            PrintStream progress) {
        this.repeat = repeat;
        this.dataDir = dataDir;
        this.rows = rows;
        this.seed = seed;
        this.blockBytes = blockBytes;
        this.parallelisms = parallelisms;
        this.progress = progress;
    }

    /**
     * Also measures every job with the cost report on ({@code --report}), its runs alternating with
     * the plain job's, so that the measurement's overhead can be read off.
     */
    public Bench withReport() {
        this.withReport = true;
        return this;
    }

    /**
     * Also measures every job with Hotline's split on at the defaults but for its budget ({@code
     * --hotline-budget}), its runs alternating with the plain job's: the split's overhead.
     */
    public Bench withHotline(long budgetBytes) {
        this.hotlineBudget = budgetBytes;
        return this;
    }

    /** Also measures the column passes of {@link #RAP_SPEC} fused and unfused (first regime). */
    public Bench withFusion() {
        this.withFusion = true;
        return this;
    }

    /**
     * Also measures Parquet input: each input converted ({@code piper convert}), read and decoded
     * on as many threads as each parallelism without Flink, and the Flink job over it.
     */
    public Bench withParquet() {
        this.withParquet = true;
        return this;
    }

    /**
     * Also measures JSON events: each input converted ({@code piper convert --output-format json}:
     * 13 numeric and 26 string fields a line), decoded in one thread without Flink under a json
     * spec of the same chains (hex2int, whose rows must be the text's) and with hash64 (every id
     * text hashed), and the Flink job over them; and the same for Avro events (an uncompressed
     * container file of the same records, {@code piper convert --output-format avro}).
     */
    public Bench withEvents() {
        this.withEvents = true;
        return this;
    }

    /**
     * Also measures what a user sees: a whole {@code preprocess} process per run, started by {@code
     * command} (this CLI's java command line, up to and including its main class), timed from its
     * start to its exit: JVM start, cluster start, JIT warm-up and output commit included. Its
     * output must hash as the single-thread loop's rows.
     */
    public Bench withCold(List<String> command) {
        this.coldCommand = List.copyOf(command);
        return this;
    }

    /**
     * Runs every stage under {@code preset}'s spec on inputs of its layout (generated as {@code
     * generate --preset} does); results name their regime {@code preset/regime}.
     */
    public Bench withPreset(Presets.Preset preset) {
        this.preset = preset;
        this.options =
                SpecCompiler.decodeOptions(preset.spec(), DecodeOptions.DEFAULT_MAX_RAW_BYTES);
        return this;
    }

    /** The layout of the inputs and outputs. */
    private RowLayout layout() {
        return options.program().layout();
    }

    /** The regime as results name it: with a preset, {@code preset/regime}. */
    private String label(Regime regime) {
        return preset == null ? regime.name() : preset.name() + "/" + regime.name();
    }

    /**
     * The yardstick's ratio in one regime: pairs of a cold {@code preprocess} process and the
     * native C program on the same input, run alternately; {@code median} is the median of native
     * wall / piper wall over the pairs (above 1: piper on its cores beats one native core).
     */
    public record Ratio(
            String regime,
            int parallelism,
            List<Double> piperSeconds,
            List<Double> nativeSeconds,
            double median) {}

    /**
     * With {@link #withCold}: also runs the native C yardstick ({@code criteo_native.c}, compiled
     * with cc) on each cold process's input, alternately, and gives the ratio ({@link #ratios});
     * the built-in spec only (the program does DLRM's transform). Without a compiler or a source,
     * the ratio is skipped with a note ({@link #yardstickNote}).
     */
    public Bench withYardstick(Path source) {
        this.yardstickSource = source;
        return this;
    }

    /** The ratios measured, one per regime and parallelism of the cold runs. */
    public List<Ratio> ratios() {
        return List.copyOf(ratios);
    }

    /** Why no ratio was measured though one was asked for, or null. */
    public String yardstickNote() {
        return yardstickNote;
    }

    /** The stage name of {@link #withCold}'s results. */
    public static final String COLD_STAGE = "cold process (rows / wall time)";

    /** Rows per block of the Parquet measurements: the job's default. */
    static final int PARQUET_BLOCK_ROWS = 4096;

    /** The job runs of {@link #run}, with the settings made by then. */
    private JobRuns jobRuns;

    public List<Result> run(List<Regime> regimes) throws Exception {
        Files.createDirectories(dataDir);
        jobRuns = new JobRuns(dataDir, blockBytes, preset, layout(), coldCommand, progress);
        List<Result> results = new ArrayList<>();
        for (Regime regime : regimes) {
            Inputs in = singleThread(regime, regime == regimes.get(0), results);
            for (int p : parallelisms) {
                progress.printf("bench %s: Flink job at parallelism %d%n", label(regime), p);
                results.addAll(jobs(regime, in, p));
                if (coldCommand != null) {
                    results.add(cold(regime, in, p));
                }
                if (withParquet) {
                    results.add(parquetJob(regime, in, p));
                }
                if (withEvents) {
                    results.add(eventsJob(regime, in, p, "json"));
                    results.add(eventsJob(regime, in, p, "avro"));
                }
            }
        }
        return results;
    }

    /**
     * A regime's inputs, their single-thread reference passes (whose rows every job must write)
     * and, with {@link #withParquet}, their Parquet copies.
     */
    private record Inputs(
            Path full,
            Path half,
            long fullBytes,
            long halfBytes,
            SingleThreadLoops.Pass reference,
            SingleThreadLoops.Pass halfReference,
            Path parquetFull,
            Path parquetHalf,
            Path eventsFull,
            Path eventsHalf,
            Path avroFull,
            Path avroHalf) {

        /** The same lines in other files (Parquet, JSON events): the same reference rows. */
        Inputs copies(Path full, Path half) throws IOException {
            return new Inputs(
                    full,
                    half,
                    Files.size(full),
                    Files.size(half),
                    reference,
                    halfReference,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null);
        }
    }

    /** The best runs of one job on the full and the half input. */
    private record Runs(JobRuns.JobRun full, JobRuns.JobRun half) {
        Runs faster(JobRuns.JobRun fullRun, JobRuns.JobRun halfRun) {
            return new Runs(JobRuns.faster(full, fullRun), JobRuns.faster(half, halfRun));
        }
    }

    /** Generates the regime's inputs and measures the single-thread loops on them. */
    private Inputs singleThread(Regime regime, boolean first, List<Result> results)
            throws Exception {
        Path full = data(regime, rows);
        Path half = data(regime, rows / 2);
        progress.printf("bench %s: single-thread loops%n", label(regime));
        results.add(
                loop(
                                regime,
                                "decode, 1 thread, no Flink",
                                full,
                                half,
                                SingleThreadLoops::decodeOnly)
                        .result());
        if (withFusion && first) {
            results.addAll(fusion(regime, full, half));
        }
        LoopResult fused =
                loop(
                        regime,
                        "fused column work, 1 thread, no Flink",
                        full,
                        half,
                        SingleThreadLoops::fused);
        results.add(fused.result());
        Path pFull = null;
        Path pHalf = null;
        if (withParquet) {
            pFull = parquet(full);
            pHalf = parquet(half);
            results.addAll(parquetLoops(regime, full, half, pFull, pHalf));
        }
        Path jFull = null;
        Path jHalf = null;
        Path aFull = null;
        Path aHalf = null;
        if (withEvents) {
            jFull = events(full);
            jHalf = events(half);
            results.addAll(eventLoops(regime, half, jFull, jHalf, "json"));
            results.addAll(
                    eventLoops(
                            regime,
                            half,
                            avroEvents(full, false),
                            avroEvents(half, false),
                            "avro"));
            aFull = avroEvents(full, true); // the job reads typed ids, as Avro producers write
            aHalf = avroEvents(half, true);
            results.addAll(eventLoops(regime, half, aFull, aHalf, "avro, long ids"));
            results.addAll(eventLoops(regime, half, csvEvents(full), csvEvents(half), "csv"));
        }
        return new Inputs(
                full,
                half,
                Files.size(full),
                Files.size(half),
                fused.full(),
                fused.half(),
                pFull,
                pHalf,
                jFull,
                jHalf,
                aFull,
                aHalf);
    }

    /**
     * The Flink job at parallelism {@code p}, and with {@link #withReport} and {@link #withHotline}
     * the job with each, alternating so that JIT warm-up favours none; each must write the
     * single-thread reference's rows.
     */
    private List<Result> jobs(Regime regime, Inputs in, int p) throws Exception {
        Runs plain = new Runs(null, null);
        Runs report = new Runs(null, null);
        Runs hot = new Runs(null, null);
        for (int i = 0; i < repeat; i++) {
            plain = plain.faster(job(in.full(), p, false), job(in.half(), p, false));
            if (withReport) {
                report = report.faster(job(in.full(), p, true), job(in.half(), p, true));
            }
            if (hotlineBudget > 0) {
                hot =
                        hot.faster(
                                jobRuns.job(in.full(), p, hotline()),
                                jobRuns.job(in.half(), p, hotline()));
            }
        }
        List<Result> results = new ArrayList<>();
        if (hotlineBudget > 0) {
            results.add(checked(regime, in, p, "Flink job with Hotline", hot));
        }
        if (withReport) {
            results.add(checked(regime, in, p, "Flink job with --report", report));
        }
        results.add(checked(regime, in, p, "Flink job", plain));
        return results;
    }

    /**
     * The result of {@code stage}'s runs, once their rows are the single-thread reference's.
     *
     * @throws IllegalStateException naming the regime, parallelism and stage, if they are not
     */
    private Result checked(Regime regime, Inputs in, int p, String stage, Runs runs) {
        if (!runs.full().sha256().equals(in.reference().rowsSha256())
                || !runs.half().sha256().equals(in.halfReference().rowsSha256())) {
            throw new IllegalStateException(
                    "regime "
                            + regime.name()
                            + ", parallelism "
                            + p
                            + ": "
                            + stage
                            + " wrote other rows than the single-thread reference ("
                            + runs.full().sha256()
                            + " vs "
                            + in.reference().rowsSha256()
                            + ")");
        }
        return result(
                regime,
                stage,
                p,
                in.fullBytes(),
                in.halfBytes(),
                runs.full().seconds(),
                runs.half().seconds(),
                true);
    }

    /** The compiled yardstick, looked for once; null without one (or for a preset's spec). */
    private Yardstick yardstick() throws IOException, InterruptedException {
        if (yardstickSource == null || yardstick != null || yardstickNote != null) {
            return yardstick;
        }
        if (preset != null) {
            yardstickNote =
                    "the yardstick does DLRM's Criteo transform, not " + preset.name() + "'s";
            return null;
        }
        Yardstick.Found found = Yardstick.compile(yardstickSource, dataDir, progress);
        yardstick = found.yardstick();
        yardstickNote = found.whyNot();
        return yardstick;
    }

    /** A whole cold process ({@link #withCold}): its rate, start-up included. */
    private Result cold(Regime regime, Inputs in, int p) throws Exception {
        double cFull = Double.MAX_VALUE;
        double cHalf = Double.MAX_VALUE;
        Yardstick program = yardstick();
        List<Double> piperSeconds = new ArrayList<>();
        List<Double> nativeSeconds = new ArrayList<>();
        for (int i = 0; i < repeat; i++) {
            double full = jobRuns.cold(in.full(), p, in.reference().rowsSha256());
            cFull = Math.min(cFull, full);
            if (program != null) { // right after: the pair shares the machine's state
                piperSeconds.add(full);
                nativeSeconds.add(program.run(in.full(), in.reference().rowsSha256()));
            }
            cHalf = Math.min(cHalf, jobRuns.cold(in.half(), p, in.halfReference().rowsSha256()));
        }
        if (program != null) {
            List<Double> pairs = new ArrayList<>();
            for (int i = 0; i < piperSeconds.size(); i++) {
                pairs.add(nativeSeconds.get(i) / piperSeconds.get(i));
            }
            ratios.add(
                    new Ratio(
                            label(regime),
                            p,
                            piperSeconds,
                            nativeSeconds,
                            Yardstick.median(pairs)));
        }
        // the whole process's rate, not the marginal one: start-up is what it shows
        return new Result(
                label(regime),
                regime.scale(),
                COLD_STAGE,
                p,
                rows,
                in.fullBytes(),
                cFull,
                cHalf,
                rows / cFull,
                in.fullBytes() / 1e6 / cFull,
                true);
    }

    /** The Flink job on the Parquet copies; its rows must be the text's reference's. */
    private Result parquetJob(Regime regime, Inputs in, int p) throws Exception {
        Runs runs = new Runs(null, null);
        for (int i = 0; i < repeat; i++) {
            runs = runs.faster(job(in.parquetFull(), p, false), job(in.parquetHalf(), p, false));
        }
        Inputs parquet = in.copies(in.parquetFull(), in.parquetHalf());
        return checked(regime, parquet, p, "Flink job, Parquet input", runs);
    }

    /**
     * The events spec ({@code format} json or avro) of the built-in chains: events decode to the
     * text's rows under it.
     */
    private String eventsSpec(String format, String idParser) {
        String input =
                format.equals("csv")
                        ? "{\"format\": \"csv\", \"header\": true, \"columns\": [\""
                                + String.join("\", \"", TsvToCsv.columns(layout()))
                                + "\"]}"
                        : "{\"format\": \"" + format + "\"}";
        return """
                {"name": "dlrm-criteo-events", "version": 1, "input": %s,
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1..I13": ["decode", "fill_missing", "neg2zero"],
                   "C1..C26": ["decode", "fill_missing", "%s", "vocab"]
                 }}
                """
                .formatted(input, idParser);
    }

    /** The decode options of {@link #eventsSpec}; Avro's with the schema of {@code file}'s. */
    private DecodeOptions eventsOptions(String format, String idParser, Path file)
            throws IOException {
        DecodeOptions o;
        try {
            o =
                    SpecCompiler.decodeOptions(
                            SpecParser.parse(
                                    eventsSpec(format, idParser).getBytes(StandardCharsets.UTF_8),
                                    "events spec"),
                            DecodeOptions.DEFAULT_MAX_RAW_BYTES);
        } catch (SpecException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        if (!format.equals("avro")) {
            return o;
        }
        String schema;
        try (InputStream in = Files.newInputStream(file)) {
            schema = AvroBlockChunker.writerSchema(in);
        }
        return new DecodeOptions(
                o.program(),
                o.padMissingFields(),
                o.maxLineBytes(),
                o.maxRawBytes(),
                o.events().withAvro(AvroOptions.CONTAINER.withSchema(schema)));
    }

    /** The Flink job on the JSON or Avro events; its rows must be the text's reference's. */
    private Result eventsJob(Regime regime, Inputs in, int p, String format) throws Exception {
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, eventsSpec(format, "hex2int"));
        boolean avro = format.equals("avro");
        Path full = avro ? in.avroFull() : in.eventsFull();
        Path half = avro ? in.avroHalf() : in.eventsHalf();
        Runs runs = new Runs(null, null);
        for (int i = 0; i < repeat; i++) {
            runs = runs.faster(jobRuns.job(full, p, conf), jobRuns.job(half, p, conf));
        }
        Inputs events = in.copies(full, half);
        return checked(
                regime,
                events,
                p,
                "Flink job, " + (avro ? "Avro events, long ids" : "JSON events"),
                runs);
    }

    /**
     * JSON events decoded in one thread without Flink: under the hex2int spec (first verified: the
     * smaller file's decoded values must hash as its text's) and under hash64.
     */
    private List<Result> eventLoops(Regime regime, Path half, Path jFull, Path jHalf, String kind)
            throws Exception {
        boolean longIds = kind.equals("avro, long ids");
        String format = kind.startsWith("avro") ? "avro" : kind;
        String name =
                longIds
                        ? "Avro events, long ids,"
                        : switch (format) {
                            case "avro" -> "Avro events";
                            case "csv" -> "CSV lines";
                            default -> "JSON events";
                        };
        progress.printf("bench %s: %s decode, no Flink%n", regime.name(), name);
        DecodeOptions hex = eventsOptions(format, "hex2int", jHalf);
        if (!SingleThreadLoops.decodedSha256(jHalf, blockBytes, hex)
                .equals(SingleThreadLoops.decodedSha256(half, blockBytes, options, true))) {
            throw new IllegalStateException(
                    jHalf + ": its decoded values differ from those of " + half);
        }
        List<Result> out = new ArrayList<>();
        // ids that are longs are no text to hash
        for (String parser : longIds ? List.of("hex2int") : List.of("hex2int", "hash64")) {
            DecodeOptions o = eventsOptions(format, parser, jHalf);
            SingleThreadLoops.decodeAny(jHalf, blockBytes, o); // warm-up
            SingleThreadLoops.Pass bestFull = null;
            SingleThreadLoops.Pass bestHalf = null;
            for (int i = 0; i < repeat; i++) {
                bestFull = faster(bestFull, SingleThreadLoops.decodeAny(jFull, blockBytes, o));
                bestHalf = faster(bestHalf, SingleThreadLoops.decodeAny(jHalf, blockBytes, o));
            }
            checkRead(bestFull, rows, jFull);
            checkRead(bestHalf, rows / 2, jHalf);
            out.add(
                    result(
                            regime,
                            name + " decode (" + parser + "), 1 thread, no Flink",
                            1,
                            Files.size(jFull),
                            Files.size(jHalf),
                            bestFull.seconds(),
                            bestHalf.seconds(),
                            parser.equals("hex2int")));
        }
        return out;
    }

    /**
     * The Avro events of a generated input ({@code piper convert --output-format avro}, no codec),
     * made once and cached.
     */
    private Path avroEvents(Path tsv, boolean longIds) throws IOException {
        Path file =
                tsv.resolveSibling(
                        tsv.getFileName()
                                .toString()
                                .replace(".tsv", longIds ? "-longids.avro" : ".avro"));
        if (!Files.exists(file)) {
            progress.printf("bench: converting %s to Avro events%n", tsv.getFileName());
            Path tmp = Files.createTempFile(dataDir, "converting-", ".avro");
            Files.delete(tmp);
            TsvToAvro.Result r =
                    TsvToAvro.convert(
                            tsv, tmp, new CriteoAvro(layout(), longIds), "null", progress);
            Files.delete(TsvToAvro.rejectedFile(tmp));
            if (r.rejected() > 0) {
                throw new IllegalStateException(
                        tsv
                                + ": "
                                + r.rejected()
                                + " lines have no Avro record (generated input?)");
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        return file;
    }

    /** The CSV of a generated input ({@code piper convert --output-format csv}), made once. */
    private Path csvEvents(Path tsv) throws IOException {
        return converted(
                tsv, ".csv", "CSV", (in, out) -> TsvToCsv.convert(in, out, layout(), progress));
    }

    /** The JSON events of a generated input ({@code piper convert}), made once and cached. */
    private Path events(Path tsv) throws IOException {
        return converted(
                tsv,
                ".jsonl",
                "JSON events",
                (in, out) -> TsvToJson.convert(in, out, layout(), progress));
    }

    /** A conversion of a generated input to a file. */
    private interface Conversion {
        void convert(Path tsv, Path out) throws IOException;
    }

    /**
     * {@code tsv} converted to the file beside it ending in {@code extension} instead of .tsv, made
     * once (into a temporary file moved into place) and cached.
     */
    private Path converted(Path tsv, String extension, String what, Conversion conversion)
            throws IOException {
        Path file = tsv.resolveSibling(tsv.getFileName().toString().replace(".tsv", extension));
        if (!Files.exists(file)) {
            progress.printf("bench: converting %s to %s%n", tsv.getFileName(), what);
            Path tmp = Files.createTempFile(dataDir, "converting-", extension);
            Files.delete(tmp);
            conversion.convert(tsv, tmp);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        return file;
    }

    /**
     * Parquet read and decode without Flink, on as many threads as each parallelism; first
     * verified: the decoded rows of the smaller file must hash as those of its text.
     */
    private List<Result> parquetLoops(Regime regime, Path full, Path half, Path pFull, Path pHalf)
            throws Exception {
        progress.printf("bench %s: Parquet read + column ops, no Flink%n", regime.name());
        DecodeOptions options = DecodeOptions.defaults();
        if (!ParquetLoops.rowsSha256(pHalf, PARQUET_BLOCK_ROWS, options.program())
                .equals(ParquetLoops.textRowsSha256(half, blockBytes, options))) {
            throw new IllegalStateException(
                    pHalf + ": its decoded rows differ from those of " + half);
        }
        List<Result> out = new ArrayList<>();
        for (int p : parallelisms) {
            for (int i = 0; i < 2; i++) { // warm-up: the JIT compiles the reader's loops
                ParquetLoops.read(pHalf, p, PARQUET_BLOCK_ROWS, options.program());
            }
            SingleThreadLoops.Pass bestFull = null;
            SingleThreadLoops.Pass bestHalf = null;
            for (int i = 0; i < repeat; i++) {
                bestFull =
                        faster(
                                bestFull,
                                ParquetLoops.read(pFull, p, PARQUET_BLOCK_ROWS, options.program()));
                bestHalf =
                        faster(
                                bestHalf,
                                ParquetLoops.read(pHalf, p, PARQUET_BLOCK_ROWS, options.program()));
            }
            checkRead(bestFull, rows, pFull);
            checkRead(bestHalf, rows / 2, pHalf);
            out.add(
                    result(
                            regime,
                            "Parquet read + column ops, no Flink",
                            p,
                            Files.size(pFull),
                            Files.size(pHalf),
                            bestFull.seconds(),
                            bestHalf.seconds(),
                            true));
        }
        return out;
    }

    /**
     * The Parquet conversion of a generated input ({@code piper convert}), made once and cached.
     */
    private Path parquet(Path tsv) throws IOException {
        Path file = tsv.resolveSibling(tsv.getFileName().toString().replace(".tsv", ".parquet"));
        if (!Files.exists(file)) {
            progress.printf("bench: converting %s to Parquet%n", tsv.getFileName());
            Path tmp = Files.createTempFile(dataDir, "converting-", ".parquet");
            Files.delete(tmp);
            Path dead = dataDir.resolve("converting.dead-letters.jsonl");
            TsvToParquet.convert(
                    tsv,
                    tmp,
                    dead,
                    DecodeOptions.defaults(),
                    CompressionCodecName.SNAPPY,
                    TsvToParquet.DEFAULT_ROW_GROUP_ROWS,
                    progress);
            Files.delete(dead);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        return file;
    }

    /** Resource of the spec whose column passes the fusion measurement runs. */
    static final String RAP_SPEC = "/specs/rap-criteo.json";

    /**
     * RAP's horizontal fusion: decoding under {@link #RAP_SPEC} with its column passes fused and
     * with one pass per column and operator, alternating; both must decode the same values (sha256
     * of every decoded value of the smaller input, outside the timing).
     */
    private List<Result> fusion(Regime regime, Path full, Path half) throws IOException {
        progress.printf("bench %s: column passes fused and unfused%n", regime.name());
        DecodeOptions options;
        try (InputStream in = Bench.class.getResourceAsStream(RAP_SPEC)) {
            PipelineSpec spec = SpecParser.parse(in.readAllBytes(), RAP_SPEC);
            options = SpecCompiler.decodeOptions(spec, DecodeOptions.DEFAULT_MAX_RAW_BYTES);
        } catch (SpecException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        Loop fused = (input, b, o) -> SingleThreadLoops.decode(input, b, o, true);
        Loop unfused = (input, b, o) -> SingleThreadLoops.decode(input, b, o, false);
        fused.run(half, blockBytes, options);
        unfused.run(half, blockBytes, options);
        SingleThreadLoops.Pass[] best = new SingleThreadLoops.Pass[4];
        for (int i = 0; i < repeat; i++) {
            best[0] = faster(best[0], fused.run(full, blockBytes, options));
            best[1] = faster(best[1], unfused.run(full, blockBytes, options));
            best[2] = faster(best[2], fused.run(half, blockBytes, options));
            best[3] = faster(best[3], unfused.run(half, blockBytes, options));
        }
        long fullBytes = Files.size(full);
        long halfBytes = Files.size(half);
        boolean same =
                SingleThreadLoops.decodedSha256(half, blockBytes, options, true)
                        .equals(SingleThreadLoops.decodedSha256(half, blockBytes, options, false));
        if (!same) {
            throw new IllegalStateException(
                    "regime " + regime.name() + ": fused and unfused column passes decode apart");
        }
        return List.of(
                result(
                        regime,
                        "decode + RAP column ops fused, 1 thread",
                        1,
                        fullBytes,
                        halfBytes,
                        best[0].seconds(),
                        best[2].seconds(),
                        true),
                result(
                        regime,
                        "decode + RAP column ops, a pass per column",
                        1,
                        fullBytes,
                        halfBytes,
                        best[1].seconds(),
                        best[3].seconds(),
                        true));
    }

    private static SingleThreadLoops.Pass faster(
            SingleThreadLoops.Pass best, SingleThreadLoops.Pass run) {
        return best == null || run.seconds() < best.seconds() ? run : best;
    }

    /** A single-thread loop over one input file. */
    private interface Loop {
        SingleThreadLoops.Pass run(Path input, int blockBytes, DecodeOptions options)
                throws IOException;
    }

    private record LoopResult(
            Result result, SingleThreadLoops.Pass full, SingleThreadLoops.Pass half) {}

    /** One warm-up pass, then the best of the repeats on each input. */
    private LoopResult loop(Regime regime, String stage, Path full, Path half, Loop loop)
            throws IOException {
        loop.run(half, blockBytes, options);
        SingleThreadLoops.Pass bestFull = best(loop, full, options);
        SingleThreadLoops.Pass bestHalf = best(loop, half, options);
        checkRead(bestFull, rows, full);
        checkRead(bestHalf, rows / 2, half);
        Result r =
                result(
                        regime,
                        stage,
                        1,
                        Files.size(full),
                        Files.size(half),
                        bestFull.seconds(),
                        bestHalf.seconds(),
                        true);
        return new LoopResult(r, bestFull, bestHalf);
    }

    /** A pass that did not see every generated line (a truncated cached input) measures nothing. */
    private static void checkRead(SingleThreadLoops.Pass pass, long expected, Path input) {
        if (pass.lines() != expected || pass.rows() != expected) {
            throw new IllegalStateException(
                    input
                            + ": a pass read "
                            + pass.lines()
                            + " lines and "
                            + pass.rows()
                            + " rows, expected "
                            + expected
                            + " of each; delete it to regenerate");
        }
    }

    private SingleThreadLoops.Pass best(Loop loop, Path input, DecodeOptions options)
            throws IOException {
        SingleThreadLoops.Pass best = null;
        for (int i = 0; i < repeat; i++) {
            SingleThreadLoops.Pass p = loop.run(input, blockBytes, options);
            if (best == null || p.seconds() < best.seconds()) {
                best = p;
            }
        }
        return best;
    }

    private Result result(
            Regime regime,
            String stage,
            int parallelism,
            long fullBytes,
            long halfBytes,
            double tFull,
            double tHalf,
            boolean verified) {
        double dt = tFull - tHalf;
        long dRows = rows - rows / 2;
        return new Result(
                label(regime),
                regime.scale(),
                stage,
                parallelism,
                rows,
                fullBytes,
                tFull,
                tHalf,
                dt > 0 ? dRows / dt : Double.NaN,
                dt > 0 ? (fullBytes - halfBytes) / 1e6 / dt : Double.NaN,
                verified);
    }

    private JobRuns.JobRun job(Path input, int parallelism, boolean report) throws Exception {
        Configuration conf = new Configuration();
        conf.set(ReportOptions.ENABLED, report);
        return jobRuns.job(input, parallelism, conf);
    }

    /** Hotline's options: the defaults but for the budget. */
    private Configuration hotline() {
        Configuration conf = new Configuration();
        conf.set(HotlineOptions.BUDGET, hotlineBudget);
        return conf;
    }

    /** The generated input of {@code n} lines for {@code regime}, generated once and cached. */
    private Path data(Regime regime, long n) throws IOException {
        Path file =
                dataDir.resolve(
                        String.format(
                                "%s-seed%d-scale%s-rows%d.tsv",
                                preset == null ? "criteo" : preset.name(),
                                seed,
                                BenchResults.plain(regime.scale()),
                                n));
        if (!Files.exists(file)) {
            progress.printf(
                    "bench: generating %,d lines at scale %s into %s%n",
                    n, BenchResults.plain(regime.scale()), file);
            Path tmp = Files.createTempFile(dataDir, "generating-", ".tsv");
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20)) {
                (preset == null
                                ? new CriteoGenerator(seed, regime.scale(), 0)
                                : new CriteoGenerator(
                                        layout(), seed, regime.scale(), 0, preset.meanListLength()))
                        .write(out, n);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        return file;
    }
}
