package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.feed.LineProducer;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.TestKafka;
import dev.piper.job.CheckpointDirectory;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.Preprocess;
import dev.piper.job.SameOutput;
import dev.piper.job.TestClusters;
import dev.piper.pipeline.generate.CriteoGenerator;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40: a damaged checkpoint directory never starts the stream over silently and never hangs. A
 * stream on a real broker commits all its output and is stopped with SIGTERM (it says what is
 * committed and how to resume); then, on copies of its directory: a state file missing from a
 * snapshot that was never sealed (every restore fails: it restarted for ever) ends with exit 1 and
 * the cause; every {@code _metadata} deleted (it started over from the earliest offset and
 * committed everything again) and the snapshots gone altogether are refused with exit 1; a
 * truncated {@code _metadata} is refused naming the way out; checkpoints that fail every time (as
 * on a full disk) end the run with the cause; and that way out, {@code --start-over} into new
 * topics, gives the batch output exactly.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class DamagedCheckpointITCase {

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final int LINES = 20_000;
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @TempDir static Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    private static List<String> stream(Path checkpoints, String topics, String... more) {
        return streamFrom("dmg-in", checkpoints, topics, more);
    }

    /** {@code piper stream} from {@code input} into topics {@code topics-rows} and so on. */
    private static List<String> streamFrom(
            String input, Path checkpoints, String topics, String... more) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "stream",
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--input-topic",
                                input,
                                "--output-topic",
                                topics + "-rows",
                                "--vocab-topic",
                                topics + "-vocab",
                                "--checkpoint-dir",
                                checkpoints.toString(),
                                "--checkpoint-interval",
                                "1s"));
        args.addAll(List.of(more));
        return args;
    }

    /** Runs piper to its end (at most {@link #DEADLINE}); returns its exit code and output. */
    private static String run(String name, List<String> args, int exitCode) throws Exception {
        Path log = tmp.resolve(name + ".log");
        long start = System.nanoTime();
        Process p = PiperProcesses.start(log, args);
        assertThat(p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .as("%s ends within %s (a hang before); see %s", name, DEADLINE, log)
                .isTrue();
        String out = Files.readString(log);
        assertThat(p.exitValue()).as("%s's exit code; output:%n%s", name, out).isEqualTo(exitCode);
        String[] lines = out.strip().split("\n");
        System.out.printf(
                "DamagedCheckpointITCase: %s ended with %d after %.1f s: %s%n",
                name, exitCode, (System.nanoTime() - start) / 1e9, lines[lines.length - 1]);
        return out;
    }

    private static long committed(String group) throws Exception {
        try (Admin admin = kafka.admin()) {
            return admin
                    .listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .values()
                    .stream()
                    .mapToLong(OffsetAndMetadata::offset)
                    .sum();
        }
    }

    /** The highest commit stamp of {@code topic}'s committed records ({@code piper.checkpoint}). */
    private static long highestCommittedStamp(String topic) {
        return kafka.readCommitted(topic).stream()
                .map(r -> TestKafka.header(r, RowsRecord.CHECKPOINT))
                .filter(java.util.Objects::nonNull)
                .mapToLong(Long::parseLong)
                .max()
                .orElse(0);
    }

    private static void copy(Path from, Path to) throws Exception {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else if (!f.getFileName().toString().equals(".lock")) {
                    // with its modification time: the newest _metadata is the latest snapshot
                    Files.copy(f, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    /**
     * Reads the topics {@code topics-rows} and so on into a directory as {@code piper consume} does
     * (a block or an entry twice fails it), checking the rows and dead letters {@code expected}
     * counts.
     */
    private static Path consumeAll(String topics, Preprocess.Summary expected) throws Exception {
        Path consumed = tmp.resolve(topics + "-consumed");
        OutputConsumer.Result r =
                new OutputConsumer(
                                kafka.bootstrapServers(),
                                Map.of(),
                                topics + "-rows",
                                topics + "-vocab",
                                topics + "-rows-dead-letters")
                        .consume(consumed, expected.rowsWritten(), Duration.ofSeconds(20), QUIET);
        assertThat(r.rows()).as("%s: rows", topics).isEqualTo(expected.rowsWritten());
        assertThat(r.deadLetters())
                .as("%s: dead letters", topics)
                .isEqualTo(expected.deadLetters());
        return consumed;
    }

    private static List<Path> files(Path dir, String name) throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(f -> f.getFileName().toString().equals(name)).toList();
        }
    }

    @Test
    void aDamagedDirectoryIsRefusedOrFailsWithItsCauseAndStartOverIsExact() throws Exception {
        Path input = tmp.resolve("input.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(20261127, 0.01, 0.01).write(out, LINES);
        }
        Path batch = tmp.resolve("batch");
        Preprocess.prepareOutput(batch, false);
        Preprocess.Summary expected =
                Preprocess.run(input, batch, 2, StateBackend.hashmap, new Configuration(), QUIET);
        kafka.createTopic("dmg-in", 1);
        LineProducer.produce(input, kafka.bootstrapServers(), "dmg-in", null, Map.of(), QUIET);

        // A stream that committed all its output, killed once its latest checkpoint is sealed.
        Path served = tmp.resolve("served");
        Process first = PiperProcesses.start(tmp.resolve("first.log"), stream(served, "dmg"));
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (committed("piper-dmg-rows") < LINES
                || CheckpointDirectory.latestSnapshot(served)
                        .map(s -> !Files.exists(s.resolveSibling(s.getFileName() + ".checksums")))
                        .orElse(true)) {
            assertThat(System.nanoTime()).as("all input committed, sealed").isLessThan(deadline);
            assertThat(first.waitFor(50, TimeUnit.MILLISECONDS)).as("see first.log").isFalse();
        }
        // SIGTERM: it ended in silence; now it says what is committed and how to resume
        first.destroy();
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(first.exitValue()).isEqualTo(143);
        assertThat(Files.readString(tmp.resolve("first.log")))
                .contains(
                        "stream: stopped by a signal (or a fatal error, in the log file); the"
                                + " output is committed as of the last completed checkpoint (")
                .contains("run again with the same --checkpoint-dir to resume from it");

        // 1. A state file missing from a snapshot never sealed: every restore fails.
        Path missing = tmp.resolve("missing-state");
        copy(served, missing);
        Path latest = CheckpointDirectory.latestSnapshot(missing).orElseThrow();
        try (Stream<Path> seals = Files.walk(missing)) {
            for (Path seal : seals.filter(f -> f.toString().endsWith(".checksums")).toList()) {
                Files.delete(seal);
            }
        }
        Path state;
        try (Stream<Path> walk = Files.walk(latest)) {
            state =
                    walk.filter(Files::isRegularFile)
                            .filter(f -> !f.getFileName().toString().equals("_metadata"))
                            .max(Comparator.comparingLong(f -> f.toFile().length()))
                            .orElseThrow();
        }
        Files.delete(state);
        String out = run("missing-state", stream(missing, "dmg", "--until-idle", "3"), 1);
        assertThat(out)
                .contains("stream: error: the job failed 6 times in a row and stopped restarting")
                .contains(state.getFileName().toString());

        // 2. Every _metadata deleted: the sealed snapshots were complete; nothing starts over.
        Path noMetadata = tmp.resolve("no-metadata");
        copy(served, noMetadata);
        for (Path m : files(noMetadata.resolve("checkpoints"), "_metadata")) {
            Files.delete(m);
        }
        out = run("no-metadata", stream(noMetadata, "dmg", "--until-idle", "3"), 1);
        assertThat(out)
                .contains("completed (it is sealed) but its _metadata is gone")
                .contains("--start-over")
                .doesNotContain("starting from earliest");

        // 3. The snapshots gone altogether: the consumer group says output was committed.
        Path gone = tmp.resolve("gone");
        copy(served, gone);
        Preprocess.deleteRecursively(gone.resolve("checkpoints"));
        out = run("gone", stream(gone, "dmg", "--until-idle", "3"), 1);
        assertThat(out)
                .contains(
                        "holds no snapshot to resume from, but consumer group piper-dmg-rows has"
                                + " committed "
                                + String.format("%,d", LINES)
                                + " input records");

        // 4. A truncated _metadata: refused, naming the file and the ways out.
        Path truncated = tmp.resolve("truncated");
        copy(served, truncated);
        Path metadata =
                CheckpointDirectory.latestSnapshot(truncated).orElseThrow().resolve("_metadata");
        byte[] bytes = Files.readAllBytes(metadata);
        Files.write(metadata, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        out = run("truncated", stream(truncated, "dmg", "--until-idle", "3"), 1);
        assertThat(out).contains(metadata + " cannot be read").contains("--start-over");

        // 5. Checkpoints that fail every time, as on a full disk: each chk-N of the job's
        // directory is taken by a file, so no checkpoint can be written (a fixed job id names the
        // directory in advance). It restarted for ever; now it ends with the cause.
        String jobId = "0000000000000000000000000000f011";
        Path full = tmp.resolve("full");
        Path jobDir = Files.createDirectories(full.resolve("checkpoints").resolve(jobId));
        for (int n = 1; n <= 100; n++) {
            Files.writeString(jobDir.resolve("chk-" + n), "not a directory");
        }
        out =
                run(
                        "full",
                        stream(
                                full,
                                "full",
                                "--until-idle",
                                "3",
                                "--flink-conf",
                                "$internal.pipeline.job-id=" + jobId,
                                // the bound, not the default's delays, is what this case is about
                                "--flink-conf",
                                "restart-strategy.exponential-delay.max-backoff=1s"),
                        1);
        assertThat(out)
                .contains("stream: error: the job failed 6 times in a row and stopped restarting")
                .contains("Exceeded checkpoint tolerable failure threshold")
                .contains("[checkpoints go to " + full.resolve("checkpoints") + ", where ")
                .contains(" MiB are free; the log file ");

        // The documented way out: start over into new topics; the output is the batch's.
        out = run("start-over", stream(gone, "over", "--until-idle", "3", "--start-over"), 0);
        assertThat(out)
                .contains("stream: --start-over: not restoring any snapshot")
                .contains(String.format("stream: %,d input records consumed", LINES));
        Path consumed = consumeAll("over", expected);
        SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "started over");
    }

    /**
     * Issue 64: a snapshot older than the committed output replayed the input after it and
     * committed its output again (readers found blocks twice), whether the newer snapshots were
     * moved away, as the refusal of a damaged one advised, or {@code --from-savepoint} named the
     * older one. Now such a resume passes over what the output holds past the snapshot: the input
     * it covers, its blocks, its vocabulary entries; what it commits next follows on. The stream
     * here runs its input in quarters, each on a resume, then resumes twice from the savepoint
     * after the first quarter: named with {@code --from-savepoint}, and left the newest after the
     * later snapshots were moved away. Each time new input waits, and at the end what a reader
     * consumes is the batch job's output of the whole input, byte for byte.
     */
    @Test
    void aSnapshotOlderThanTheCommittedOutputResumesExactly() throws Exception {
        kafka.createTopic("older-in", 1);
        Path dir = tmp.resolve("older");
        Path between = tmp.resolve("older-between"); // the directory after the first quarter
        Path all = tmp.resolve("older-all.tsv");
        String firstSavepoint = null;
        for (int quarter = 0; quarter < 4; quarter++) {
            Path input = tmp.resolve("older-" + quarter + ".tsv");
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
                new CriteoGenerator(20261207 + quarter, 0.01, 0.01).write(out, LINES / 4);
            }
            Files.write(
                    all,
                    Files.readAllBytes(input),
                    java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
            LineProducer.produce(
                    input, kafka.bootstrapServers(), "older-in", null, Map.of(), QUIET);
            if (quarter < 2) {
                String out =
                        run(
                                "older-" + quarter,
                                streamFrom("older-in", dir, "older", "--until-idle", "3"),
                                0);
                assertThat(out).doesNotContain("passing over");
                if (quarter == 0) {
                    java.util.regex.Matcher m =
                            java.util.regex.Pattern.compile("stream: savepoint file:(\\S+)")
                                    .matcher(out);
                    assertThat(m.find()).as(out).isTrue();
                    firstSavepoint = m.group(1);
                    // the next run claims this savepoint, and Flink removes it once subsumed
                    copy(dir, between);
                }
            } else if (quarter == 2) {
                // --from-savepoint of the savepoint after the first quarter (a copy of it: the run
                // after it removed the original once subsumed)
                Path kept = tmp.resolve("older-kept");
                copy(between, kept);
                Path savepoint = kept.resolve(dir.relativize(Path.of(firstSavepoint)));
                Path named = tmp.resolve("older-named");
                copy(dir, named);
                String out =
                        run(
                                "older-named",
                                streamFrom(
                                        "older-in",
                                        named,
                                        "older",
                                        "--until-idle",
                                        "3",
                                        "--from-savepoint",
                                        savepoint.toString()),
                                0);
                assertThat(out)
                        .contains("rows records committed after " + savepoint)
                        .contains("passing over them, not committing them again")
                        // the second quarter's blocks (as many as the linger cut)
                        .containsPattern(
                                "stream:   older-in/0: blocks \\d+ to \\d+, input to offset "
                                        + (LINES / 2 - 1)
                                        + "\n")
                        .contains(String.format("stream: %,d input records consumed", LINES / 4));
            } else {
                // the newer snapshots moved away: the savepoint is the newest left
                Path first = between.resolve(dir.relativize(Path.of(firstSavepoint)));
                assertThat(CheckpointDirectory.latestSnapshot(between)).contains(first);
                String out =
                        run(
                                "older-moved",
                                streamFrom("older-in", between, "older", "--until-idle", "3"),
                                0);
                assertThat(out)
                        .contains("stream: resuming from " + first)
                        .contains("passing over them, not committing them again");
            }
        }
        Path batch = tmp.resolve("older-batch");
        Preprocess.prepareOutput(batch, false);
        Preprocess.Summary expected =
                Preprocess.run(all, batch, 2, StateBackend.hashmap, new Configuration(), QUIET);
        Path consumed = consumeAll("older", expected);
        SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "resumed from older snapshots");
    }

    /**
     * Issue 64's first case, as a user meets it: a stream on one or two input partitions is killed
     * (kill -9) while its input still flows, its newest snapshot is lost (moved away with its seal,
     * as the refusal of a damaged one advises), and it is run again. It resumes from the older
     * snapshot and passes over the output the lost one committed; readers consume every line
     * exactly once (a block or an entry twice fails the consumer), and the rest of the input
     * follows: on one partition the batch job's output, byte for byte.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0} input partitions")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2})
    void aKilledStreamWhoseNewestSnapshotIsLostResumesExactly(int partitions) throws Exception {
        String name = "killed-" + partitions;
        Path input = tmp.resolve(name + ".tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(20261208, 0.01, 0.01).write(out, LINES);
        }
        Path batch = tmp.resolve(name + "-batch");
        Preprocess.prepareOutput(batch, false);
        Preprocess.Summary expected =
                Preprocess.run(input, batch, 2, StateBackend.hashmap, new Configuration(), QUIET);
        kafka.createTopic(name + "-in", partitions);
        Path dir = tmp.resolve(name);
        Process first =
                PiperProcesses.start(
                        tmp.resolve(name + "-first.log"), streamFrom(name + "-in", dir, name));
        // the input flows at 1,000 lines a second while the stream runs, and after the kill
        java.util.concurrent.CompletableFuture<LineProducer.Result> producing =
                java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return LineProducer.produce(
                                        input,
                                        kafka.bootstrapServers(),
                                        name + "-in",
                                        1000.0,
                                        Map.of(),
                                        QUIET);
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        });
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        // the newest snapshot's own output committed too: the source commits its offsets and the
        // sink its transaction as each is told the checkpoint completed, in either order
        while (committed("piper-" + name + "-rows") < LINES / 2
                || files(dir.resolve("checkpoints"), "_metadata").size() < 2
                || highestCommittedStamp(name + "-rows") < PiperProcesses.checkpointNumber(dir)) {
            assertThat(System.nanoTime())
                    .as("half the input committed, two snapshots kept, the newest's output too")
                    .isLessThan(deadline);
            assertThat(first.waitFor(20, TimeUnit.MILLISECONDS))
                    .as("see %s-first.log", name)
                    .isFalse();
        }
        first.destroyForcibly(); // kill -9, right after a checkpoint committed output
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Path newest = CheckpointDirectory.latestSnapshot(dir).orElseThrow();
        Path away = Files.createDirectories(tmp.resolve(name + "-away"));
        Files.move(newest, away.resolve(newest.getFileName()));
        Path seal = newest.resolveSibling(newest.getFileName() + ".checksums");
        if (Files.exists(seal)) {
            Files.move(seal, away.resolve(seal.getFileName()));
        }
        producing.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

        String out =
                run(name + "-again", streamFrom(name + "-in", dir, name, "--until-idle", "3"), 0);
        assertThat(out)
                .contains("stream: resuming from ")
                .contains("passing over them, not committing them again")
                .doesNotContain(newest.toString());
        Path consumed = consumeAll(name, expected);
        if (partitions == 1) { // the input's order: the batch job's output, byte for byte
            SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, name);
        } else { // the lanes' blocks interleave: other indices, the same counts
            SameOutput.assertMetadataAgrees(consumed, batch, name);
        }
    }
}
