package dev.piper.feed;

import dev.piper.core.block.LogRecord;
import dev.piper.core.join.ImpressionLines;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The impressions' lines read back from their Kafka topic ({@link ImpressionLines}), committed
 * records only, as the join's source read them.
 *
 * <p>The rows of a watermark ask for lines in about the order the impressions were written, so one
 * consumer reads every partition on from where the last rows' lines were, in large fetches (the
 * partitions' times advance together, so what it fetches of one partition while another's lines are
 * asked for is asked for soon); a line it reads past that no row asked for yet (an impression out
 * of order, one sampled out, another partition's) waits in memory, at most {@value #AHEAD_BYTES}
 * bytes of them, the oldest dropped first. A line asked for behind that (a positive copy a window
 * later, a line dropped, the first rows after a restore) is read by a second consumer that seeks to
 * it, one fetch serving every asked line it holds.
 *
 * <p>An offset the topic no longer has (below its start after retention, missing after compaction,
 * past its end after it was made anew) is a null line. A broker that cannot be read for {@link
 * #deadline} ends the read with an {@link IOException} naming the topic, partition, offset and
 * brokers.
 */
public final class KafkaImpressionLines implements ImpressionLines {

    /** The most bytes of lines read past and not yet asked for, over every partition. */
    static final long AHEAD_BYTES = 64L << 20;

    /**
     * How many records past the forward reader an asked line may be before the reader seeks to it
     * rather than reading every record between (as after a restore, or a partition long quiet).
     */
    static final long FORWARD_GAP = 100_000;

    private static final Duration POLL = Duration.ofMillis(100);

    private final String bootstrap;
    private final String topic;
    private final Properties props;
    private final Duration deadline;
    private final long aheadLimit;

    /** Null where every line is read by seeking to it ({@link #opener}'s {@code readOn}). */
    private final KafkaConsumer<byte[], byte[]> forward;

    private KafkaConsumer<byte[], byte[]> back;

    /** The back consumer's last fetch, of {@link #lastBackPartition}: the next ask may be in it. */
    private List<ConsumerRecord<byte[], byte[]>> lastBack = List.of();

    private int lastBackPartition = -1;

    /** Each partition's lines read past, not yet asked for, by offset. */
    private final Map<Integer, Ahead> ahead = new HashMap<>();

    /** The partitions the forward consumer is assigned. */
    private final List<TopicPartition> assigned = new ArrayList<>();

    /**
     * @param deadline how long the topic may give nothing before a read fails
     * @param aheadLimit the most bytes of lines read past and not yet asked for
     * @param readOn whether a consumer reads on from the last lines asked ({@link #opener})
     */
    KafkaImpressionLines(
            String bootstrap,
            String topic,
            Map<String, String> userProperties,
            Duration deadline,
            long aheadLimit,
            boolean readOn) {
        this.aheadLimit = aheadLimit;
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.deadline = deadline;
        this.props = new Properties();
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.setProperty(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        // few, large fetches: the order lane waits for each one its buffer lacks
        props.setProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20000");
        props.setProperty(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(8 << 20));
        props.putAll(userProperties);
        // no group: the consumers are assigned and positioned here; an offset gone is told by
        // the reset failing, never hidden by one
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.remove("partition.discovery.interval.ms");
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.setProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.setProperty(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, BYTES);
        props.setProperty(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, BYTES);
        this.forward = readOn ? consumer("forward") : null;
    }

    private static final String BYTES = ByteArrayDeserializer.class.getName();

    /**
     * Opens lines of {@code topic} on {@code bootstrap}, as the join's source reads it.
     *
     * @param readOn true where the lines are asked for in about the order they were written, most
     *     of them (the rows' order lane); false where few are asked for, far apart (the refused
     *     impressions' dead letters): each is then read by seeking to it, never by reading every
     *     record between
     */
    public static Opener opener(
            String bootstrap, String topic, Map<String, String> userProperties, boolean readOn) {
        return new KafkaOpener(bootstrap, topic, new HashMap<>(userProperties), readOn);
    }

    private record KafkaOpener(
            String bootstrap, String topic, HashMap<String, String> props, boolean readOn)
            implements Opener {
        private static final long serialVersionUID = 1L;

        @Override
        public ImpressionLines open() {
            return new KafkaImpressionLines(
                    bootstrap, topic, props, Duration.ofMinutes(2), AHEAD_BYTES, readOn);
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer(String role) {
        Properties p = new Properties();
        p.putAll(props);
        p.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, "piper-join-lines-" + role);
        if (role.equals("back")) { // a seek wants the few lines at its offset, not 8 MiB
            p.setProperty(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(1 << 20));
            p.setProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        }
        return new KafkaConsumer<>(p);
    }

    @Override
    public byte[][] read(int partition, long[] offsets) throws IOException {
        byte[][] lines = new byte[offsets.length][];
        boolean[] done = new boolean[offsets.length];
        Ahead a = ahead.computeIfAbsent(partition, p -> new Ahead());
        int left = offsets.length;
        for (int i = 0; i < offsets.length; i++) {
            if (i > 0 && offsets[i] <= offsets[i - 1]) {
                throw new IllegalArgumentException("offsets not ascending at " + i);
            }
            int at = a.find(offsets[i]);
            if (at >= 0) {
                lines[i] = a.take(at);
                done[i] = true;
                left--;
            }
        }
        if (left > 0 && forward != null) {
            left = readForward(partition, offsets, lines, done, left);
        }
        if (left > 0) {
            readBack(partition, offsets, lines, done);
        }
        return lines;
    }

    /**
     * Reads the asked lines at or past where the forward consumer is on {@code partition}, keeping
     * what it reads past; the rest stay for {@link #readBack}. Returns how many are left.
     */
    private int readForward(int partition, long[] offsets, byte[][] lines, boolean[] done, int left)
            throws IOException {
        TopicPartition tp = new TopicPartition(topic, partition);
        Ahead a = ahead.get(partition);
        int first = position(tp, a, offsets, done);
        if (first == offsets.length) {
            return left;
        }
        forward.pause(assigned);
        forward.resume(List.of(tp));
        long giveUp = System.nanoTime() + deadline.toNanos();
        int i = first;
        while (i < offsets.length) {
            ConsumerRecords<byte[], byte[]> got;
            try {
                got = forward.poll(POLL);
            } catch (OffsetOutOfRangeException e) {
                long start = startOf(forward, tp, offsets[i]);
                while (i < offsets.length && offsets[i] < start) {
                    done[i] = true; // gone: null
                    left--;
                    i++;
                }
                forward.seek(tp, start);
                a.next = start;
                continue;
            } catch (KafkaException e) {
                throw failure(tp, offsets[i], e);
            }
            List<ConsumerRecord<byte[], byte[]>> records = got.records(tp);
            if (records.isEmpty()) {
                long end = endOf(forward, tp, offsets[i]);
                if (forward.position(tp) >= end) {
                    while (i < offsets.length && offsets[i] >= end) {
                        done[i] = true; // past the end the source read: the topic was made anew
                        left--;
                        i++;
                    }
                }
                if (i < offsets.length && System.nanoTime() > giveUp) {
                    throw failure(tp, offsets[i], null);
                }
                continue;
            }
            for (ConsumerRecord<byte[], byte[]> r : records) {
                long o = r.offset();
                while (i < offsets.length && (done[i] || offsets[i] < o)) {
                    if (!done[i]) {
                        done[i] = true; // passed: the topic has it no more
                        left--;
                    }
                    i++;
                }
                byte[] line = line(r);
                if (i < offsets.length && offsets[i] == o) {
                    lines[i] = line;
                    done[i] = true;
                    left--;
                    i++;
                } else {
                    a.add(o, line);
                }
            }
            a.next = records.get(records.size() - 1).offset() + 1;
            giveUp = System.nanoTime() + deadline.toNanos();
        }
        evict();
        return left;
    }

    /**
     * Puts the forward consumer where it reads {@code tp} on from: where it was, or at the first
     * asked line if it never read there or that is far ahead. Returns the index of the first asked
     * line it reads (at or past it), {@code offsets.length} for none.
     */
    private int position(TopicPartition tp, Ahead a, long[] offsets, boolean[] done) {
        int first = 0;
        while (done[first]) {
            first++;
        }
        if (!assigned.contains(tp)) {
            assigned.add(tp);
            forward.assign(assigned);
            forward.seek(tp, offsets[first]);
            a.next = offsets[first];
        } else if (offsets[first] > a.next + FORWARD_GAP) {
            forward.seek(tp, offsets[first]);
            a.next = offsets[first];
        } else {
            // those behind the reader are read back: the first forward one is at or past it
            while (first < offsets.length && (done[first] || offsets[first] < a.next)) {
                first++;
            }
        }
        return first;
    }

    /** Reads the asked lines left, behind the forward reader, each fetch from the first of them. */
    private void readBack(int partition, long[] offsets, byte[][] lines, boolean[] done)
            throws IOException {
        TopicPartition tp = new TopicPartition(topic, partition);
        if (back == null) {
            back = consumer("back");
        }
        back.assign(List.of(tp));
        int i = 0;
        while (i < offsets.length) {
            if (done[i]) {
                i++;
                continue;
            }
            List<ConsumerRecord<byte[], byte[]>> records = List.of();
            if (lastBackPartition == partition
                    && !lastBack.isEmpty()
                    && offsets[i] >= lastBack.get(0).offset()
                    && offsets[i] <= lastBack.get(lastBack.size() - 1).offset()) {
                records = lastBack; // the last fetch holds it
            } else {
                back.seek(tp, offsets[i]);
            }
            long giveUp = System.nanoTime() + deadline.toNanos();
            while (records.isEmpty()) {
                try {
                    records = back.poll(POLL).records(tp);
                    lastBack = records;
                    lastBackPartition = partition;
                } catch (OffsetOutOfRangeException e) {
                    long start = startOf(back, tp, offsets[i]);
                    while (i < offsets.length && offsets[i] < start) {
                        done[i++] = true; // gone: null
                    }
                    break;
                } catch (KafkaException e) {
                    throw failure(tp, offsets[i], e);
                }
                if (records.isEmpty()) {
                    if (back.position(tp) >= endOf(back, tp, offsets[i])) {
                        done[i++] = true; // past the end: the topic was made anew
                        break;
                    }
                    if (System.nanoTime() > giveUp) {
                        throw failure(tp, offsets[i], null);
                    }
                }
            }
            // every asked line the fetch covers: present, or gone
            int r = 0;
            while (i < offsets.length && !records.isEmpty()) {
                if (done[i]) {
                    i++;
                    continue;
                }
                while (r < records.size() && records.get(r).offset() < offsets[i]) {
                    r++;
                }
                if (r == records.size()) {
                    break; // past this fetch: the next seek
                }
                if (records.get(r).offset() == offsets[i]) {
                    lines[i] = line(records.get(r));
                }
                done[i++] = true;
            }
        }
    }

    /** The record's line, as the join's source read it. */
    private static byte[] line(ConsumerRecord<byte[], byte[]> r) {
        byte[] v = r.value();
        return v == null ? new byte[0] : LogRecord.oneLine(v);
    }

    /** Drops the oldest lines read past while they are more than the limit. */
    private void evict() {
        long kept = 0;
        for (Ahead a : ahead.values()) {
            kept += a.bytes;
        }
        while (kept > aheadLimit) {
            Ahead fullest = null;
            for (Ahead a : ahead.values()) {
                if (fullest == null || a.bytes > fullest.bytes) {
                    fullest = a;
                }
            }
            long dropped = fullest.dropOldest();
            if (dropped == 0) {
                return; // nothing left to drop
            }
            kept -= dropped;
        }
    }

    /** The first offset {@code tp} has; {@code offset} is the one asked for, for the message. */
    private long startOf(KafkaConsumer<byte[], byte[]> c, TopicPartition tp, long offset)
            throws IOException {
        return bound(c, tp, offset, true);
    }

    /** The offset after the last {@code tp} has. */
    private long endOf(KafkaConsumer<byte[], byte[]> c, TopicPartition tp, long offset)
            throws IOException {
        return bound(c, tp, offset, false);
    }

    private long bound(
            KafkaConsumer<byte[], byte[]> c, TopicPartition tp, long offset, boolean start)
            throws IOException {
        try {
            var of = List.of(tp);
            return (start ? c.beginningOffsets(of, deadline) : c.endOffsets(of, deadline)).get(tp);
        } catch (KafkaException e) {
            throw failure(tp, offset, e);
        }
    }

    private IOException failure(TopicPartition tp, long offset, Exception cause) {
        return new IOException(
                "cannot read the impression at offset "
                        + offset
                        + " of "
                        + tp
                        + " back from "
                        + bootstrap
                        + (cause == null
                                ? ": nothing came within " + deadline.toSeconds() + " s"
                                : ": " + cause),
                cause);
    }

    @Override
    public void close() {
        if (forward != null) {
            forward.close(Duration.ofSeconds(5));
        }
        if (back != null) {
            back.close(Duration.ofSeconds(5));
        }
    }

    /** Lines of one partition read past, in the order of their offsets. */
    static final class Ahead {
        private long[] offsets = new long[1024];
        private byte[][] lines = new byte[1024][];
        private int head;
        private int tail;
        long bytes;

        /** Where the forward consumer reads on in this partition. */
        long next;

        void add(long offset, byte[] line) {
            if (tail == offsets.length) {
                int n = tail - head;
                if (n * 2 > offsets.length) {
                    offsets = Arrays.copyOf(offsets, offsets.length * 2);
                    lines = Arrays.copyOf(lines, lines.length * 2);
                }
                System.arraycopy(offsets, head, offsets, 0, n);
                System.arraycopy(lines, head, lines, 0, n);
                Arrays.fill(lines, n, tail, null);
                head = 0;
                tail = n;
            }
            offsets[tail] = offset;
            lines[tail++] = line;
            bytes += line.length;
        }

        /** Where {@code offset}'s line is, or -1. */
        int find(long offset) {
            int at = Arrays.binarySearch(offsets, head, tail, offset);
            return at >= 0 && lines[at] != null ? at : -1;
        }

        byte[] take(int at) {
            byte[] line = lines[at];
            lines[at] = null;
            bytes -= line.length;
            while (head < tail && lines[head] == null) {
                head++;
            }
            return line;
        }

        /** Drops the oldest line; returns its bytes. */
        long dropOldest() {
            while (head < tail && lines[head] == null) {
                head++;
            }
            if (head == tail) {
                return 0;
            }
            long n = lines[head].length;
            lines[head++] = null;
            bytes -= n;
            return n;
        }
    }
}
