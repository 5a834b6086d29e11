package dev.piper.feed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Which stream owns an output topic: two streams writing one rows topic (another checkpoint
 * directory, the same topic) would each commit every block. A stream claims its output topics as it
 * starts by appending a claim to the claims topic (one partition, kept for ever): key the output
 * topic, value {@code {"stream_id", "checkpoint_dir", "host", "started"}}. The owner of a topic is
 * its first claim, or the latest claim that took it over ({@code --take-over-output}); another
 * stream (another checkpoint directory's id) is refused, naming the owner's directory and host. Two
 * streams that claim at the same moment both append, read back, and agree on the first.
 */
public final class OutputClaims {

    /**
     * One claim: which stream (the id its checkpoint directory holds, so that a directory moved or
     * restored elsewhere stays the same stream) writes a topic, from which directory and host,
     * since when.
     */
    public record Claim(
            String streamId, String checkpointDir, String host, String started, boolean takeOver) {

        /** "the stream of checkpoint directory D on H (claimed T)". */
        public String describe() {
            return "the stream of checkpoint directory "
                    + checkpointDir
                    + " on "
                    + host
                    + " (claimed "
                    + started
                    + ")";
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String bootstrapServers;
    private final Map<String, String> properties;
    private final String claimsTopic;

    public OutputClaims(
            String bootstrapServers, Map<String, String> properties, String claimsTopic) {
        this.bootstrapServers = bootstrapServers;
        this.properties = properties;
        this.claimsTopic = claimsTopic;
    }

    /**
     * Claims {@code outputTopics} for stream {@code streamId} (of checkpoint directory {@code
     * checkpointDir}): nothing to do for the topics it owns already, a claim appended for the
     * others, and with {@code takeOver} a claim that takes them over from another owner (said on
     * {@code progress}).
     *
     * @throws IllegalStateException naming the topic and its owner, if another stream owns it
     */
    public void claim(
            List<String> outputTopics,
            String streamId,
            String checkpointDir,
            boolean takeOver,
            PrintStream progress)
            throws Exception {
        claim(outputTopics, streamId, checkpointDir, takeOver, progress, owner -> null);
    }

    /**
     * As {@link #claim(List, String, String, boolean, PrintStream)}, a refusal saying also what
     * {@code aboutOwner} knows of the owner (null: nothing).
     */
    public void claim(
            List<String> outputTopics,
            String streamId,
            String checkpointDir,
            boolean takeOver,
            PrintStream progress,
            java.util.function.Function<Claim, String> aboutOwner)
            throws Exception {
        createIfAbsent();
        Map<String, Claim> owners = owners();
        String host = host();
        String started = Instant.now().toString();
        Map<String, Claim> appended = new HashMap<>();
        for (String topic : outputTopics) {
            Claim owner = owners.get(topic);
            if (owner != null && owner.streamId().equals(streamId)) {
                continue;
            }
            if (owner != null && !takeOver) {
                throw refusal(topic, owner, aboutOwner.apply(owner));
            }
            if (owner != null) {
                progress.printf(
                        "stream: --take-over-output: output topic %s was %s's; it is this"
                                + " stream's now (stop that one: both would commit every"
                                + " block)%n",
                        topic, owner.describe());
            }
            appended.put(topic, new Claim(streamId, checkpointDir, host, started, owner != null));
        }
        if (appended.isEmpty()) {
            return;
        }
        append(appended);
        Map<String, Claim> after = owners();
        for (String topic : appended.keySet()) {
            Claim owner = after.get(topic);
            if (owner == null || !owner.streamId().equals(streamId)) {
                throw refusal(topic, owner, owner == null ? null : aboutOwner.apply(owner));
            }
        }
    }

    /** The owner of {@code topic}, as the claims read now say; empty if none claimed it. */
    public Optional<Claim> owner(String topic) throws Exception {
        return Optional.ofNullable(owners().get(topic));
    }

    /**
     * Why a stream may not write {@code topic}, which {@code owner} owns: the owner, {@code
     * aboutOwner} (what else is known of it, or null) and the ways on.
     */
    public IllegalStateException refusal(String topic, Claim owner, String aboutOwner) {
        return new IllegalStateException(
                "output topic "
                        + topic
                        + " belongs to "
                        + (owner == null ? "another stream" : owner.describe())
                        + (aboutOwner == null ? "" : "; " + aboutOwner)
                        + " (claims topic "
                        + claimsTopic
                        + "): two streams on one output topic would each commit every block."
                        + " Stop that stream and run this one with its --checkpoint-dir, or write"
                        + " to another --output-topic; if that stream is gone for good,"
                        + " --take-over-output claims the topic for this one");
    }

    private Properties clientProperties() {
        Properties props = new Properties();
        props.putAll(properties);
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return props;
    }

    private void createIfAbsent() throws Exception {
        try (Admin admin = Admin.create(clientProperties())) {
            if (admin.listTopics()
                    .names()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .contains(claimsTopic)) {
                return;
            }
            NewTopic topic = new NewTopic(claimsTopic, Optional.of(1), Optional.empty());
            topic.configs(Map.of("retention.ms", "-1", "cleanup.policy", "delete"));
            try {
                TopicCreation.create(admin, topic, TIMEOUT);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
    }

    /** Every claim in offset order, folded into the owner of each topic. */
    private Map<String, Claim> owners() throws IOException, TimeoutException {
        Properties props = clientProperties();
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.setProperty(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        props.putIfAbsent(
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, CommittedReads.END_OF_LOG_FETCH_WAIT_MS);
        Map<String, Claim> owners = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            if (consumer.partitionsFor(claimsTopic, TIMEOUT).isEmpty()) {
                return owners; // no stream has claimed anything here yet
            }
            TopicPartition tp = new TopicPartition(claimsTopic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), TIMEOUT).get(tp);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (consumer.position(tp, TIMEOUT) < end) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException(
                            "claims topic "
                                    + claimsTopic
                                    + " on "
                                    + bootstrapServers
                                    + " not read to its end within "
                                    + TIMEOUT.toSeconds()
                                    + " s");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key() == null || r.value() == null) {
                        continue;
                    }
                    String topic = new String(r.key(), StandardCharsets.UTF_8);
                    Claim claim = parse(r);
                    if (!owners.containsKey(topic) || claim.takeOver()) {
                        owners.put(topic, claim);
                    }
                }
            }
        }
        return owners;
    }

    private Claim parse(ConsumerRecord<byte[], byte[]> r) throws IOException {
        JsonNode v;
        try {
            v = JSON.readTree(r.value());
        } catch (IOException e) {
            throw new IOException(
                    "claims topic "
                            + claimsTopic
                            + ", partition "
                            + r.partition()
                            + ", offset "
                            + r.offset()
                            + ": not a claim ("
                            + e.getMessage()
                            + ")",
                    e);
        }
        return new Claim(
                v.path("stream_id").asText(""),
                v.path("checkpoint_dir").asText(""),
                v.path("host").asText("?"),
                v.path("started").asText("?"),
                v.path("take_over").asBoolean(false));
    }

    private void append(Map<String, Claim> claims) throws Exception {
        Properties props = clientProperties();
        props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (Map.Entry<String, Claim> e : claims.entrySet()) {
                ObjectNode v = JSON.createObjectNode();
                v.put("stream_id", e.getValue().streamId());
                v.put("checkpoint_dir", e.getValue().checkpointDir());
                v.put("host", e.getValue().host());
                v.put("started", e.getValue().started());
                v.put("take_over", e.getValue().takeOver());
                producer.send(
                                new ProducerRecord<>(
                                        claimsTopic,
                                        0,
                                        e.getKey().getBytes(StandardCharsets.UTF_8),
                                        JSON.writeValueAsBytes(v)))
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        }
    }

    private static String host() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "an unknown host";
        }
    }
}
