package dev.piper.benchmarks.bench;

import dev.piper.job.PiperOptions;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import dev.piper.job.args.JobOption;
import dev.piper.job.args.Program;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.Sizes;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code piper bench}: throughput of the data path, measured. A {@link Program}: the command line
 * finds it at run time (META-INF/services) and builds its options from {@link #OPTIONS}, so that
 * the command line does not depend on this module at compile time.
 */
public final class BenchProgram implements Program {

    static final JobOption ROWS =
            JobOption.value(
                    "--rows",
                    "N",
                    "2000000",
                    "Lines of the larger input; the smaller has N/2 (default: ${DEFAULT-VALUE}).");
    static final JobOption REGIMES =
            JobOption.value(
                    "--regimes",
                    "R",
                    "small,medium,large",
                    "Vocabulary regimes, comma-separated: small (scale 0.0005, ~5K), medium"
                            + " (0.01, ~100K), large (0.1, ~1M) (default: ${DEFAULT-VALUE}).");
    static final JobOption PARALLELISM =
            JobOption.value(
                    "--parallelism",
                    "P",
                    "1,2",
                    "Job parallelisms to measure, comma-separated (default: ${DEFAULT-VALUE}).");
    static final JobOption BLOCK_BYTES =
            JobOption.value(
                    "--block-bytes",
                    "B",
                    "1048576",
                    "Input bytes per block (default: ${DEFAULT-VALUE}).");
    static final JobOption REPEAT =
            JobOption.value(
                    "--repeat",
                    "K",
                    "2",
                    "Runs per measurement; the fastest counts (default: ${DEFAULT-VALUE}).");
    static final JobOption SEED =
            JobOption.value("--seed", "S", "1", "Generator seed (default: ${DEFAULT-VALUE}).");
    static final JobOption DATA_DIR =
            JobOption.value(
                    "--data-dir",
                    "DIR",
                    "Where generated inputs are cached (default: $TMPDIR/piper-bench).");
    static final JobOption JSON =
            JobOption.value(
                    "--json",
                    "FILE",
                    "bench-results.json",
                    "Where to write the results as JSON (default: ${DEFAULT-VALUE}).");
    static final JobOption WITH_REPORT =
            JobOption.flag(
                    "--with-report",
                    "Also run every job with the cost report on (preprocess --report), alternating"
                            + " with the plain job, to measure the measurement's overhead.");
    static final JobOption WITH_HOTLINE =
            JobOption.value(
                    "--with-hotline",
                    "BYTES",
                    "Also run every job with Hotline's split at this budget (preprocess"
                            + " --hotline-budget, the other settings at their defaults), alternating"
                            + " with the plain job, to measure the split's overhead.");
    static final JobOption FUSION =
            JobOption.flag(
                    "--fusion",
                    "Also measure RAP's horizontal fusion: decoding under the spec"
                            + " specs/rap-criteo.json (clamp, bucketize, log, boxcox, cast,"
                            + " sigrid_hash) with its column passes fused and with one pass per"
                            + " column and operator (first regime only; both must decode the same"
                            + " values).");
    static final JobOption PARQUET =
            JobOption.flag(
                    "--parquet",
                    "Also measure Parquet input: the inputs converted to Parquet (piper convert),"
                            + " read and decoded on --parallelism threads without Flink, and the"
                            + " Flink job over them; every output verified against the text's.");
    static final JobOption EVENTS =
            JobOption.flag(
                    "--events",
                    "Also measure JSON and Avro events and CSV: the inputs converted to JSON,"
                            + " to an uncompressed Avro container file and to CSV (piper convert"
                            + " --output-format json|avro|csv: 13 numeric and 26 string fields an"
                            + " event), decoded in one thread without Flink with hex2int"
                            + " (verified against the text) and with hash64, and the Flink job"
                            + " over the JSON and the Avro events (verified).");
    static final JobOption COLD =
            JobOption.flag(
                    "--cold",
                    "Also measure what a user sees: each input preprocessed by a new piper process"
                            + " (started as this one was: the same java, flags and class-data"
                            + " archive), N / its wall time from start to exit, JVM start, cluster"
                            + " start and JIT warm-up included; the page cache is warm, the output"
                            + " verified.");
    static final JobOption YARDSTICK =
            JobOption.value(
                    "--yardstick",
                    "FILE",
                    "With --cold: the yardstick's C source, a plain single-threaded DLRM Criteo"
                            + " transform compiled with cc -O3 -march=native and run alternately"
                            + " with each cold process on the same input; the bench prints the"
                            + " median ratio native wall / piper wall (default:"
                            + " ../shared/yardstick/criteo_native.c beside the piper checkout;"
                            + " without it or without cc the ratio is skipped with a note).");
    static final JobOption PRESET =
            JobOption.value(
                    "--preset",
                    "NAME",
                    "Measure a preset's spec instead of the built-in DLRM Criteo spec: PreSto's"
                            + " rm1..rm5 (inputs of its layout, as generate --preset writes them;"
                            + " the verified output is rows.bin and every list column's files)."
                            + " Not with --fusion, --parquet or --events.");
    static final JobOption JOIN =
            JobOption.value(
                    "--join",
                    "BOOTSTRAP",
                    "Measure the stream's label join instead, against the Kafka broker at"
                            + " BOOTSTRAP (e.g. piper kafka start's): --rows impressions and their"
                            + " clicks (generate --events json --actions, --seed) sent to two"
                            + " topics of 2 partitions, then whole cold piper stream processes"
                            + " alternating, the generated spec against the same spec without its"
                            + " labels, --repeat pairs; prints the median ratio of their"
                            + " impressions/s to all input committed, writes --json (default"
                            + " bench-join.json). The bench's topics are deleted at its end.");
    static final JobOption FRESHNESS =
            JobOption.value(
                    "--freshness",
                    "RATE",
                    "With --join: measure the label freshness instead of the ratio: the generated"
                            + " impressions and clicks re-timed to the wall clock and sent live,"
                            + " the impressions at RATE a second, to one cold piper stream (one"
                            + " run: not with --repeat); prints"
                            + " the percentiles of (row committed - window close -"
                            + " max_out_of_orderness) against the checkpoint interval + 1 s,"
                            + " writes --json (default bench-join-freshness.json).");
    static final JobOption FRESHNESS_WINDOW =
            JobOption.value(
                    "--freshness-window",
                    "DURATION",
                    "10s",
                    "With --freshness: the click window the stream joins in (default:"
                            + " ${DEFAULT-VALUE}; the impressions waiting are about RATE x"
                            + " DURATION).");
    static final JobOption FRESHNESS_WARMUP =
            JobOption.value(
                    "--freshness-warmup",
                    "DURATION",
                    "30s",
                    "With --freshness: the rows whose decision falls within DURATION of the first"
                            + " impression are printed apart from the figure (the cold stream's"
                            + " JIT and heap warm up as the first windows fill; default:"
                            + " ${DEFAULT-VALUE}).");
    static final JobOption CHECKPOINT_INTERVAL =
            JobOption.value(
                    "--checkpoint-interval",
                    "DURATION",
                    "5s",
                    "With --freshness: the stream's checkpoint interval, when its rows become"
                            + " visible (default: ${DEFAULT-VALUE}, the stream's).");
    static final JobOption STREAM_ARG =
            JobOption.repeatable(
                    "--stream-arg",
                    "ARG",
                    "With --join: one more argument for each piper stream the bench starts, after"
                            + " its own, as --stream-arg=ARG (e.g. --stream-arg=--join-lines=topic,"
                            + " or --stream-arg=--flink-conf --stream-arg=KEY=VALUE); repeat it for"
                            + " more. Both streams of a ratio's pair get them.");
    static final JobOption CHART_FROM =
            JobOption.value(
                    "--chart-from",
                    "JSON",
                    "Do not measure: draw the chart (--json with .svg) of an earlier run's JSON"
                            + " file.");

    /** The options, in the order of {@code --help}. */
    static final List<JobOption> OPTIONS =
            List.of(
                    ROWS,
                    REGIMES,
                    PARALLELISM,
                    BLOCK_BYTES,
                    REPEAT,
                    SEED,
                    DATA_DIR,
                    JSON,
                    WITH_REPORT,
                    WITH_HOTLINE,
                    FUSION,
                    PARQUET,
                    EVENTS,
                    COLD,
                    YARDSTICK,
                    PRESET,
                    JOIN,
                    FRESHNESS,
                    FRESHNESS_WINDOW,
                    FRESHNESS_WARMUP,
                    CHECKPOINT_INTERVAL,
                    STREAM_ARG,
                    CHART_FROM);

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public List<String> description() {
        return List.of(
                "Measure marginal throughput (rows/s, MB/s) of decoding, the fused column work and"
                        + " the full Flink job, for small, medium and large vocabularies; print a"
                        + " table and write JSON.",
                "Inputs are generated once and cached in --data-dir.");
    }

    @Override
    public List<JobOption> options() {
        return OPTIONS;
    }

    /** One run's options, read and checked. */
    private record Options(
            long rows,
            List<Bench.Regime> regimes,
            List<Integer> parallelism,
            int blockBytes,
            int repeat,
            long seed,
            Path dataDir,
            Path json) {

        static Options of(JobArgs args) {
            long rows = args.longValue(ROWS.name());
            if (rows < 2) {
                throw JobArgumentException.of(ROWS.name(), "must be at least 2, not " + rows);
            }
            int blockBytes = args.integer(BLOCK_BYTES.name());
            PiperOptions.blockBytesProblem(0, blockBytes)
                    .ifPresent(
                            why -> {
                                throw JobArgumentException.of(BLOCK_BYTES.name(), why);
                            });
            List<Integer> parallelism = new ArrayList<>();
            for (String p : commaSeparated(args, PARALLELISM)) {
                int n;
                try {
                    n = Integer.parseInt(p);
                } catch (NumberFormatException e) {
                    throw JobArgumentException.of(PARALLELISM.name(), "'" + p + "' is not an int");
                }
                if (n < 1) {
                    throw JobArgumentException.of(
                            PARALLELISM.name(), "must be at least 1, not " + n);
                }
                parallelism.add(n);
            }
            int repeat = args.integer(REPEAT.name());
            if (repeat < 1) {
                throw JobArgumentException.of(REPEAT.name(), "must be at least 1, not " + repeat);
            }
            List<Bench.Regime> regimes = new ArrayList<>();
            for (String name : commaSeparated(args, REGIMES)) {
                regimes.add(
                        Bench.REGIMES.stream()
                                .filter(r -> r.name().equals(name))
                                .findFirst()
                                .orElseThrow(
                                        () ->
                                                JobArgumentException.of(
                                                        REGIMES.name(),
                                                        "unknown regime '"
                                                                + name
                                                                + "' (small, medium, large)")));
            }
            Path dataDir =
                    args.given(DATA_DIR.name())
                            ? args.path(DATA_DIR.name())
                            : Path.of(System.getProperty("java.io.tmpdir"), "piper-bench");
            return new Options(
                    rows,
                    regimes,
                    parallelism,
                    blockBytes,
                    repeat,
                    args.longValue(SEED.name()),
                    dataDir,
                    args.path(JSON.name()));
        }

        private static List<String> commaSeparated(JobArgs args, JobOption option) {
            return java.util.Arrays.stream(args.string(option.name()).split(",", -1))
                    .map(String::strip)
                    .toList();
        }
    }

    private static String title(List<Bench.Result> results) {
        boolean cold = results.stream().anyMatch(r -> r.stage().equals(Bench.COLD_STAGE));
        return "piper bench: "
                + (cold ? "rows/s (marginal; cold: rows / process wall time)" : "marginal rows/s")
                + " by vocabulary regime ("
                + Runtime.getRuntime().availableProcessors()
                + " cores)";
    }

    /**
     * The yardstick's source: {@code --yardstick}, or {@code ../shared/yardstick/criteo_native.c}
     * beside the piper checkout ({@code piper.home}, set by bin/piper), or null.
     */
    private static Path yardstickSource(JobArgs args) {
        if (args.given(YARDSTICK.name())) {
            return args.path(YARDSTICK.name());
        }
        String home = System.getProperty("piper.home");
        return home == null
                ? null
                : Path.of(home).toAbsolutePath().resolveSibling("shared/yardstick/criteo_native.c");
    }

    /**
     * The yardstick's ratios first (a ratio holds across machines, rows/s do not), or why there are
     * none.
     */
    private static void printRatios(Bench bench, PrintWriter out) {
        for (Bench.Ratio r : bench.ratios()) {
            out.printf(
                    "yardstick %s: median ratio native/piper %.3f over %d pairs (cold piper"
                            + " preprocess --parallelism %d against criteo_native.c on one core,"
                            + " alternating; piper %s s, native %s s)%n",
                    r.regime(),
                    r.median(),
                    r.piperSeconds().size(),
                    r.parallelism(),
                    seconds(r.piperSeconds()),
                    seconds(r.nativeSeconds()));
        }
        if (bench.yardstickNote() != null) {
            out.printf("yardstick: no ratio: %s%n", bench.yardstickNote());
        }
    }

    private static String seconds(java.util.List<Double> s) {
        return s.stream()
                .map(v -> String.format("%.2f", v))
                .collect(java.util.stream.Collectors.joining(", "));
    }

    /** The bench of the options: its stages and spec. */
    private static Bench configured(JobArgs args, Options o, List<String> relaunch) {
        Bench bench =
                new Bench(
                        o.dataDir(),
                        o.rows(),
                        o.seed(),
                        o.blockBytes(),
                        o.parallelism(),
                        o.repeat(),
                        System.err);
        boolean fusion = args.flag(FUSION.name());
        boolean parquet = args.flag(PARQUET.name());
        boolean events = args.flag(EVENTS.name());
        if (args.flag(WITH_REPORT.name())) {
            bench.withReport();
        }
        String hotline = args.string(WITH_HOTLINE.name());
        if (hotline != null) {
            try {
                bench.withHotline(Sizes.bytes(hotline));
            } catch (IllegalArgumentException e) {
                throw JobArgumentException.of(
                        WITH_HOTLINE.name(),
                        "\"" + hotline + "\" is not a size in bytes (e.g. 1m)");
            }
        }
        String preset = args.string(PRESET.name());
        if (preset != null) {
            if (fusion || parquet || events) {
                throw new JobArgumentException(
                        (fusion ? FUSION : parquet ? PARQUET : EVENTS).name()
                                + " measures the built-in spec; it cannot be combined with"
                                + " --preset");
            }
            try {
                bench.withPreset(Presets.named(preset));
            } catch (IllegalArgumentException e) {
                throw JobArgumentException.of(PRESET.name(), e.getMessage());
            }
        }
        if (fusion) {
            bench.withFusion();
        }
        if (parquet) {
            bench.withParquet();
        }
        if (events) {
            bench.withEvents();
        }
        if (args.flag(COLD.name())) {
            bench.withCold(relaunch);
            bench.withYardstick(yardstickSource(args));
        } else if (args.given(YARDSTICK.name())) {
            throw JobArgumentException.of(
                    YARDSTICK.name(), "the ratio is to the cold processes: it needs --cold");
        }
        return bench;
    }

    @Override
    public int run(JobArgs args, Context context) throws Exception {
        PrintWriter out = context.out();
        Path json = args.path(JSON.name());
        Path svg =
                json.resolveSibling(
                        json.getFileName().toString().replaceFirst("\\.json$", "") + ".svg");
        Path chartFrom = args.path(CHART_FROM.name());
        if (chartFrom != null) {
            if (!Files.isRegularFile(chartFrom)) {
                throw JobArgumentException.of(
                        CHART_FROM.name(), chartFrom + " is not a readable file");
            }
            List<Bench.Result> earlier = BenchResults.readJson(chartFrom);
            BenchChart.write(earlier, title(earlier), svg);
            out.printf("chart of %s written to %s%n", chartFrom, svg);
            return 0;
        }
        Options o = Options.of(args);
        for (JobOption only : List.of(FRESHNESS_WINDOW, FRESHNESS_WARMUP, CHECKPOINT_INTERVAL)) {
            if (args.given(only.name()) && !args.given(FRESHNESS.name())) {
                throw new JobArgumentException(only.name() + " goes with " + FRESHNESS.name());
            }
        }
        if (args.given(STREAM_ARG.name()) && !args.given(JOIN.name())) {
            throw new JobArgumentException(STREAM_ARG.name() + " goes with " + JOIN.name());
        }
        if (args.given(FRESHNESS.name()) && !args.given(JOIN.name())) {
            throw new JobArgumentException(
                    FRESHNESS.name() + " measures the label join: give " + JOIN.name() + " too");
        }
        if (args.given(FRESHNESS.name()) && args.given(REPEAT.name())) {
            throw JobArgumentException.of(
                    REPEAT.name(),
                    "not with "
                            + FRESHNESS.name()
                            + ", which measures one live run per command: run it again for"
                            + " another");
        }
        if (args.given(JOIN.name())) {
            return join(args, o, context);
        }
        Bench bench = configured(args, o, context.relaunch());
        List<Bench.Result> results = bench.run(o.regimes());
        printRatios(bench, out);
        BenchResults.printTable(results, out);
        BenchResults.writeJson(results, bench.ratios(), json, o.rows(), o.seed(), o.blockBytes());
        BenchChart.write(results, title(results), svg);
        out.printf(
                "%nMethod: marginal rows/s = (N - N/2) / (t(N) - t(N/2)), N = %,d, best of"
                        + " %d runs; job times are Flink's net run time (cluster start-up"
                        + " excluded)%s; every job output is verified by sha256. Results in"
                        + " %s%n",
                o.rows(),
                o.repeat(),
                args.flag(COLD.name())
                        ? "; \"" + Bench.COLD_STAGE + "\" is N / the wall time of a whole process"
                        : "",
                json);
        return 0;
    }

    /** {@code --join}: the label join's bench alone. */
    private static int join(JobArgs args, Options o, Context context) throws Exception {
        for (JobOption other : List.of(FUSION, PARQUET, EVENTS, COLD, WITH_REPORT, PRESET)) {
            if (args.given(other.name()) && (!other.isFlag() || args.flag(other.name()))) {
                throw new JobArgumentException(
                        JOIN.name() + " measures the join alone; not with " + other.name());
            }
        }
        JoinBench bench =
                new JoinBench(
                        args.string(JOIN.name()),
                        o.rows(),
                        o.seed(),
                        o.repeat(),
                        o.dataDir(),
                        context.relaunch(),
                        args.strings(STREAM_ARG.name()),
                        System.err);
        if (args.given(FRESHNESS.name())) {
            double rate = args.decimal(FRESHNESS.name());
            if (!(rate > 0) || Double.isInfinite(rate)) {
                throw JobArgumentException.of(
                        FRESHNESS.name(), "'" + rate + "' is not a rate of impressions/s above 0");
            }
            JoinFreshness freshness =
                    new JoinFreshness(
                            args.string(JOIN.name()),
                            rate,
                            args.duration(FRESHNESS_WINDOW.name(), "").toMillis() + "ms",
                            args.duration(CHECKPOINT_INTERVAL.name(), ""),
                            args.duration(FRESHNESS_WARMUP.name(), ""),
                            context.relaunch(),
                            args.strings(STREAM_ARG.name()),
                            System.err);
            JoinFreshness.Result r = bench.freshness(freshness);
            Path json = args.given(JSON.name()) ? o.json() : Path.of("bench-join-freshness.json");
            JoinFreshness.print(r, context.out());
            JoinFreshness.writeJson(r, json);
            context.out().printf("Results in %s%n", json);
            return 0;
        }
        List<JoinBench.Pair> pairs = bench.run();
        Path json = args.given(JSON.name()) ? o.json() : Path.of("bench-join.json");
        bench.print(pairs, context.out());
        bench.writeJson(pairs, json);
        context.out().printf("Results in %s%n", json);
        return 0;
    }
}
