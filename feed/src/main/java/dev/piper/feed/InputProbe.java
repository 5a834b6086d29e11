package dev.piper.feed;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Watches the input topics from outside the job: its end offsets (what producers have written) and
 * the consumer group's committed offsets (what the job has consumed as of its last completed
 * checkpoint). {@code bin/piper stream} uses it for progress lines and for {@code --until-idle}.
 */
public final class InputProbe implements AutoCloseable {

    /**
     * One look at the topic.
     *
     * @param end sum of the partitions' end offsets
     * @param committed sum of the committed offsets (capped at the end offsets)
     * @param behind partitions whose committed offset is below the end offset
     */
    public record Position(long end, long committed, Map<TopicPartition, Long> behind) {

        /** Whether the committed offsets have reached the end offsets everywhere. */
        public boolean caughtUp() {
            return behind.isEmpty();
        }

        /** Records written but not yet consumed as of the last checkpoint. */
        public long lag() {
            return Math.max(0, end - committed);
        }
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final String bootstrapServers;
    private final Properties clientProperties;
    private final Admin admin;
    private final List<String> topics;
    private final String groupId;

    public InputProbe(
            String bootstrapServers,
            Map<String, String> properties,
            List<String> topics,
            String groupId) {
        Properties props = new Properties();
        props.putAll(properties);
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        this.bootstrapServers = bootstrapServers;
        this.clientProperties = props;
        this.admin = Admin.create(props);
        this.topics = List.copyOf(topics);
        this.groupId = groupId;
    }

    /**
     * Waits for an admin call, turning a timeout or a Kafka error into an exception whose message
     * says what was asked of which cluster.
     */
    public <T> T await(String what, KafkaFuture<T> future) {
        try {
            return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "no answer from Kafka at "
                            + bootstrapServers
                            + " within "
                            + TIMEOUT.toSeconds()
                            + " s ("
                            + what
                            + ")",
                    e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException(
                    "Kafka at " + bootstrapServers + ": " + what + ": " + cause.getMessage(),
                    cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + what, e);
        }
    }

    /** The topics' partitions, or an error naming the topics if one does not exist. */
    public List<TopicPartition> partitions() {
        Map<String, TopicDescription> d =
                await("describing topics " + topics, admin.describeTopics(topics).allTopicNames());
        List<TopicPartition> all = new ArrayList<>();
        for (String topic : topics) {
            d.get(topic)
                    .partitions()
                    .forEach(p -> all.add(new TopicPartition(topic, p.partition())));
        }
        return all;
    }

    /** The number of partitions of {@code topic}, one of the watched topics. */
    public int partitions(String topic) {
        return (int) partitions().stream().filter(tp -> tp.topic().equals(topic)).count();
    }

    public Position poll() {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (TopicPartition tp : partitions()) {
            request.put(tp, OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResultInfo> ends =
                await("listing end offsets of " + topics, admin.listOffsets(request).all());
        Map<TopicPartition, OffsetAndMetadata> committed =
                await(
                        "listing offsets of group " + groupId,
                        admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata());
        long end = 0;
        long done = 0;
        Map<TopicPartition, Long> behind = new HashMap<>();
        for (var e : ends.entrySet()) {
            long partitionEnd = e.getValue().offset();
            OffsetAndMetadata c = committed.get(e.getKey());
            long partitionDone = c == null ? 0 : c.offset();
            end += partitionEnd;
            done += Math.min(partitionDone, partitionEnd);
            if (partitionDone < partitionEnd) {
                behind.put(e.getKey(), partitionDone);
            }
        }
        return new Position(end, done, behind);
    }

    /** The sum of the topics' earliest offsets: where a run from {@code earliest} starts. */
    public long earliest() {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (TopicPartition tp : partitions()) {
            request.put(tp, OffsetSpec.earliest());
        }
        long sum = 0;
        for (ListOffsetsResultInfo info :
                await("listing earliest offsets of " + topics, admin.listOffsets(request).all())
                        .values()) {
            sum += info.offset();
        }
        return sum;
    }

    /**
     * Whether no committed record follows the given offsets: a partition written by transactional
     * producers ends in a commit marker that takes an offset but is never delivered, and the source
     * commits the offset after its last record, one short of the end (FLINK-33484). Reads each
     * partition from its offset to its end, {@code read_committed}.
     */
    public boolean nothingToReadFrom(Map<TopicPartition, Long> offsets) {
        Properties props = CommittedReads.properties(clientProperties);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(offsets.keySet());
            offsets.forEach(consumer::seek);
            Map<TopicPartition, Long> ends = consumer.endOffsets(offsets.keySet(), TIMEOUT);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                if (!consumer.poll(Duration.ofMillis(200)).isEmpty()) {
                    return false;
                }
                boolean atEnd = true;
                for (TopicPartition tp : offsets.keySet()) {
                    atEnd &= consumer.position(tp, TIMEOUT) >= ends.get(tp);
                }
                if (atEnd) {
                    return true;
                }
            }
            return false;
        } catch (KafkaException e) {
            return false; // cannot tell now; the caller asks again
        }
    }

    public Admin admin() {
        return admin;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
