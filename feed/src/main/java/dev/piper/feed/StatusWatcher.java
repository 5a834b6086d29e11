package dev.piper.feed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Follows a stream's control-status topic ({@link ControlStatus}) from the moment it is opened,
 * committed records only, for {@code spec publish --wait}.
 */
public final class StatusWatcher implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;

    /** Opens the watcher at the topic's current end: only later records are seen. */
    public StatusWatcher(String bootstrapServers, Map<String, String> properties, String topic) {
        Properties props = CommittedReads.properties(properties);
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        this.topic = topic;
        this.consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        var infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
        if (infos == null || infos.isEmpty()) {
            consumer.close();
            throw new IllegalArgumentException("status topic " + topic + " does not exist");
        }
        List<TopicPartition> partitions =
                infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(tp -> consumer.position(tp, Duration.ofSeconds(30)));
    }

    /**
     * The first status record after the watcher's start (or the previous match) that satisfies
     * {@code match}, or empty if none arrives within {@code timeout}. Records that are not JSON
     * objects are skipped.
     */
    public Optional<JsonNode> await(Predicate<JsonNode> match, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                JsonNode status;
                try {
                    status = JSON.readTree(r.value());
                } catch (IOException e) {
                    continue;
                }
                if (status != null && status.isObject() && match.test(status)) {
                    // Later records stay unread for the next call.
                    consumer.seek(new TopicPartition(topic, r.partition()), r.offset() + 1);
                    return Optional.of(status);
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
    }
}
