package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.feed.LineProducer;
import dev.piper.feed.TestKafka;
import dev.piper.job.TestClusters;
import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.generate.ImpressionLog;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 66: {@code piper stream} running the label join, killed with SIGKILL twice while the
 * impressions of the last minute wait for their click windows (and input still arrives, the first
 * time), then run to its end: the committed rows, vocabularies and dead letters are exactly the
 * batch join's ({@code preprocess --actions}) of the same logs. A last impression and click far
 * later than the rest, sent after the second kill, close every window in the stream; only their own
 * row waits there, the batch's last.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES) // a stream that never goes idle fails, not hangs
class LabelJoinProcessITCase {

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final int IMPRESSIONS = 60_000;
    private static final Duration DEADLINE = Duration.ofSeconds(180);

    /** No list column, so that a row is a fixed number of bytes and the stream's a prefix. */
    private static final String SPEC =
            """
            {"name": "killed-join", "version": 1,
             "input": {"format": "json", "key": "request_id", "timestamp": "ts", "dense": 2,
                       "sparse": 2,
                       "fields": {"label": "labels.click", "I1": "price_cents",
                                  "I2": "labels.click_delay_ms", "C1": "user.id", "C2": "item_id"}},
             "columns": {"label": ["decode", "fill_missing"],
                         "I1..I2": ["decode", "fill_missing", "neg2zero", "log"],
                         "C1..C2": ["decode", "fill_missing", "hash64", "vocab"]},
             "labels": {"max_out_of_orderness": "2000ms",
                        "streams": {"click": {"key": "request_id", "timestamp": "ts",
                                              "id": "click_id", "window": "1m",
                                              "topic": "killed-clicks"}}}}
            """;

    @TempDir static Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    @Test
    void killedTwiceWithWindowsOpenItCommitsTheBatchJoin() throws Exception {
        Path spec = tmp.resolve("spec.json");
        Files.writeString(spec, SPEC);
        Path impressions = tmp.resolve("impressions.jsonl");
        Path clicks = tmp.resolve("clicks.jsonl");
        ClickEvents events = new ClickEvents(66, 0.01, -1);
        try (OutputStream i = new BufferedOutputStream(Files.newOutputStream(impressions));
                OutputStream c = new BufferedOutputStream(Files.newOutputStream(clicks))) {
            new ImpressionLog(events, 66, new ImpressionLog.Rates(10_000, 2_000, 0.01, 0.01, 0.005))
                    .write(IMPRESSIONS, i, c, done -> {});
        }
        long clickLines = Files.lines(clicks).count();
        // the generated impressions are 10 ms apart from 1795737600000: the last is well before
        long end = 1_795_737_600_000L + 10L * IMPRESSIONS + 600_000;
        String lastImpression =
                "{\"request_id\": \"end\", \"ts\": %d, \"user\": {\"id\": \"u_end\"},"
                                .formatted(end)
                        + " \"item_id\": \"i_end\", \"price_cents\": 1}";
        String lastClick =
                "{\"request_id\": \"end\", \"ts\": %d, \"click_id\": \"end\"}".formatted(end + 1);
        Path batchImpressions = tmp.resolve("batch-impressions.jsonl");
        Path batchClicks = tmp.resolve("batch-clicks.jsonl");
        Files.writeString(batchImpressions, Files.readString(impressions) + lastImpression + "\n");
        Files.writeString(batchClicks, Files.readString(clicks) + lastClick + "\n");
        Path batch = tmp.resolve("batch");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--spec",
                                spec.toString(),
                                "--input",
                                batchImpressions.toString(),
                                "--actions",
                                "click=" + batchClicks,
                                "--output",
                                batch.toString()))
                .isZero();

        kafka.createTopic("killed-impressions", 1);
        kafka.createTopic("killed-clicks", 1);
        Path checkpoints = tmp.resolve("checkpoints");
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "stream",
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--spec",
                                spec.toString(),
                                "--input-topic",
                                "killed-impressions",
                                "--output-topic",
                                "killed-rows",
                                "--vocab-topic",
                                "killed-vocab",
                                "--checkpoint-dir",
                                checkpoints.toString(),
                                "--checkpoint-interval",
                                "1s"));
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        Process first = PiperProcesses.start(tmp.resolve("first.log"), args);
        awaitCheckpoint(first, checkpoints, 1, deadline, "first");

        // about 20 s of input, both logs at the same pace in event time
        double seconds = 20;
        CompletableFuture<Void> producing =
                CompletableFuture.allOf(
                        produce(impressions, "killed-impressions", IMPRESSIONS / seconds),
                        produce(clicks, "killed-clicks", clickLines / seconds));
        long atStart = PiperProcesses.checkpointNumber(checkpoints);
        awaitCheckpoint(first, checkpoints, atStart + 2, deadline, "first");
        assertThat(producing).as("killed while input still arrives").isNotDone();
        kill(first);

        Process second = PiperProcesses.start(tmp.resolve("second.log"), args);
        long atKill = PiperProcesses.checkpointNumber(checkpoints);
        awaitCheckpoint(second, checkpoints, atKill + 2, deadline, "second");
        kill(second); // the last minute's impressions wait: their windows are open

        producing.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        kafka.publishLines("killed-impressions", 0, List.of(lastImpression));
        kafka.publishLines("killed-clicks", 0, List.of(lastClick));
        args.addAll(List.of("--until-idle", "3"));
        Path thirdLog = tmp.resolve("third.log");
        Process third = PiperProcesses.start(thirdLog, args);
        assertThat(third.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .as("third run ends")
                .isTrue();
        assertThat(third.exitValue()).as(Files.readString(thirdLog)).isZero();
        assertThat(Files.readString(tmp.resolve("second.log"))).contains("stream: resuming from");
        assertThat(Files.readString(thirdLog)).contains("stream: resuming from");

        Path consumed = tmp.resolve("consumed");
        assertThat(
                        PiperCli.execute(
                                "consume",
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--topic",
                                "killed-rows",
                                "--vocab-topic",
                                "killed-vocab",
                                "--dead-letter-topic",
                                "killed-rows-dead-letters",
                                "--spec",
                                spec.toString(),
                                "--timeout",
                                "10",
                                "--output",
                                consumed.toString()))
                .isZero();
        JsonNode metadata = new ObjectMapper().readTree(batch.resolve("metadata.json").toFile());
        int rowBytes = metadata.get("row_bytes").asInt();
        byte[] joined = Files.readAllBytes(batch.resolve("rows.bin"));
        byte[] streamed = Files.readAllBytes(consumed.resolve("rows.bin"));
        assertThat(streamed.length)
                .as("every row but the last impression's")
                .isEqualTo(joined.length - rowBytes);
        assertThat(Arrays.equals(streamed, Arrays.copyOf(joined, streamed.length)))
                .as("the stream's rows are the batch join's")
                .isTrue();
        for (String column : List.of("C1", "C2")) {
            List<String> whole = Files.readAllLines(batch.resolve("vocab/" + column + ".tsv"));
            // the last impression's ids are new: the batch's last entries
            assertThat(whole.get(whole.size() - 1)).endsWith("_end");
            assertThat(Files.readAllLines(consumed.resolve("vocab/" + column + ".tsv")))
                    .isEqualTo(whole.subList(0, whole.size() - 1));
        }
        Map<String, Integer> batchReasons = reasons(batch.resolve("dead-letters.jsonl"));
        assertThat(batchReasons)
                .containsKeys("late_impression", "late_action", "duplicate_action")
                .containsKey("orphan_action");
        assertThat(reasons(consumed.resolve("dead-letters.jsonl"))).isEqualTo(batchReasons);
        System.out.printf(
                "label join killed twice: %,d rows committed, the batch's %,d but its last;"
                        + " dead letters %s%n",
                streamed.length / rowBytes, joined.length / rowBytes, batchReasons);
    }

    private CompletableFuture<Void> produce(Path lines, String topic, double perSecond) {
        return CompletableFuture.runAsync(
                () -> {
                    try {
                        LineProducer.produce(
                                lines, kafka.bootstrapServers(), topic, perSecond, Map.of(), QUIET);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
    }

    /** Waits for checkpoint {@code n} of the stream {@code p} (which must not end before). */
    private static void awaitCheckpoint(
            Process p, Path checkpoints, long n, long deadline, String name) throws Exception {
        while (PiperProcesses.checkpointNumber(checkpoints) < n) {
            assertThat(System.nanoTime())
                    .as("checkpoint %d of the %s run within the deadline", n, name)
                    .isLessThan(deadline);
            assertThat(p.waitFor(50, TimeUnit.MILLISECONDS))
                    .as("%s run ended early; see %s.log", name, name)
                    .isFalse();
        }
    }

    private static void kill(Process p) throws Exception {
        p.destroyForcibly(); // SIGKILL
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(137);
    }

    /** The dead letters of a file by reason. */
    private static Map<String, Integer> reasons(Path deadLetters) throws Exception {
        ObjectMapper json = new ObjectMapper();
        Map<String, Integer> by = new TreeMap<>();
        for (String line : Files.readAllLines(deadLetters)) {
            by.merge(json.readTree(line).get("reason").asText(), 1, Integer::sum);
        }
        return by;
    }
}
