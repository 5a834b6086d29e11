package dev.piper.benchmarks.bench;

import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.PiperOptions;
import dev.piper.job.Preprocess;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.spec.Presets;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.flink.configuration.Configuration;

/**
 * The bench's runs of the whole preprocess: the Flink job in this JVM (its net job time) and, with
 * a command line to start, a whole cold process (its wall time); each returns the digest of what it
 * wrote, which {@link Bench} checks against the single-thread reference.
 */
final class JobRuns {

    private final Path dataDir;
    private final int blockBytes;
    private final Presets.Preset preset;
    private final RowLayout layout;
    private final List<String> coldCommand;
    private final PrintStream progress;

    /**
     * @param preset the spec every run takes; {@code null}: the built-in DLRM spec
     * @param coldCommand the command that starts a CLI process; {@code null}: no cold runs
     */
    JobRuns(
            Path dataDir,
            int blockBytes,
            Presets.Preset preset,
            RowLayout layout,
            List<String> coldCommand,
            PrintStream progress) {
        this.dataDir = dataDir;
        this.blockBytes = blockBytes;
        this.preset = preset;
        this.layout = layout;
        this.coldCommand = coldCommand;
        this.progress = progress;
    }

    /** One job run: its net job seconds and the digest of its output. */
    record JobRun(double seconds, String sha256) {}

    /** The faster of two runs of the same job; their outputs must agree. */
    static JobRun faster(JobRun best, JobRun run) {
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

    /** Runs the job over {@code input} with {@code extra} settings, into a scratch output. */
    JobRun job(Path input, int parallelism, Configuration extra) throws Exception {
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
     * Runs {@code command} to its end, its output and errors to {@code log}, and returns its wall
     * time in seconds; an exit code other than 0 fails, naming {@code what}, the code, the log and
     * the command.
     */
    static double run(List<String> command, Path log, String what) throws Exception {
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
                    what
                            + " exited with "
                            + code
                            + "; its output is in "
                            + log
                            + " (command: "
                            + String.join(" ", command)
                            + ")");
        }
        return seconds;
    }

    /**
     * Runs one {@code preprocess} process of {@code input} at {@code parallelism} and returns its
     * wall time in seconds, from its start to its exit; its rows.bin must hash to {@code sha256}.
     */
    double cold(Path input, int parallelism, String sha256) throws Exception {
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
        double seconds = run(command, log, "the cold preprocess process");
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

    /**
     * The digest of an output that every run must reproduce: the sha256 of {@code rows.bin}; with
     * list columns, the sha256 of the hex digests of {@code rows.bin} and of each list column's
     * lengths and values files, in column order ({@link SingleThreadLoops.OutputDigest}).
     */
    String outputSha256(Path out) throws IOException {
        String rowsSha = sha256(out.resolve(OutputLayout.ROWS));
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
}
