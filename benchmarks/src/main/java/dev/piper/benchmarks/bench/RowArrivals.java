package dev.piper.benchmarks.bench;

import dev.piper.feed.RowsRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@link JoinFreshness}'s reader of a stream's committed rows (read_committed, from the beginning),
 * noting each row's arrival (the wall clock when its record's poll returned), the time its record
 * was written (the record's timestamp, which the stream's producer sets when its sink hands the
 * record over, before the transaction commits) and its event time, on a thread of its own; {@link
 * #finish} once the stream has stopped, and it reads to the topic's end and ends. Its arrays are
 * read after the thread has ended.
 */
final class RowArrivals implements Runnable {
    private final String bootstrap;
    private final String topic;
    private final AtomicBoolean finishing = new AtomicBoolean();
    final AtomicReference<Exception> failure = new AtomicReference<>();
    long[] arrivedMs = new long[1 << 16];
    long[] writtenMs = new long[1 << 16];
    long[] eventTimes = new long[1 << 16];
    int count;

    RowArrivals(String bootstrap, String topic) {
        this.bootstrap = bootstrap;
        this.topic = topic;
    }

    /** The stream has stopped: read what is committed to its end, then stop. */
    void finish() {
        finishing.set(true);
    }

    @Override
    public void run() {
        Map<String, Object> conf = new HashMap<>();
        conf.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        conf.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        conf.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        conf.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        conf.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(conf)) {
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo p : c.partitionsFor(topic, Duration.ofSeconds(30))) {
                parts.add(new TopicPartition(topic, p.partition()));
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = null; // once the stream stopped: where it ends
            long deadline = Long.MAX_VALUE;
            while (true) {
                if (end == null && finishing.get()) {
                    end = c.endOffsets(parts); // read_committed: the last stable offsets
                    deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                }
                var records = c.poll(Duration.ofMillis(100));
                long now = System.currentTimeMillis();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    RowsRecord rows = RowsRecord.of(r);
                    long[] times = rows.eventTimes();
                    if (times == null) {
                        throw new IllegalStateException(
                                rows.where() + ": a rows record without event times");
                    }
                    for (long t : times) {
                        note(now, r.timestamp(), t);
                    }
                }
                if (end != null && readTo(c, end)) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            topic + ": not read to its end " + end + " within 2 minutes");
                }
            }
        } catch (Exception e) {
            failure.set(e);
        }
    }

    private static boolean readTo(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (c.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    private void note(long now, long written, long t) {
        if (count == arrivedMs.length) {
            arrivedMs = Arrays.copyOf(arrivedMs, count * 2);
            writtenMs = Arrays.copyOf(writtenMs, count * 2);
            eventTimes = Arrays.copyOf(eventTimes, count * 2);
        }
        arrivedMs[count] = now;
        writtenMs[count] = written;
        eventTimes[count] = t;
        count++;
    }
}
