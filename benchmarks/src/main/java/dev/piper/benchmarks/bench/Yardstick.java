package dev.piper.benchmarks.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The performance yardstick: a plain single-threaded C program doing the DLRM Criteo transform
 * ({@code ../shared/yardstick/criteo_native.c}: parse, fill, neg2zero, hex2int, first-appearance
 * vocabularies, {@code rows.bin}), compiled once with the machine's {@code cc -O3 -march=native}
 * and run on the same inputs as {@code bench --cold}'s processes, alternately with them. A
 * performance goal is the ratio of its wall time to piper's, measured in one run on one machine:
 * hosts differ by up to 2x in absolute rows/s, the ratio holds across them. Its rows must be
 * piper's, byte for byte.
 */
final class Yardstick {

    /** Where the compiled program is. */
    private final Path program;

    private final Path dataDir;
    private final PrintStream progress;

    private Yardstick(Path program, Path dataDir, PrintStream progress) {
        this.program = program;
        this.dataDir = dataDir;
        this.progress = progress;
    }

    /** The yardstick, or why there is none. */
    record Found(Yardstick yardstick, String whyNot) {}

    /**
     * Compiles {@code source} into {@code dataDir} (again only when the source is newer), or says
     * why it cannot: no source, no C compiler, a compiler error.
     */
    static Found compile(Path source, Path dataDir, PrintStream progress)
            throws IOException, InterruptedException {
        if (source == null || !Files.isRegularFile(source)) {
            return new Found(
                    null,
                    "no yardstick source "
                            + (source == null ? "given" : "at " + source)
                            + " (--yardstick: ../shared/yardstick/criteo_native.c)");
        }
        Path program = dataDir.resolve("criteo_native");
        if (Files.isExecutable(program)
                && Files.getLastModifiedTime(program).compareTo(Files.getLastModifiedTime(source))
                        > 0) {
            return new Found(new Yardstick(program, dataDir, progress), null);
        }
        Path log = dataDir.resolve("criteo_native.cc.log");
        List<String> command =
                List.of("cc", "-O3", "-march=native", "-o", program.toString(), source.toString());
        progress.printf("bench: compiling the yardstick: %s%n", String.join(" ", command));
        Process cc;
        try {
            cc =
                    new ProcessBuilder(command)
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile())
                            .start();
        } catch (IOException noCompiler) {
            return new Found(
                    null, "no C compiler (cc) on this machine: " + noCompiler.getMessage());
        }
        if (!cc.waitFor(2, TimeUnit.MINUTES)) {
            cc.destroyForcibly();
            return new Found(null, "cc did not finish in 2 minutes compiling " + source);
        }
        if (cc.exitValue() != 0) {
            return new Found(
                    null,
                    "cc exited with "
                            + cc.exitValue()
                            + " compiling "
                            + source
                            + ": "
                            + Files.readString(log).strip());
        }
        return new Found(new Yardstick(program, dataDir, progress), null);
    }

    /**
     * Runs the program on {@code input} and returns its wall time in seconds, from its start to its
     * exit; its rows.bin must hash to {@code sha256}.
     */
    double run(Path input, String sha256) throws Exception {
        Path out = dataDir.resolve("yardstick-output");
        Path log = dataDir.resolve("yardstick-run.log");
        deleteTree(out);
        List<String> command =
                new ArrayList<>(
                        Arrays.asList(program.toString(), input.toString(), out.toString()));
        progress.printf("bench: yardstick (native C, 1 thread) on %s%n", input);
        double seconds = JobRuns.run(command, log, "the yardstick");
        String got = JobRuns.sha256(out.resolve("rows.bin"));
        if (!got.equals(sha256)) {
            throw new IllegalStateException(
                    "the yardstick wrote other rows than piper for "
                            + input
                            + " ("
                            + got
                            + " vs "
                            + sha256
                            + "): not the same transform, no ratio");
        }
        return seconds;
    }

    /** Deletes {@code dir} and everything below it, if it exists. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** The median of {@code values} (the lower middle one of an even count, as {@code ratio}). */
    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.get((sorted.size() - 1) / 2);
    }
}
