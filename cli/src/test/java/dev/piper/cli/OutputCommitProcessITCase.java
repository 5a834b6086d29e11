package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.pipeline.generate.CriteoGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23's acceptance, with real processes: two concurrent {@code preprocess} runs into one
 * directory (exactly one succeeds, the other is refused naming the lock, the directory holds the
 * successful run's output), and {@code kill -9} at seeded random points of a run, which never
 * leaves a directory that looks complete but is not: the output is always the previous run's whole
 * output, the new run's whole output, or absent.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class OutputCommitProcessITCase {

    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(120);

    @TempDir static Path tmp;

    private static Path input;
    private static Path previousInput;

    /** The whole outputs of {@link #input} and {@link #previousInput}, file by file. */
    private static TreeMap<String, byte[]> full;

    private static TreeMap<String, byte[]> previous;

    @BeforeAll
    static void inputsAndTheirOutputs() throws Exception {
        input = tmp.resolve("input.tsv");
        previousInput = tmp.resolve("previous.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(23, 0.01, 0.001).write(out, 400_000);
        }
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(previousInput))) {
            new CriteoGenerator(24, 0.01, 0.001).write(out, 20_000);
        }
        full = tree(preprocessHere(input, tmp.resolve("reference-full")));
        previous = tree(preprocessHere(previousInput, tmp.resolve("reference-previous")));
        assertThat(full.keySet()).contains("metadata.json", "rows.bin", "vocab/C1.tsv");
    }

    private static Path preprocessHere(Path in, Path out) {
        assertThat(PiperCli.execute(preprocess(in, out).toArray(String[]::new))).isZero();
        return out;
    }

    /** Every file below {@code dir} by its relative path, with its bytes. */
    private static TreeMap<String, byte[]> tree(Path dir) throws IOException {
        TreeMap<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                files.put(dir.relativize(p).toString(), Files.readAllBytes(p));
            }
        }
        return files;
    }

    private static boolean same(TreeMap<String, byte[]> a, TreeMap<String, byte[]> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        return a.keySet().stream().allMatch(k -> Arrays.equals(a.get(k), b.get(k)));
    }

    private static List<String> preprocess(Path in, Path out, String... more) {
        List<String> args = new ArrayList<>(List.of("preprocess", "--input", "" + in));
        args.addAll(List.of("--output", out.toString()));
        args.addAll(List.of(more));
        return args;
    }

    /** The staging directory a run of {@code out} writes into, once there is one. */
    private static Path staging(Path out) throws IOException {
        try (Stream<Path> s = Files.list(out.getParent())) {
            return s.filter(
                            p ->
                                    p.getFileName()
                                            .toString()
                                            .startsWith("." + out.getFileName() + ".staging-"))
                    .findFirst()
                    .orElse(null);
        }
    }

    private static long stagedRowBytes(Path out) {
        try {
            Path staging = staging(out);
            Path rows = staging == null ? null : staging.resolve("rows.bin");
            return rows != null && Files.exists(rows) ? Files.size(rows) : -1;
        } catch (IOException e) {
            return -1; // published or removed between the looks
        }
    }

    /**
     * Waits until {@code condition} holds or {@code process} ends, looking again at most every 20
     * ms, within the deadline.
     *
     * @return whether the condition held while the process still ran
     */
    private static boolean await(Process process, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime())
                    .as("the condition within the deadline")
                    .isLessThan(deadline);
            if (process.waitFor(20, TimeUnit.MILLISECONDS)) {
                return false;
            }
        }
        return process.isAlive();
    }

    @Test
    void twoConcurrentRunsIntoOneDirectoryExactlyOneSucceeds() throws Exception {
        Path out = tmp.resolve("concurrent");
        Process first = PiperProcesses.start(tmp.resolve("first.log"), preprocess(input, out));
        // the second starts once the first holds the lock, with its cluster and job still to run
        assertThat(await(first, () -> lockedBy(out, first.pid())))
                .as("the first run locks the output; see first.log")
                .isTrue();
        Path secondLog = tmp.resolve("second.log");
        Process second = PiperProcesses.start(secondLog, preprocess(input, out, "--overwrite"));
        assertThat(second.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(first.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(first.exitValue()).as(Files.readString(tmp.resolve("first.log"))).isZero();
        assertThat(second.exitValue()).isNotZero();
        assertThat(Files.readString(secondLog))
                .contains(
                        "preprocess: error: output directory " + out + " is in use by another run")
                .contains("pid " + first.pid())
                .contains("lock " + tmp.resolve(".concurrent.lock"));
        assertThat(same(tree(out), full)).as("the first run's whole output").isTrue();
        assertThat(staging(out)).isNull();
    }

    @Test
    void killedAtAnyPointARunNeverLeavesAnOutputThatLooksCompleteButIsNot() throws Exception {
        Path out = tmp.resolve("killed");
        Random random = new Random(2023_11_24);
        long rowsBytes = full.get("rows.bin").length;
        int[] outcomes = new int[3]; // previous, new, absent
        for (int attempt = 0; attempt < 4; attempt++) {
            boolean overwrite = attempt % 3 != 2; // a third of the kills hit a first run
            if (overwrite) {
                Process before =
                        PiperProcesses.start(
                                tmp.resolve("before.log"),
                                preprocess(previousInput, out, "--overwrite"));
                assertThat(before.waitFor(120, TimeUnit.SECONDS)).isTrue();
                assertThat(before.exitValue())
                        .as(Files.readString(tmp.resolve("before.log")))
                        .isZero();
                assertThat(same(tree(out), previous)).isTrue();
            } else if (Files.exists(out)) {
                dev.piper.job.Preprocess.deleteRecursively(out);
            }
            Process run =
                    PiperProcesses.start(
                            tmp.resolve("killed.log"), preprocess(input, out, "--overwrite"));
            // a kill point: once the run holds the lock, or once its staged rows reach a random
            // share of the whole, or once it has staged its metadata (publishing)
            int point = random.nextInt(3);
            double share = random.nextDouble();
            BooleanSupplier reached =
                    switch (point) {
                        case 0 -> () -> lockedBy(out, run.pid());
                        case 1 -> () -> stagedRowBytes(out) >= share * rowsBytes;
                        default -> () -> stagedMetadata(out);
                    };
            boolean alive = await(run, reached);
            run.destroyForcibly(); // SIGKILL
            assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
            if (!alive) {
                assertThat(run.exitValue())
                        .as(Files.readString(tmp.resolve("killed.log")))
                        .isZero();
            }
            if (!Files.exists(out)) {
                outcomes[2]++;
            } else {
                TreeMap<String, byte[]> left = tree(out);
                if (same(left, full)) {
                    outcomes[1]++;
                } else {
                    assertThat(overwrite && same(left, previous))
                            .as(
                                    "attempt %d (kill point %d, share %.2f): %s is neither output"
                                            + " whole",
                                    attempt, point, share, left.keySet())
                            .isTrue();
                    outcomes[0]++;
                }
            }
        }
        assertThat(outcomes[0] + outcomes[2])
                .as("some kills landed before publishing")
                .isPositive();
        // the next run removes what the killed ones left, and publishes
        Process last =
                PiperProcesses.start(
                        tmp.resolve("last.log"), preprocess(input, out, "--overwrite"));
        assertThat(last.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(last.exitValue()).as(Files.readString(tmp.resolve("last.log"))).isZero();
        assertThat(same(tree(out), full)).isTrue();
        assertThat(staging(out)).isNull();
    }

    private static boolean lockedBy(Path out, long pid) {
        try {
            Path lock = out.resolveSibling("." + out.getFileName() + ".lock");
            return Files.exists(lock) && Files.readString(lock).startsWith("pid " + pid + " ");
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean stagedMetadata(Path out) {
        try {
            Path staging = staging(out);
            return staging != null && Files.exists(staging.resolve("metadata.json"));
        } catch (IOException e) {
            return false;
        }
    }
}
