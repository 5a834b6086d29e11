package dev.piper.feed;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real single-node Kafka (KRaft, broker and controller combined) inside the test JVM, on
 * loopback, configured for transactions on one broker. A test class holds one for all its tests
 * with {@code @RegisterExtension static final TestKafka kafka = TestKafka.perClass();} (started
 * before the class's first test, stopped after its last); {@link #start()} starts one at once.
 */
public final class TestKafka implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

    private KafkaClusterTestKit cluster;

    private TestKafka(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    /** A broker that starts before the test class's first test and stops after its last. */
    public static TestKafka perClass() {
        return new TestKafka(null);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        cluster = started();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    /** A broker started now; close it when done. */
    public static TestKafka start() throws Exception {
        return new TestKafka(started());
    }

    private static KafkaClusterTestKit started() throws Exception {
        KafkaClusterTestKit cluster =
                new KafkaClusterTestKit.Builder(
                                new TestKitNodes.Builder()
                                        .setCombined(true)
                                        .setNumBrokerNodes(1)
                                        .setNumControllerNodes(1)
                                        .build())
                        .setConfigProp("offsets.topic.replication.factor", "1")
                        .setConfigProp("offsets.topic.num.partitions", "1")
                        .setConfigProp("transaction.state.log.replication.factor", "1")
                        .setConfigProp("transaction.state.log.min.isr", "1")
                        .setConfigProp("transaction.state.log.num.partitions", "4")
                        .setConfigProp("group.initial.rebalance.delay.ms", "0")
                        .build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
        return cluster;
    }

    public String bootstrapServers() {
        if (cluster == null) {
            throw new IllegalStateException("the broker is not running (outside its test class?)");
        }
        return cluster.bootstrapServers();
    }

    /**
     * Creates a topic and waits until every partition has a leader: a producer sending at once may
     * otherwise get NOT_LEADER_OR_FOLLOWER for an append that succeeded, after which its idempotent
     * retries are out of sequence until they expire.
     */
    public void createTopic(String name, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            TopicCreation.awaitLeaders(admin, name, java.time.Duration.ofSeconds(30));
        }
    }

    public Admin admin() {
        Properties props = new Properties();
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return Admin.create(props);
    }

    private KafkaConsumer<byte[], byte[]> committedReader() {
        Properties props = new Properties();
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.setProperty(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "8388608");
        // a fetch at a partition's end would wait Kafka's 500 ms for records that will not come
        props.setProperty(
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, CommittedReads.END_OF_LOG_FETCH_WAIT_MS);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
        return consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .sorted(java.util.Comparator.comparingInt(TopicPartition::partition))
                .toList();
    }

    /** Every committed record of {@code topic}, partition by partition, in offset order. */
    public List<ConsumerRecord<byte[], byte[]>> readCommitted(String topic) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = committedReader()) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            var ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            for (TopicPartition tp : partitions) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (consumer.position(tp) < ends.get(tp)) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(tp + " not read to its end in 60 s");
                    }
                    consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                }
            }
        }
        return out;
    }

    /**
     * Reads {@code topic}'s committed records from the beginning until {@code done} holds for what
     * was read, failing after {@code wait} (a job keeps a transaction open, so reading "to the end"
     * never ends).
     */
    public List<ConsumerRecord<byte[], byte[]>> awaitCommitted(
            String topic,
            Predicate<List<ConsumerRecord<byte[], byte[]>>> done,
            String what,
            Duration wait) {
        List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = committedReader()) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + wait.toNanos();
            while (!done.test(read)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(what + " not committed within " + wait);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
            }
        }
        return read;
    }

    /** The value of {@code r}'s last header {@code name} as ASCII text, or null if it has none. */
    public static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Sends {@code value} to {@code topic} and waits for its acknowledgement by every replica. */
    public void publish(String topic, byte[] value) throws Exception {
        Properties props = new Properties();
        props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, value)).get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Sends each of {@code lines} as a record to partition {@code partition} of {@code topic}, in
     * order, and waits for every acknowledgement.
     */
    public void publishLines(String topic, int partition, List<String> lines) throws Exception {
        Properties props = new Properties();
        props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        props.setProperty(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (String line : lines) {
                sent.add(
                        producer.send(
                                new ProducerRecord<>(
                                        topic,
                                        partition,
                                        null,
                                        line.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
            }
            for (var f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
