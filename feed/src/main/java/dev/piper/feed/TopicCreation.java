package dev.piper.feed;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/** Creates a topic with a chosen partition count unless it exists. */
public final class TopicCreation {

    private TopicCreation() {}

    /**
     * Creates {@code topic} with {@code partitions} partitions and the broker's default replication
     * if it does not exist; otherwise reports its partition count when that differs.
     */
    public static void createIfAbsent(
            String bootstrapServers,
            Map<String, String> properties,
            String topic,
            int partitions,
            PrintStream progress)
            throws Exception {
        Properties props = new Properties();
        props.putAll(properties);
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(props)) {
            if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
                int existing =
                        admin.describeTopics(List.of(topic))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get(topic)
                                .partitions()
                                .size();
                if (existing != partitions) {
                    progress.printf(
                            "topic %s exists with %s; left as it is%n",
                            topic, partitions(existing));
                }
                return;
            }
            create(
                    admin,
                    new NewTopic(topic, Optional.of(partitions), Optional.empty()),
                    java.time.Duration.ofSeconds(30));
            progress.printf("created topic %s (%s)%n", topic, partitions(partitions));
        }
    }

    /**
     * Creates {@code topic} and waits until every partition has a leader ({@link #awaitLeaders}),
     * each step for at most {@code wait}.
     *
     * @throws java.util.concurrent.ExecutionException with a {@code TopicExistsException} if the
     *     topic exists
     */
    public static void create(Admin admin, NewTopic topic, java.time.Duration wait)
            throws Exception {
        admin.createTopics(List.of(topic)).all().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        awaitLeaders(admin, topic.name(), wait);
    }

    /**
     * Waits until every partition of a topic just created has a leader that serves it: the broker's
     * metadata names a leader, and the leader answers a request for the partition's end offset. The
     * metadata can name the leader before it has opened the partition; an idempotent producer
     * sending several batches at once is then told NOT_LEADER_OR_FOLLOWER for the first, the leader
     * takes the next ones, and the first one's retries are out of sequence until they expire
     * (Kafka's KAFKA-15591; TopicCreationTest lost a batch in two of three runs before this waited
     * for the answer).
     *
     * @throws IllegalStateException naming the partitions without a serving leader after {@code
     *     wait}
     */
    public static void awaitLeaders(Admin admin, String topic, java.time.Duration wait)
            throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            List<Integer> leaderless;
            try {
                List<TopicPartitionInfo> partitions =
                        admin.describeTopics(List.of(topic))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get(topic)
                                .partitions();
                leaderless =
                        partitions.stream()
                                .filter(p -> p.leader() == null || p.leader().isEmpty())
                                .map(TopicPartitionInfo::partition)
                                .toList();
                if (leaderless.isEmpty()) {
                    leaderless = unserved(admin, topic, partitions, deadline);
                    if (leaderless.isEmpty()) {
                        return;
                    }
                }
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause()
                        instanceof
                        org.apache.kafka.common.errors.UnknownTopicOrPartitionException)) {
                    throw e;
                }
                leaderless = List.of(-1); // the broker does not know the new topic yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "topic "
                                + topic
                                + (leaderless.contains(-1)
                                        ? " is unknown to the broker "
                                        : ": partitions "
                                                + leaderless
                                                + " have no leader that serves them ")
                                + wait.toSeconds()
                                + " s after its creation");
            }
            Thread.sleep(50); // polling the broker's metadata, with a deadline
        }
    }

    /**
     * The partitions of {@code topic} whose leader does not answer for their end offset before
     * {@code deadline} (a {@link System#nanoTime} value); all of them while any does not.
     */
    private static List<Integer> unserved(
            Admin admin, String topic, List<TopicPartitionInfo> partitions, long deadline)
            throws Exception {
        List<Integer> ids = partitions.stream().map(TopicPartitionInfo::partition).toList();
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        for (int id : ids) {
            ends.put(new TopicPartition(topic, id), OffsetSpec.latest());
        }
        // the admin client retries NOT_LEADER_OR_FOLLOWER itself until this returns or times out
        long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        try {
            admin.listOffsets(ends).all().get(left, TimeUnit.MILLISECONDS);
            return List.of();
        } catch (java.util.concurrent.TimeoutException e) {
            return ids;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.RetriableException) {
                return ids;
            }
            throw e;
        }
    }

    /** {@code 1 partition}, {@code 12 partitions}: a count as every message of piper writes it. */
    public static String partitions(int n) {
        return n == 1 ? "1 partition" : String.format("%,d partitions", n);
    }
}
