package dev.piper.feed;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The consumers of piper's Kafka tools: committed records only, no offsets committed, no topic
 * created by asking for it, and short fetch waits at a partition's end.
 */
public final class CommittedReads {

    /**
     * How long a reader's fetch waits at the broker for records that have not come (Kafka's default
     * is 500 ms): the tools read a topic to its end ({@code consume}, {@code vocab snapshot},
     * {@code skew-check}, the stream's checks before it starts), and there each fetch finds nothing
     * new and would wait the whole time, half a second per look at a partition's end. A client's
     * own {@code fetch.max.wait.ms} wins.
     */
    public static final String END_OF_LOG_FETCH_WAIT_MS = "20";

    /**
     * A plain consumer's properties: {@code client}'s, then reading committed records only,
     * committing no offsets and never making the broker create a topic (it would get the broker's
     * defaults, not the stream's partitions and record limit); fetches wait {@link
     * #END_OF_LOG_FETCH_WAIT_MS} unless the client says otherwise.
     */
    public static Properties properties(Map<?, ?> client) {
        Properties props = new Properties();
        props.putAll(client);
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.setProperty(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        props.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, END_OF_LOG_FETCH_WAIT_MS);
        return props;
    }

    private CommittedReads() {}

    /**
     * A consumer of committed records ({@link #properties}) of byte arrays, fetching up to 8 MiB a
     * partition (a rows record of a wide layout is several MiB).
     */
    public static KafkaConsumer<byte[], byte[]> consumer(
            String bootstrapServers, Map<String, String> client) {
        Properties props = properties(client);
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.putIfAbsent(
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(8 << 20));
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
