package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.feed.LineProducer;
import dev.piper.feed.OutputConsumer;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code piper stream} as a process: killed with SIGKILL after its first checkpoint while input is
 * still arriving, then started again with the same checkpoint directory, it resumes and its
 * committed output is exactly the batch output.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES) // a stream that never goes idle fails, not hangs
class StreamProcessITCase {

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final int LINES = 100_000;
    private static final Duration DEADLINE = Duration.ofSeconds(180);

    @TempDir static Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    private static Process piper(Path log, List<String> args) throws Exception {
        return PiperProcesses.start(log, args);
    }

    @Test
    void killedWithSigkillAndRestartedItResumesAndFinishesExactly() throws Exception {
        Path input = tmp.resolve("input.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(20261124, 0.01, 0.01).write(out, LINES);
        }
        Path batch = tmp.resolve("batch");
        Preprocess.prepareOutput(batch, false);
        Preprocess.Summary expected =
                Preprocess.run(input, batch, 2, StateBackend.hashmap, new Configuration(), QUIET);

        kafka.createTopic("kill-in", 1);
        Path checkpoints = tmp.resolve("checkpoints");
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "stream",
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--input-topic",
                                "kill-in",
                                "--output-topic",
                                "kill-rows",
                                "--vocab-topic",
                                "kill-vocab",
                                "--checkpoint-dir",
                                checkpoints.toString(),
                                "--checkpoint-interval",
                                "1s"));

        Process first = piper(tmp.resolve("first.log"), args);
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (CheckpointDirectory.latestSnapshot(checkpoints).isEmpty()) {
            assertThat(System.nanoTime())
                    .as("a checkpoint within the deadline")
                    .isLessThan(deadline);
            // Waits for the process to end, at most 50 ms between looks at the directory.
            assertThat(first.waitFor(50, TimeUnit.MILLISECONDS))
                    .as("first run ended early; see first.log")
                    .isFalse();
        }
        // A second stream on the same directory is refused while the first holds it. Checked
        // before any input arrives: the rival's JVM start took up to 20 s on CI's machines.
        Path rivalLog = tmp.resolve("rival.log");
        Process rival = piper(rivalLog, args);
        assertThat(rival.waitFor(60, TimeUnit.SECONDS))
                .as("a second stream on the dir ends")
                .isTrue();
        assertThat(rival.exitValue()).isEqualTo(2);
        assertThat(Files.readString(rivalLog)).contains("is in use by another piper stream");

        // Input starts once the job runs and keeps arriving for about 20 s; the kill comes two
        // checkpoints after the first input was sent, so it lands mid-stream with state to restore.
        CompletableFuture<LineProducer.Result> producing =
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return LineProducer.produce(
                                        input,
                                        kafka.bootstrapServers(),
                                        "kill-in",
                                        5_000.0,
                                        Map.of(),
                                        QUIET);
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        });
        long atStart = PiperProcesses.checkpointNumber(checkpoints);
        while (PiperProcesses.checkpointNumber(checkpoints) < atStart + 2) {
            assertThat(System.nanoTime())
                    .as("two checkpoints after input started, within the deadline")
                    .isLessThan(deadline);
            assertThat(first.waitFor(50, TimeUnit.MILLISECONDS))
                    .as("first run ended early; see first.log")
                    .isFalse();
        }
        assertThat(producing).as("killed while input still arrives").isNotDone();
        first.destroyForcibly(); // SIGKILL
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(first.exitValue()).isEqualTo(137);

        assertThat(producing.get(DEADLINE.toSeconds(), TimeUnit.SECONDS).lines()).isEqualTo(LINES);
        args.addAll(List.of("--until-idle", "3"));
        Path secondLog = tmp.resolve("second.log");
        Process second = piper(secondLog, args);
        assertThat(second.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .as("second run ends")
                .isTrue();
        assertThat(second.exitValue()).as(Files.readString(secondLog)).isZero();
        assertThat(Files.readString(secondLog)).contains("stream: resuming from");

        Path consumed = tmp.resolve("consumed");
        OutputConsumer.Result r =
                new OutputConsumer(
                                kafka.bootstrapServers(),
                                Map.of(),
                                "kill-rows",
                                "kill-vocab",
                                "kill-rows-dead-letters")
                        .consume(consumed, expected.rowsWritten(), Duration.ofSeconds(20), QUIET);
        assertThat(r.rows()).isEqualTo(expected.rowsWritten());
        assertThat(r.deadLetters()).isEqualTo(expected.deadLetters());
        SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "killed stream");

        // Issue 23: a byte flipped in a state file of the snapshot the next run would restore (the
        // savepoint the second run stopped with, sealed) is refused before anything starts,
        // naming the file; before, it was restored as it was.
        Path snapshot = CheckpointDirectory.latestSnapshot(checkpoints).orElseThrow();
        Path state;
        try (var files = Files.walk(snapshot)) {
            state =
                    files.filter(Files::isRegularFile)
                            .filter(f -> !f.getFileName().toString().equals("_metadata"))
                            .max(java.util.Comparator.comparingLong(f -> f.toFile().length()))
                            .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(state);
        bytes[bytes.length / 2] ^= 0x01;
        Files.write(state, bytes);
        Path thirdLog = tmp.resolve("third.log");
        Process third = piper(thirdLog, args);
        assertThat(third.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(third.exitValue()).isNotZero();
        assertThat(Files.readString(thirdLog))
                .contains("the state file " + state + " does not match its checksum");
    }
}
