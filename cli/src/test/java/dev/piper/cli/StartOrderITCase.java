package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.feed.LineProducer;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.TestKafka;
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
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40: readers, trainer and stream started in any order give the same output. {@code piper
 * consume}, the Python trainer and a plain Kafka consumer (Kafka's defaults, which let it make the
 * broker create a topic) start first, then two {@code piper stream}s with their own checkpoint
 * directories on the same topics, which wait for their input topic; then the input arrives: one
 * stream runs, the other is refused naming the first. Before, consume and the trainer exited at
 * once ("topic ... does not exist"), and consume's metadata request had made the broker create the
 * rows topic that the stream then used as it found it.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class StartOrderITCase {

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final int LINES = 20_000;
    private static final Duration DEADLINE = Duration.ofSeconds(180);
    private static final Path CLIENT = Path.of("..", "clients", "python").toAbsolutePath();

    @TempDir static Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    /** Rows read by a plain read_committed consumer subscribed to {@code topic}. */
    private static long plainConsumer(String topic, long rows) {
        Properties props = new Properties();
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.setProperty(ConsumerConfig.GROUP_ID_CONFIG, "plain");
        props.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.setProperty(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "8388608");
        long read = 0;
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (read < rows && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    read += RowsRecord.of(r).rows();
                }
            }
        }
        return read;
    }

    private static Process trainer(long rows) throws Exception {
        ProcessBuilder pb =
                new ProcessBuilder(
                                "/usr/bin/python3",
                                "-m",
                                "piper_feed.train",
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--rows-topic",
                                "so-rows",
                                "--vocab-topic",
                                "so-vocab",
                                "--idle-timeout",
                                Long.toString(DEADLINE.toSeconds()),
                                "--max-rows",
                                Long.toString(rows),
                                "--metrics-out",
                                tmp.resolve("trainer.json").toString())
                        .directory(CLIENT.toFile());
        pb.environment().put("PYTHONPATH", CLIENT.toString());
        return pb.redirectErrorStream(true)
                .redirectOutput(tmp.resolve("trainer.log").toFile())
                .start();
    }

    /**
     * {@code piper stream} on the test's topics, with checkpoint directory checkpoints-NAME and
     * {@code more} arguments.
     */
    private static Process stream(String name, String... more) throws Exception {
        List<String> args =
                new java.util.ArrayList<>(
                        List.of(
                                "stream",
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--input-topic",
                                "so-in",
                                "--output-topic",
                                "so-rows",
                                "--vocab-topic",
                                "so-vocab",
                                "--checkpoint-dir",
                                tmp.resolve("checkpoints-" + name).toString(),
                                "--checkpoint-interval",
                                "1s",
                                "--until-idle",
                                "3"));
        args.addAll(List.of(more));
        return PiperProcesses.start(tmp.resolve(name + ".log"), args);
    }

    /** Waits until {@code p}'s log holds {@code line}, failing if it ends first. */
    private static void awaitLine(Process p, String name, String line) throws Exception {
        Path log = tmp.resolve(name + ".log");
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!Files.readString(log).contains(line)) {
            assertThat(System.nanoTime()).as("%s says '%s'", name, line).isLessThan(deadline);
            assertThat(p.waitFor(50, TimeUnit.MILLISECONDS))
                    .as("%s ended early:%n%s", name, Files.readString(log))
                    .isFalse();
        }
    }

    private static String awaitExit(Process p, String name) throws Exception {
        assertThat(p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .as("%s ends within %s", name, DEADLINE)
                .isTrue();
        String out = Files.readString(tmp.resolve(name + ".log"));
        assertThat(p.exitValue()).as("%s's exit code; output:%n%s", name, out).isZero();
        return out;
    }

    @Test
    void readersTrainerAndStreamStartedBeforeTheInputGiveTheBatchOutput() throws Exception {
        Path input = tmp.resolve("input.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(20261128, 0.01, 0.01).write(out, LINES);
        }
        Path batch = tmp.resolve("batch");
        Preprocess.prepareOutput(batch, false);
        Preprocess.Summary expected =
                Preprocess.run(input, batch, 2, StateBackend.hashmap, new Configuration(), QUIET);
        long rows = expected.rowsWritten();

        Path consumed = tmp.resolve("consumed");
        Process consume =
                PiperProcesses.start(
                        tmp.resolve("consume.log"),
                        List.of(
                                "consume",
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--topic",
                                "so-rows",
                                "--vocab-topic",
                                "so-vocab",
                                "--dead-letter-topic",
                                "so-rows-dead-letters",
                                "--rows",
                                Long.toString(rows),
                                "--timeout",
                                Long.toString(DEADLINE.toSeconds()),
                                "--output",
                                consumed.toString()));
        Process trainer = trainer(rows);
        awaitLine(
                consume, "consume", "consume: waiting for so-rows, so-vocab, so-rows-dead-letters");
        awaitLine(trainer, "trainer", "feed: waiting for rows topic so-rows to be created");
        try (Admin admin = kafka.admin()) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .as("topics the readers made the broker create")
                    .doesNotContain("so-rows", "so-vocab", "so-rows-dead-letters");
        }
        // A plain consumer with Kafka's defaults does make the broker create the rows topic (one
        // partition, as the stream would make it for its one input partition).
        CompletableFuture<Long> plain =
                CompletableFuture.supplyAsync(() -> plainConsumer("so-rows", rows));

        // Two streams with their own checkpoint directories on the same new topics, started
        // together: before, both ran and every block was committed twice.
        Process first = stream("first");
        Process second = stream("second");
        awaitLine(first, "first", "stream: waiting for input topic [so-in]");
        awaitLine(second, "second", "stream: waiting for input topic [so-in]");
        assertThat(consume.isAlive()).as("consume waits for the stream's topics").isTrue();
        assertThat(trainer.isAlive()).as("the trainer waits for the stream's topics").isTrue();

        kafka.createTopic("so-in", 1);
        LineProducer.produce(input, kafka.bootstrapServers(), "so-in", null, Map.of(), QUIET);

        assertThat(first.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(second.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        boolean firstWon = first.exitValue() == 0;
        String winner = firstWon ? "first" : "second";
        String loser = firstWon ? "second" : "first";
        String streamOut = awaitExit(firstWon ? first : second, winner);
        assertThat(streamOut).contains(String.format("stream: %,d input records consumed", LINES));
        assertThat((firstWon ? second : first).exitValue()).as("the other stream").isEqualTo(1);
        assertThat(Files.readString(tmp.resolve(loser + ".log")))
                .contains(
                        "stream: error: output topic so-rows belongs to the stream of checkpoint"
                                + " directory "
                                + tmp.resolve("checkpoints-" + winner));
        awaitExit(consume, "consume");
        SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "consume started first");

        // Once the winner has finished (or been killed: its claim stays all the same), a stream
        // of another directory is refused for the topic's owner, named with its directory, host
        // and newest snapshot, not for the group's committed input; --start-over too.
        String host = java.net.InetAddress.getLocalHost().getHostName();
        for (String[] later :
                List.of(new String[] {"third"}, new String[] {"fourth", "--start-over"})) {
            Process p = stream(later[0], java.util.Arrays.copyOfRange(later, 1, later.length));
            assertThat(p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            String log = Files.readString(tmp.resolve(later[0] + ".log"));
            assertThat(p.exitValue()).as(log).isEqualTo(1);
            assertThat(log)
                    .contains(
                            "stream: error: output topic so-rows belongs to the stream of"
                                    + " checkpoint directory "
                                    + tmp.resolve("checkpoints-" + winner)
                                    + " on "
                                    + host)
                    .contains(
                            "its newest snapshot, "
                                    + tmp.resolve("checkpoints-" + winner).resolve("savepoints"))
                    .doesNotContain("holds no snapshot to resume from");
        }
        awaitExit(trainer, "trainer");
        var metrics = new ObjectMapper().readTree(tmp.resolve("trainer.json").toFile());
        assertThat(metrics.get("rows").asLong()).as("rows trained").isEqualTo(rows);
        assertThat(plain.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .as("rows a plain consumer read")
                .isEqualTo(rows);
    }
}
