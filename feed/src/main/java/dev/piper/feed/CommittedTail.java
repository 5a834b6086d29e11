package dev.piper.feed;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * The last committed record of each partition of a topic, as a {@code read_committed} consumer sees
 * it: read back from the partition's last stable offset in ever larger steps, since commit markers
 * and aborted records lie between the records. What a stream committed last: the end a snapshot is
 * cut at ({@link TopicSnapshot#positionAtEnd}), the checkpoint that committed it ({@link
 * RowsRecord#CHECKPOINT}).
 */
public final class CommittedTail {

    private CommittedTail() {}

    /**
     * The last committed record of each partition of {@code topic} that has one, in partition
     * order; none if the topic does not exist.
     *
     * @throws IOException naming the partition if it cannot be read within {@code wait}
     */
    public static List<ConsumerRecord<byte[], byte[]>> of(
            String bootstrapServers, Map<String, String> client, String topic, Duration wait)
            throws IOException {
        try (KafkaConsumer<byte[], byte[]> consumer =
                CommittedReads.consumer(bootstrapServers, client)) {
            return of(consumer, partitions(consumer, topic, wait), wait);
        }
    }

    /** The partitions of {@code topic} in partition order; none if it does not exist. */
    static List<TopicPartition> partitions(
            KafkaConsumer<byte[], byte[]> consumer, String topic, Duration wait) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, wait);
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo i : infos == null ? List.<PartitionInfo>of() : infos) {
            partitions.add(new TopicPartition(i.topic(), i.partition()));
        }
        partitions.sort(java.util.Comparator.comparingInt(TopicPartition::partition));
        return partitions;
    }

    /**
     * The last committed record of each of {@code partitions} that has one, with {@code consumer}.
     */
    static List<ConsumerRecord<byte[], byte[]>> of(
            KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> partitions, Duration wait)
            throws IOException {
        List<ConsumerRecord<byte[], byte[]>> last = new ArrayList<>();
        if (partitions.isEmpty()) {
            return last;
        }
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, wait);
        for (TopicPartition tp : partitions) {
            ConsumerRecord<byte[], byte[]> r = last(consumer, tp, ends.get(tp), wait);
            if (r != null) {
                last.add(r);
            }
        }
        return last;
    }

    /** The last committed record of {@code tp} before {@code end}, or null if it has none. */
    private static ConsumerRecord<byte[], byte[]> last(
            KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long end, Duration wait)
            throws IOException {
        consumer.assign(List.of(tp));
        long beginning = consumer.beginningOffsets(List.of(tp), wait).get(tp);
        // the last record and its commit marker, then ever further back: rows records are large
        for (long back = 2; ; back *= 8) {
            long from = Math.max(beginning, end - back);
            List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>(1);
            window( // keeping only the last
                    consumer,
                    tp,
                    from,
                    end,
                    wait,
                    r -> {
                        read.clear();
                        read.add(r);
                    });
            if (!read.isEmpty() || from == beginning) {
                return read.isEmpty() ? null : read.get(0);
            }
        }
    }

    /** Takes a committed record. */
    interface RecordVisitor {
        void visit(ConsumerRecord<byte[], byte[]> r) throws IOException;
    }

    /**
     * Reads {@code tp}'s committed records from offset {@code from} up to {@code to} (exclusive),
     * each to {@code visitor}, in offset order.
     *
     * @throws IOException naming the partition and the offsets if that takes longer than {@code
     *     wait}
     */
    static void window(
            KafkaConsumer<byte[], byte[]> consumer,
            TopicPartition tp,
            long from,
            long to,
            Duration wait,
            RecordVisitor visitor)
            throws IOException {
        consumer.seek(tp, from);
        long deadline = System.nanoTime() + wait.toNanos();
        while (consumer.position(tp, wait) < to) {
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        tp
                                + ": not read from offset "
                                + from
                                + " to "
                                + to
                                + " within "
                                + wait.toSeconds()
                                + " s");
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.offset() < to) {
                    visitor.visit(r);
                }
            }
        }
    }
}
