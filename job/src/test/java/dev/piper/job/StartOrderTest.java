package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.feed.OutputConsumer;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40, start order, on a real broker: readers never make the broker create the stream's topics
 * and wait for them instead; a stream waits for its input topic; a rows topic that exists with
 * another partition count than the stream's is refused naming both; a topic another client creates
 * between the stream's listing and its creating is checked, not fatal.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StartOrderTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir static Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    private static Configuration streamConf(String name) {
        Configuration conf =
                Streaming.configuration(
                        2, StateBackend.hashmap, tmp.resolve(name), Duration.ofSeconds(1));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, name + "-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, name + "-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, name + "-vocab");
        return conf;
    }

    private static Set<String> topics() throws Exception {
        try (Admin admin = kafka.admin()) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS);
        }
    }

    /** A plain consumer, with Kafka's defaults (which let a metadata request create a topic). */
    private static void plainConsumerAsksFor(String topic) {
        var props = new java.util.Properties();
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            // the first metadata request creates it; later ones see it once it has a leader
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (consumer.partitionsFor(topic, Duration.ofSeconds(30)).isEmpty()) {
                assertThat(System.nanoTime()).as("%s auto-created", topic).isLessThan(deadline);
            }
        }
    }

    /** Output written by another thread, read safely while it writes. */
    private static final class Lines {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        String text() {
            synchronized (bytes) {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }

        void awaitContains(String what) {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (!text().contains(what)) {
                assertThat(System.nanoTime())
                        .as("'%s' within %s", what, DEADLINE)
                        .isLessThan(deadline);
                java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L); // then look again
            }
        }
    }

    @Test
    void consumeWaitsForTopicsItDoesNotCreate() throws Exception {
        OutputConsumer consumer =
                new OutputConsumer(
                        kafka.bootstrapServers(), Map.of(), "early-rows", "early-vocab", null);
        assertThatThrownBy(
                        () ->
                                consumer.consume(
                                        tmp.resolve("early"),
                                        0,
                                        Duration.ofSeconds(1),
                                        new PrintStream(PrintStream.nullOutputStream())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("topics early-rows, early-vocab do not exist on ")
                .hasMessageContaining("after 1 s of waiting");
        // Before, its metadata request made the broker create the rows topic with its defaults.
        assertThat(topics()).doesNotContain("early-rows", "early-vocab");
    }

    @Test
    void aStreamWaitsForItsInputTopic() throws Exception {
        Configuration conf = streamConf("late");
        conf.set(StreamOptions.INPUT_WAIT, Duration.ofSeconds(1));
        assertThatThrownBy(
                        () ->
                                StreamTopics.awaitInputs(
                                        conf, new PrintStream(PrintStream.nullOutputStream())))
                .hasMessageStartingWith("input topic [late-in] does not exist on ")
                .hasMessageContaining("after 1 s of waiting (--input-wait)");

        conf.set(StreamOptions.INPUT_WAIT, DEADLINE);
        Lines progress = new Lines();
        CompletableFuture<Void> waiting =
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                StreamTopics.awaitInputs(conf, progress.out);
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        });
        progress.awaitContains("stream: waiting for input topic [late-in]");
        assertThat(waiting).isNotDone();
        kafka.createTopic("late-in", 2);
        waiting.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        StreamTopics.prepareTopics(conf, progress.out);
        assertThat(progress.text()).contains("stream: created topic late-rows (2 partitions)");
    }

    /**
     * A rows topic the broker created for a reader's metadata request (one partition) while the
     * stream would make two: refused, naming both counts, unless --output-partitions names its
     * count; before, the stream used it silently and a trainer of rank 1 read nothing.
     */
    @Test
    void anExistingRowsTopicWithOtherPartitionsIsRefusedNamingBoth() throws Exception {
        Configuration conf = streamConf("auto");
        kafka.createTopic("auto-in", 2);
        plainConsumerAsksFor("auto-rows");
        assertThat(topics()).as("the broker auto-creates topics").contains("auto-rows");
        PrintStream quiet = new PrintStream(PrintStream.nullOutputStream());

        assertThatThrownBy(() -> StreamTopics.prepareTopics(conf, quiet))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "rows topic auto-rows exists with 1 partition, but the stream would"
                                + " create it with 2 (its input's)")
                .hasMessageContaining("pass --output-partitions 1 to use it as it is");

        conf.set(StreamOptions.OUTPUT_PARTITIONS, 4);
        assertThatThrownBy(() -> StreamTopics.prepareTopics(conf, quiet))
                .hasMessageStartingWith(
                        "rows topic auto-rows exists with 1 partition, but --output-partitions"
                                + " asks for 4");

        conf.set(StreamOptions.OUTPUT_PARTITIONS, 1);
        Lines progress = new Lines();
        StreamTopics.prepareTopics(conf, progress.out);
        assertThat(progress.text())
                .as("a topic with the broker's record limit is used with a line saying so")
                .contains("stream: rows topic auto-rows takes records of at most");
    }

    /**
     * Two streams started at once both list the topics as missing; the one that creates second met
     * TopicExistsException and exited ("creating topics: Topic 'rows' already exists.").
     */
    @Test
    void aTopicCreatedByAnotherClientMeanwhileIsCheckedNotFatal() throws Exception {
        kafka.createTopic("raced-rows", 1);
        Lines progress = new Lines();
        try (var probe = StreamTopics.probe(streamConf("raced"))) {
            assertThat(
                            StreamTopics.create(
                                    probe,
                                    List.of(
                                            new NewTopic(
                                                    "raced-rows", Optional.of(1), Optional.empty()),
                                            new NewTopic(
                                                    "raced-vocab",
                                                    Optional.of(1),
                                                    Optional.empty())),
                                    progress.out))
                    .containsExactly("raced-vocab");
        }
        assertThat(progress.text())
                .contains("stream: topic raced-rows was created by another client meanwhile")
                .contains("stream: created topic raced-vocab (1 partition)");
    }
}
