package dev.piper.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.connectors.convert.TsvToParquet;
import dev.piper.connectors.output.OutputLayout;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.HotlineOptions;
import dev.piper.job.PiperOptions;
import dev.piper.job.Preprocess;
import dev.piper.job.ReportOptions;
import dev.piper.pipeline.generate.CriteoGenerator;
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
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
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
 * files ({@link #outputSha256}).
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

    /** The command that starts a CLI process ({@link #withCold}); null: not measured. */
    private List<String> coldCommand;

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

    /** The stage name of {@link #withCold}'s results. */
    public static final String COLD_STAGE = "cold process (rows / wall time)";

    /** Rows per block of the Parquet measurements: the job's default. */
    static final int PARQUET_BLOCK_ROWS = 4096;

    public List<Result> run(List<Regime> regimes) throws Exception {
        Files.createDirectories(dataDir);
        List<Result> results = new ArrayList<>();
        for (Regime regime : regimes) {
            Path full = data(regime, rows);
            Path half = data(regime, rows / 2);
            long fullBytes = Files.size(full);
            long halfBytes = Files.size(half);

            progress.printf("bench %s: single-thread loops%n", label(regime));
            results.add(
                    loop(
                                    regime,
                                    "decode, 1 thread, no Flink",
                                    full,
                                    half,
                                    SingleThreadLoops::decodeOnly)
                            .result());
            if (withFusion && regime == regimes.get(0)) {
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
            SingleThreadLoops.Pass fFull = fused.full();
            SingleThreadLoops.Pass fHalf = fused.half();
            Path pFull = null;
            Path pHalf = null;
            if (withParquet) {
                pFull = parquet(full);
                pHalf = parquet(half);
                results.addAll(parquetLoops(regime, full, half, pFull, pHalf));
            }

            for (int p : parallelisms) {
                progress.printf("bench %s: Flink job at parallelism %d%n", label(regime), p);
                JobRun jFull = null;
                JobRun jHalf = null;
                JobRun rFull = null;
                JobRun rHalf = null;
                JobRun hFull = null;
                JobRun hHalf = null;
                for (int i = 0; i < repeat; i++) { // alternating, so JIT warm-up favours neither
                    jFull = faster(jFull, job(full, p, false));
                    if (withReport) {
                        rFull = faster(rFull, job(full, p, true));
                    }
                    if (hotlineBudget > 0) {
                        hFull = faster(hFull, job(full, p, hotline()));
                    }
                    jHalf = faster(jHalf, job(half, p, false));
                    if (withReport) {
                        rHalf = faster(rHalf, job(half, p, true));
                    }
                    if (hotlineBudget > 0) {
                        hHalf = faster(hHalf, job(half, p, hotline()));
                    }
                }
                if (hotlineBudget > 0) {
                    if (!hFull.sha256().equals(jFull.sha256())
                            || !hHalf.sha256().equals(jHalf.sha256())) {
                        throw new IllegalStateException(
                                "regime "
                                        + regime.name()
                                        + ", parallelism "
                                        + p
                                        + ": the job with Hotline's split wrote other rows");
                    }
                    results.add(
                            result(
                                    regime,
                                    "Flink job with Hotline",
                                    p,
                                    fullBytes,
                                    halfBytes,
                                    hFull.seconds(),
                                    hHalf.seconds(),
                                    true));
                }
                if (withReport) {
                    boolean same =
                            rFull.sha256().equals(jFull.sha256())
                                    && rHalf.sha256().equals(jHalf.sha256());
                    if (!same) {
                        throw new IllegalStateException(
                                "regime "
                                        + regime.name()
                                        + ", parallelism "
                                        + p
                                        + ": the job with --report wrote other rows");
                    }
                    results.add(
                            result(
                                    regime,
                                    "Flink job with --report",
                                    p,
                                    fullBytes,
                                    halfBytes,
                                    rFull.seconds(),
                                    rHalf.seconds(),
                                    true));
                }
                boolean verified =
                        jFull.sha256().equals(fFull.rowsSha256())
                                && jHalf.sha256().equals(fHalf.rowsSha256());
                if (!verified) {
                    throw new IllegalStateException(
                            "regime "
                                    + regime.name()
                                    + ", parallelism "
                                    + p
                                    + ": the output differs from the single-thread reference ("
                                    + jFull.sha256()
                                    + " vs "
                                    + fFull.rowsSha256()
                                    + ")");
                }
                results.add(
                        result(
                                regime,
                                "Flink job",
                                p,
                                fullBytes,
                                halfBytes,
                                jFull.seconds(),
                                jHalf.seconds(),
                                verified));
                if (coldCommand != null) {
                    double cFull = Double.MAX_VALUE;
                    double cHalf = Double.MAX_VALUE;
                    for (int i = 0; i < repeat; i++) {
                        cFull = Math.min(cFull, cold(full, p, fFull.rowsSha256()));
                        cHalf = Math.min(cHalf, cold(half, p, fHalf.rowsSha256()));
                    }
                    // the whole process's rate, not the marginal one: start-up is what it shows
                    results.add(
                            new Result(
                                    label(regime),
                                    regime.scale(),
                                    COLD_STAGE,
                                    p,
                                    rows,
                                    fullBytes,
                                    cFull,
                                    cHalf,
                                    rows / cFull,
                                    fullBytes / 1e6 / cFull,
                                    true));
                }
                if (withParquet) {
                    JobRun qFull = null;
                    JobRun qHalf = null;
                    for (int i = 0; i < repeat; i++) {
                        qFull = faster(qFull, job(pFull, p, false));
                        qHalf = faster(qHalf, job(pHalf, p, false));
                    }
                    if (!qFull.sha256().equals(fFull.rowsSha256())
                            || !qHalf.sha256().equals(fHalf.rowsSha256())) {
                        throw new IllegalStateException(
                                "regime "
                                        + regime.name()
                                        + ", parallelism "
                                        + p
                                        + ": rows.bin of the Parquet input differs from the"
                                        + " text's single-thread reference");
                    }
                    results.add(
                            result(
                                    regime,
                                    "Flink job, Parquet input",
                                    p,
                                    Files.size(pFull),
                                    Files.size(pHalf),
                                    qFull.seconds(),
                                    qHalf.seconds(),
                                    true));
                }
            }
        }
        return results;
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

    private record JobRun(double seconds, String sha256) {}

    /** The faster of two runs of the same job; their outputs must agree. */
    private static JobRun faster(JobRun best, JobRun run) {
        if (best == null) {
            return run;
        }
        if (!best.sha256().equals(run.sha256())) {
            throw new IllegalStateException(
                    "two runs of the same job wrote different rows.bin: "
                            + best.sha256()
                            + " vs "
                            + run.sha256());
        }
        return run.seconds() < best.seconds() ? run : best;
    }

    private JobRun job(Path input, int parallelism, boolean report) throws Exception {
        Configuration conf = new Configuration();
        conf.set(ReportOptions.ENABLED, report);
        return job(input, parallelism, conf);
    }

    /** Hotline's options: the defaults but for the budget. */
    private Configuration hotline() {
        Configuration conf = new Configuration();
        conf.set(HotlineOptions.BUDGET, hotlineBudget);
        return conf;
    }

    private JobRun job(Path input, int parallelism, Configuration extra) throws Exception {
        Path out = dataDir.resolve("run-output");
        Preprocess.prepareOutput(out, true);
        Configuration conf = new Configuration(extra);
        conf.set(PiperOptions.BLOCK_BYTES, blockBytes);
        if (preset != null) {
            conf.set(PiperOptions.SPEC, new String(preset.text(), StandardCharsets.UTF_8));
        }
        Preprocess.Summary s =
                Preprocess.run(input, out, parallelism, StateBackend.hashmap, conf, progress);
        return new JobRun(s.jobSeconds(), outputSha256(out));
    }

    /**
     * Runs one {@code preprocess} process of {@code input} at {@code parallelism} and returns its
     * wall time in seconds, from its start to its exit; its rows.bin must hash to {@code sha256}.
     */
    private double cold(Path input, int parallelism, String sha256) throws Exception {
        Path out = dataDir.resolve("cold-output");
        Path log = dataDir.resolve("cold-run.log");
        List<String> command = new ArrayList<>(coldCommand);
        command.addAll(
                List.of(
                        "preprocess",
                        "--input",
                        input.toString(),
                        "--output",
                        out.toString(),
                        "--overwrite",
                        "--parallelism",
                        Integer.toString(parallelism),
                        "--block-bytes",
                        Integer.toString(blockBytes)));
        if (preset != null) {
            command.addAll(List.of("--preset", preset.name()));
        }
        progress.printf("bench: cold process of %s at parallelism %d%n", input, parallelism);
        long start = System.nanoTime();
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        int code = process.waitFor();
        double seconds = (System.nanoTime() - start) / 1e9;
        if (code != 0) {
            throw new IllegalStateException(
                    "the cold preprocess process exited with "
                            + code
                            + "; its output is in "
                            + log
                            + " (command: "
                            + String.join(" ", command)
                            + ")");
        }
        String got = outputSha256(out);
        if (!got.equals(sha256)) {
            throw new IllegalStateException(
                    "the cold preprocess process of "
                            + input
                            + " wrote other rows than the single-thread loop ("
                            + got
                            + " vs "
                            + sha256
                            + ")");
        }
        return seconds;
    }

    /** The generated input of {@code n} lines for {@code regime}, generated once and cached. */
    private Path data(Regime regime, long n) throws IOException {
        Path file =
                dataDir.resolve(
                        String.format(
                                "%s-seed%d-scale%s-rows%d.tsv",
                                preset == null ? "criteo" : preset.name(),
                                seed,
                                plain(regime.scale()),
                                n));
        if (!Files.exists(file)) {
            progress.printf(
                    "bench: generating %,d lines at scale %s into %s%n",
                    n, plain(regime.scale()), file);
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

    /**
     * The digest of an output that every run must reproduce: the sha256 of {@code rows.bin}; with
     * list columns, the sha256 of the hex digests of {@code rows.bin} and of each list column's
     * lengths and values files, in column order ({@link SingleThreadLoops.OutputDigest}).
     */
    private String outputSha256(Path out) throws IOException {
        String rowsSha = sha256(out.resolve(OutputLayout.ROWS));
        RowLayout layout = layout();
        if (!layout.hasLists()) {
            return rowsSha;
        }
        List<String> parts = new ArrayList<>();
        parts.add(rowsSha);
        for (int c : layout.listColumns()) {
            parts.add(sha256(out.resolve(OutputLayout.listLengthsFile(c))));
            parts.add(sha256(out.resolve(OutputLayout.listValuesFile(c))));
        }
        return SingleThreadLoops.OutputDigest.combine(parts);
    }

    static String plain(double scale) {
        return java.math.BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString();
    }

    static String sha256(Path file) throws IOException {
        MessageDigest sha = SingleThreadLoops.sha256();
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                sha.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    public static void printTable(List<Result> results, PrintWriter out) {
        out.printf(
                "%-7s %-7s %-40s %5s %12s %9s%n",
                "regime", "scale", "stage", "p", "rows/s", "MB/s");
        for (Result r : results) {
            out.printf(
                    "%-7s %-7s %-40s %5d %,12.0f %9.1f%n",
                    r.regime(),
                    plain(r.scale()),
                    r.stage(),
                    r.parallelism(),
                    r.rowsPerSecond(),
                    r.mbPerSecond());
        }
    }

    /** Reads the results of an earlier run from its JSON file. */
    public static List<Result> readJson(Path file) throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode root = json.readTree(file.toFile());
        List<Result> results = new ArrayList<>();
        for (JsonNode r : root.get("results")) {
            results.add(json.treeToValue(r, Result.class));
        }
        return results;
    }

    public static void writeJson(
            List<Result> results, Path file, long rows, long seed, int blockBytes)
            throws IOException {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = json.createObjectNode();
        ObjectNode machine = root.putObject("machine");
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
        machine.put(
                "java",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        machine.put(
                "os",
                System.getProperty("os.name")
                        + " "
                        + System.getProperty("os.version")
                        + " "
                        + System.getProperty("os.arch"));
        root.put(
                "method",
                "marginal: (N - N/2) / (t(N) - t(N/2)) over inputs of N and N/2 generated lines;"
                        + " single-thread loops: best of the repeats after one warm-up pass; job:"
                        + " best of the repeats of Flink's net job run time (cluster start-up"
                        + " excluded); '"
                        + COLD_STAGE
                        + "': not marginal but N / the wall time of a whole preprocess process"
                        + " (best of the repeats; JVM and cluster start, JIT warm-up included);"
                        + " every job run's rows.bin matches the single-thread loop's sha256");
        root.put("rows", rows);
        root.put("seed", seed);
        root.put("block_bytes", blockBytes);
        ArrayNode list = root.putArray("results");
        for (Result r : results) {
            list.addPOJO(r);
        }
        Files.write(file, json.writeValueAsBytes(root));
    }
}
