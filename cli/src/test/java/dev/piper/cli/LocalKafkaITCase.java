package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.cli.local.LocalKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/piper kafka}'s broker, for real: a separate JVM from Apache Kafka's jars, started,
 * written to and read from with transactions, stopped, and started again on the same data.
 */
class LocalKafkaITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    @TempDir Path tmp;

    private LocalKafka broker;

    private LocalKafka broker() {
        Path home = Path.of(System.getProperty("piper.home"));
        return new LocalKafka(tmp.resolve("kafka"), LocalKafka.classpathFile(home));
    }

    @AfterEach
    void stopBroker() throws Exception {
        if (broker != null) {
            broker.stop(Duration.ofSeconds(30));
        }
    }

    private static void produceTransactionally(
            String bootstrap, String topic, List<String> values) {
        Map<String, Object> conf =
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        "local-kafka-test",
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                        StringSerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                        StringSerializer.class);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(conf)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, v));
            }
            producer.commitTransaction();
        }
    }

    private static List<String> readCommitted(String bootstrap, String topic, int expected) {
        Map<String, Object> conf =
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed",
                        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                        StringDeserializer.class,
                        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                        StringDeserializer.class);
        List<String> got = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(conf)) {
            TopicPartition p = new TopicPartition(topic, 0);
            consumer.assign(List.of(p));
            consumer.seekToBeginning(List.of(p));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (got.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    got.add(r.value());
                }
            }
        }
        return got;
    }

    @Test
    void startsServesTransactionsStopsAndKeepsItsDataAcrossARestart() throws Exception {
        broker = broker();
        int port = TestPorts.free();
        int controller = TestPorts.free();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        PrintStream log = new PrintStream(progress, true, StandardCharsets.UTF_8);

        LocalKafka.Running running = broker.start(port, controller, "512m", TIMEOUT, log);
        assertThat(running.bootstrap()).isEqualTo("127.0.0.1:" + port);
        assertThat(broker.status()).contains(running);
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("formatting");
        assertThat(Files.readString(tmp.resolve("kafka/config/server.properties")))
                .contains("listeners=PLAINTEXT://127.0.0.1:" + port)
                .contains("transaction.state.log.replication.factor=1");

        assertThatThrownBy(() -> broker.start(port, controller, "512m", TIMEOUT, log))
                .hasMessageContaining("already runs from");

        produceTransactionally(running.bootstrap(), "clicks", List.of("a", "b", "c"));
        assertThat(readCommitted(running.bootstrap(), "clicks", 3)).containsExactly("a", "b", "c");

        assertThat(broker.stop(TIMEOUT)).isTrue();
        assertThat(broker.status()).isEmpty();
        assertThat(ProcessHandle.of(running.pid()).map(ProcessHandle::isAlive))
                .isNotEqualTo(java.util.Optional.of(true));
        assertThat(broker.stop(TIMEOUT)).as("stopping twice is harmless").isFalse();

        progress.reset();
        LocalKafka.Running again = broker.start(port, controller, "512m", TIMEOUT, log);
        assertThat(progress.toString(StandardCharsets.UTF_8))
                .as("the formatted data directory is reused")
                .doesNotContain("formatting");
        assertThat(readCommitted(again.bootstrap(), "clicks", 3)).containsExactly("a", "b", "c");
    }

    /** {@code piper produce}: every line one record, in order, without its line break. */
    @Test
    void produceSendsEveryLineInOrder() throws Exception {
        broker = broker();
        LocalKafka.Running running =
                broker.start(
                        TestPorts.free(),
                        TestPorts.free(),
                        "512m",
                        TIMEOUT,
                        new PrintStream(new ByteArrayOutputStream()));
        StringBuilder text = new StringBuilder();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            String line = i % 7 == 0 ? "" : "1\t" + i + "\t\t68fd1e64";
            lines.add(line);
            text.append(line).append(i % 3 == 0 ? "\r\n" : "\n");
        }
        text.append("last line without a break");
        lines.add("last line without a break");
        Path input = tmp.resolve("lines.tsv");
        Files.writeString(input, text, StandardCharsets.UTF_8);

        int exit =
                dev.piper.cli.PiperCli.execute(
                        "produce",
                        "--bootstrap-servers",
                        running.bootstrap(),
                        "--topic",
                        "input",
                        "--input",
                        input.toString(),
                        "--kafka-property",
                        "client.id=produce-test");
        assertThat(exit).isZero();
        assertThat(readCommitted(running.bootstrap(), "input", lines.size()))
                .containsExactlyElementsOf(lines);
    }

    @Test
    void aStalePidFileNamingAnotherProcessIsNotARunningBroker() throws Exception {
        broker = broker();
        Files.createDirectories(tmp.resolve("kafka"));
        Files.writeString(tmp.resolve("kafka/kafka.pid"), ProcessHandle.current().pid() + "\n");
        assertThat(broker.status()).isEmpty();
    }

    @Test
    void aTakenPortIsNamed() throws Exception {
        broker = broker();
        try (ServerSocket taken =
                new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatThrownBy(
                            () ->
                                    broker.start(
                                            port,
                                            TestPorts.free(),
                                            "512m",
                                            TIMEOUT,
                                            new PrintStream(new ByteArrayOutputStream())))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--port: port " + port + " on 127.0.0.1 is in use");
        }
        assertThat(broker.status()).isEmpty();
    }
}
