package dev.piper.cli;

import dev.piper.benchmarks.bench.Bench;
import dev.piper.benchmarks.bench.BenchChart;
import dev.piper.benchmarks.bench.BenchResults;
import dev.piper.job.PiperOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.Sizes;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code piper bench}: throughput of the data path, measured. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Measure marginal throughput (rows/s, MB/s) of decoding, the fused column work and the"
                    + " full Flink job, for small, medium and large vocabularies; print a table and"
                    + " write JSON.",
            "Inputs are generated once and cached in --data-dir."
        })
public final class BenchCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--rows",
            defaultValue = "2000000",
            paramLabel = "N",
            description =
                    "Lines of the larger input; the smaller has N/2 (default: ${DEFAULT-VALUE}).")
    long rows;

    @Option(
            names = "--regimes",
            defaultValue = "small,medium,large",
            split = ",",
            paramLabel = "R",
            description =
                    "Vocabulary regimes: small (scale 0.0005, ~5K), medium (0.01, ~100K), large (0.1, ~1M) (default: ${DEFAULT-VALUE}).")
    List<String> regimes;

    @Option(
            names = "--parallelism",
            defaultValue = "1,2",
            split = ",",
            paramLabel = "P",
            description = "Job parallelisms to measure (default: ${DEFAULT-VALUE}).")
    List<Integer> parallelism;

    @Option(
            names = "--block-bytes",
            defaultValue = "1048576",
            paramLabel = "B",
            description = "Input bytes per block (default: ${DEFAULT-VALUE}).")
    int blockBytes;

    @Option(
            names = "--repeat",
            defaultValue = "2",
            paramLabel = "K",
            description = "Runs per measurement; the fastest counts (default: ${DEFAULT-VALUE}).")
    int repeat;

    @Option(
            names = "--seed",
            defaultValue = "1",
            paramLabel = "S",
            description = "Generator seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "Where generated inputs are cached (default: $TMPDIR/piper-bench).")
    Path dataDir;

    @Option(
            names = "--json",
            defaultValue = "bench-results.json",
            paramLabel = "FILE",
            description = "Where to write the results as JSON (default: ${DEFAULT-VALUE}).")
    Path json;

    @Option(
            names = "--with-report",
            description =
                    "Also run every job with the cost report on (preprocess --report), alternating"
                            + " with the plain job, to measure the measurement's overhead.")
    boolean withReport;

    @Option(
            names = "--with-hotline",
            paramLabel = "BYTES",
            description =
                    "Also run every job with Hotline's split at this budget (preprocess"
                            + " --hotline-budget, the other settings at their defaults), alternating"
                            + " with the plain job, to measure the split's overhead.")
    String withHotline;

    @Option(
            names = "--fusion",
            description =
                    "Also measure RAP's horizontal fusion: decoding under the spec"
                            + " specs/rap-criteo.json (clamp, bucketize, log, boxcox, cast,"
                            + " sigrid_hash) with its column passes fused and with one pass per"
                            + " column and operator (first regime only; both must decode the same"
                            + " values).")
    boolean fusion;

    @Option(
            names = "--parquet",
            description =
                    "Also measure Parquet input: the inputs converted to Parquet (piper convert),"
                            + " read and decoded on --parallelism threads without Flink, and the"
                            + " Flink job over them; every output verified against the text's.")
    boolean parquet;

    @Option(
            names = "--cold",
            description =
                    "Also measure what a user sees: each input preprocessed by a new piper process"
                            + " (started as this one was: the same java, flags and class-data"
                            + " archive), N / its wall time from start to exit, JVM start, cluster"
                            + " start and JIT warm-up included; the page cache is warm, the output"
                            + " verified.")
    boolean cold;

    @Option(
            names = "--preset",
            paramLabel = "NAME",
            description =
                    "Measure a preset's spec instead of the built-in DLRM Criteo spec: PreSto's"
                            + " rm1..rm5 (inputs of its layout, as generate --preset writes them;"
                            + " the verified output is rows.bin and every list column's files)."
                            + " Not with --fusion or --parquet.")
    String preset;

    @Option(
            names = "--chart-from",
            paramLabel = "JSON",
            description =
                    "Do not measure: draw the chart (--json with .svg) of an earlier run's JSON file.")
    Path chartFrom;

    private static String title(List<Bench.Result> results) {
        boolean cold = results.stream().anyMatch(r -> r.stage().equals(Bench.COLD_STAGE));
        return "piper bench: "
                + (cold ? "rows/s (marginal; cold: rows / process wall time)" : "marginal rows/s")
                + " by vocabulary regime ("
                + Runtime.getRuntime().availableProcessors()
                + " cores)";
    }

    /**
     * Checks the options that are wrong on their own, naming the option; returns the regimes of
     * {@code --regimes}.
     */
    private List<Bench.Regime> checkedRegimes() {
        if (rows < 2) {
            throw new ParameterException(
                    spec.commandLine(), "--rows: must be at least 2, not " + rows);
        }
        PiperOptions.blockBytesProblem(0, blockBytes)
                .ifPresent(
                        why -> {
                            throw new ParameterException(
                                    spec.commandLine(), "--block-bytes: " + why);
                        });
        for (int p : parallelism) {
            if (p < 1) {
                throw new ParameterException(
                        spec.commandLine(), "--parallelism: must be at least 1, not " + p);
            }
        }
        if (repeat < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--repeat: must be at least 1, not " + repeat);
        }
        List<Bench.Regime> chosen = new ArrayList<>();
        for (String name : regimes) {
            Bench.Regime regime =
                    Bench.REGIMES.stream()
                            .filter(r -> r.name().equals(name))
                            .findFirst()
                            .orElseThrow(
                                    () ->
                                            new ParameterException(
                                                    spec.commandLine(),
                                                    "--regimes: unknown regime '"
                                                            + name
                                                            + "' (small, medium, large)"));
            chosen.add(regime);
        }
        return chosen;
    }

    /** The bench of the options: its stages and spec. */
    private Bench configured(Path dir) {
        Bench bench = new Bench(dir, rows, seed, blockBytes, parallelism, repeat, System.err);
        if (withReport) {
            bench.withReport();
        }
        if (withHotline != null) {
            try {
                bench.withHotline(Sizes.bytes(withHotline));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--with-hotline: \"" + withHotline + "\" is not a size in bytes (e.g. 1m)");
            }
        }
        if (preset != null) {
            if (fusion || parquet) {
                throw new ParameterException(
                        spec.commandLine(),
                        (fusion ? "--fusion" : "--parquet")
                                + " measures the built-in spec; it cannot be combined with"
                                + " --preset");
            }
            try {
                bench.withPreset(Presets.named(preset));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--preset: " + e.getMessage());
            }
        }
        if (fusion) {
            bench.withFusion();
        }
        if (parquet) {
            bench.withParquet();
        }
        if (cold) {
            bench.withCold(thisCommand());
        }
        return bench;
    }

    @Override
    public Integer call() throws Exception {
        Path svg =
                json.resolveSibling(
                        json.getFileName().toString().replaceFirst("\\.json$", "") + ".svg");
        if (chartFrom != null) {
            if (!java.nio.file.Files.isRegularFile(chartFrom)) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--chart-from: " + chartFrom + " is not a readable file");
            }
            List<Bench.Result> earlier = BenchResults.readJson(chartFrom);
            BenchChart.write(earlier, title(earlier), svg);
            spec.commandLine().getOut().printf("chart of %s written to %s%n", chartFrom, svg);
            return 0;
        }
        List<Bench.Regime> chosen = checkedRegimes();
        Path dir =
                dataDir != null
                        ? dataDir
                        : Path.of(System.getProperty("java.io.tmpdir"), "piper-bench");
        Bench bench = configured(dir);
        List<Bench.Result> results = bench.run(chosen);
        BenchResults.printTable(results, spec.commandLine().getOut());
        BenchResults.writeJson(results, json, rows, seed, blockBytes);
        BenchChart.write(results, title(results), svg);
        spec.commandLine()
                .getOut()
                .printf(
                        "%nMethod: marginal rows/s = (N - N/2) / (t(N) - t(N/2)), N = %,d, best of"
                                + " %d runs; job times are Flink's net run time (cluster start-up"
                                + " excluded)%s; every job output is verified by sha256. Results in"
                                + " %s%n",
                        rows,
                        repeat,
                        cold
                                ? "; \""
                                        + Bench.COLD_STAGE
                                        + "\" is N / the wall time of a whole process"
                                : "",
                        json);
        return 0;
    }

    /**
     * The command line that started this process, up to its main class: the same java, JVM flags
     * (bin/piper's module flags, class-data archive, log settings) and class path.
     */
    static List<String> thisCommand() {
        List<String> command = new ArrayList<>();
        command.add(
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(
                                Path.of(System.getProperty("java.home"), "bin", "java")
                                        .toString()));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(PiperCli.class.getName());
        return command;
    }
}
