package dev.piper.benchmarks.bench;

import dev.piper.job.HotlineOptions;
import dev.piper.job.PiperOptions;
import dev.piper.job.ReportOptions;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;

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
            boolean outputVerified) {

        /**
         * The marginal rates of {@code stage} from its runs on N = {@code rows} lines and on N/2:
         * (N - N/2) / (t(N) - t(N/2)); NaN when the two times do not differ.
         */
        static Result marginal(
                String regime,
                double scale,
                String stage,
                int parallelism,
                long rows,
                long fullBytes,
                long halfBytes,
                double tFull,
                double tHalf,
                boolean verified) {
            double dt = tFull - tHalf;
            long dRows = rows - rows / 2;
            return new Result(
                    regime,
                    scale,
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
    }

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

    /**
     * Also measures the column passes of {@link SingleThreadStages#RAP_SPEC} fused and unfused
     * (first regime).
     */
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

    /** The generated inputs of {@link #run} and their conversions. */
    private BenchInputs inputs;

    /** The single-thread loops of {@link #run}, without Flink. */
    private SingleThreadStages loops;

    public List<Result> run(List<Regime> regimes) throws Exception {
        Files.createDirectories(dataDir);
        jobRuns = new JobRuns(dataDir, blockBytes, preset, layout(), coldCommand, progress);
        inputs = new BenchInputs(dataDir, seed, preset, layout(), progress);
        loops =
                new SingleThreadStages(
                        this::label, rows, blockBytes, repeat, options, inputs, progress);
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
        Path full = inputs.data(regime, rows);
        Path half = inputs.data(regime, rows / 2);
        progress.printf("bench %s: single-thread loops%n", label(regime));
        results.add(
                loops.loop(
                                regime,
                                "decode, 1 thread, no Flink",
                                full,
                                half,
                                SingleThreadLoops::decodeOnly)
                        .result());
        if (withFusion && first) {
            results.addAll(loops.fusion(regime, full, half));
        }
        SingleThreadStages.LoopResult fused =
                loops.loop(
                        regime,
                        "fused column work, 1 thread, no Flink",
                        full,
                        half,
                        SingleThreadLoops::fused);
        results.add(fused.result());
        Path pFull = null;
        Path pHalf = null;
        if (withParquet) {
            pFull = inputs.parquet(full);
            pHalf = inputs.parquet(half);
            results.addAll(loops.parquetLoops(regime, full, half, pFull, pHalf, parallelisms));
        }
        Path jFull = null;
        Path jHalf = null;
        Path aFull = null;
        Path aHalf = null;
        if (withEvents) {
            jFull = inputs.events(full);
            jHalf = inputs.events(half);
            results.addAll(loops.eventLoops(regime, half, jFull, jHalf, "json"));
            results.addAll(
                    loops.eventLoops(
                            regime,
                            half,
                            inputs.avroEvents(full, false),
                            inputs.avroEvents(half, false),
                            "avro"));
            aFull =
                    inputs.avroEvents(
                            full, true); // the job reads typed ids, as Avro producers write
            aHalf = inputs.avroEvents(half, true);
            results.addAll(loops.eventLoops(regime, half, aFull, aHalf, "avro, long ids"));
            results.addAll(
                    loops.eventLoops(
                            regime, half, inputs.csvEvents(full), inputs.csvEvents(half), "csv"));
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
        return Result.marginal(
                label(regime),
                regime.scale(),
                stage,
                p,
                rows,
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

    /** The Flink job on the JSON or Avro events; its rows must be the text's reference's. */
    private Result eventsJob(Regime regime, Inputs in, int p, String format) throws Exception {
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, inputs.eventsSpec(format, "hex2int"));
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
}
