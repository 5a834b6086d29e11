package dev.piper.connectors.kafka;

import dev.piper.core.serve.VocabularyPosition;
import dev.piper.core.serve.VocabularySnapshot;
import it.unimi.dsi.fastutil.ints.Int2LongOpenHashMap;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A stream's vocabularies at a position ({@link VocabularyPosition}), read from its vocabulary
 * topic ({@code piper vocab snapshot}): per column, in the position's epoch, the entries below
 * {@code oov_buckets + position} (a column that does not evict), or the key each index holds once
 * its assignments numbered below the position are applied in number order (an evicting column: an
 * index reused holds its newest key, an evicted key none). Committed records only, from the
 * beginning, until every column has reached its position.
 *
 * <p>The position of a rows record (the vocabularies once its block was applied) comes from the
 * record's {@link StreamFormat#VOCAB_POSITION} header ({@link #positionOf}).
 */
public final class TopicSnapshot {

    private final String bootstrapServers;
    private final Map<String, String> client;

    /**
     * @param bootstrapServers the brokers
     * @param client further Kafka client properties (security, for instance)
     */
    public TopicSnapshot(String bootstrapServers, Map<String, String> client) {
        this.bootstrapServers = bootstrapServers;
        this.client = Map.copyOf(client);
    }

    /**
     * The vocabulary position stated by the rows record at {@code offset} of {@code
     * rowsTopic}/{@code partition}.
     *
     * @throws IOException naming the record if it cannot be read within {@code wait} or states no
     *     position (a stream without a vocabulary topic, or of a build before the header)
     */
    public VocabularyPosition positionOf(
            String rowsTopic, int partition, long offset, Duration wait) throws IOException {
        String where = rowsTopic + "/" + partition + "@" + offset;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            TopicPartition tp = new TopicPartition(rowsTopic, partition);
            awaitTopic(consumer, rowsTopic, wait);
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            long deadline = System.nanoTime() + wait.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() != offset) {
                        throw new IOException(
                                where
                                        + ": no committed rows record there (the next one is at"
                                        + " offset "
                                        + r.offset()
                                        + ")");
                    }
                    return positionOf(RowsRecord.of(r));
                }
            }
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            throw new IOException(
                    where
                            + ": no committed rows record there within "
                            + wait.toSeconds()
                            + " s (the partition ends at offset "
                            + end
                            + ")");
        }
    }

    /** The position {@code rows} states ({@link StreamFormat#VOCAB_POSITION}). */
    static VocabularyPosition positionOf(RowsRecord rows) throws IOException {
        long[] position = rows.vocabPosition();
        if (position == null) {
            throw new IOException(
                    rows.where()
                            + ": the record states no vocabulary position (no "
                            + StreamFormat.VOCAB_POSITION
                            + " header: a stream without --vocab-topic, or of an older build)");
        }
        List<VocabularySnapshot.Column> columns = new ArrayList<>();
        for (int c = 0; c < position.length; c++) {
            columns.add(
                    new VocabularySnapshot.Column(
                            "C" + (c + 1), rows.epochs()[c], rows.buckets()[c], position[c]));
        }
        return new VocabularyPosition(rows.pipeline(), rows.where(), columns);
    }

    /**
     * Reads {@code vocabTopic} until every column of {@code at} has reached its position.
     *
     * @param idle how long to wait for a record (and for the topic) before giving up
     * @throws IOException naming each column not reached and how far the topic took it, when no
     *     record has come for {@code idle}; naming the record of a column whose records contradict
     *     each other or the position (other OOV buckets, an entry twice)
     */
    public VocabularySnapshot read(
            String vocabTopic, VocabularyPosition at, Duration idle, PrintStream progress)
            throws IOException {
        Map<String, Wanted> wanted = new HashMap<>();
        for (VocabularySnapshot.Column c : at.columns()) {
            wanted.put(c.name(), new Wanted(c));
        }
        long records = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = awaitTopic(consumer, vocabTopic, idle);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long lastRecord = System.nanoTime();
            long lastReport = lastRecord;
            while (!wanted.values().stream().allMatch(Wanted::reached)) {
                var polled = consumer.poll(Duration.ofMillis(200));
                long now = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> r : polled) {
                    lastRecord = now;
                    records++;
                    add(wanted, r);
                }
                if (now - lastRecord >= idle.toNanos()) {
                    throw new IOException(notReached(vocabTopic, at, wanted, records, idle));
                }
                if (now - lastReport >= 5_000_000_000L) {
                    progress.printf(
                            "vocab snapshot: %,d records of %s read, %d of %d columns reached%n",
                            records,
                            vocabTopic,
                            wanted.values().stream().filter(Wanted::reached).count(),
                            wanted.size());
                    lastReport = now;
                }
            }
        }
        int n = at.columns().size();
        int[][] indices = new int[n][];
        long[][] keys = new long[n][];
        for (int c = 0; c < n; c++) {
            Wanted w = wanted.get(at.columns().get(c).name());
            indices[c] = w.indices();
            keys[c] = w.keys();
        }
        try {
            return VocabularySnapshot.of(
                    at.pipeline(),
                    "vocabulary topic " + vocabTopic + " at the position of " + at.source(),
                    at.columns(),
                    indices,
                    keys);
        } catch (IllegalArgumentException e) {
            throw new IOException(vocabTopic + ": " + e.getMessage(), e);
        }
    }

    private static void add(Map<String, Wanted> wanted, ConsumerRecord<byte[], byte[]> r)
            throws IOException {
        String where = r.topic() + "/" + r.partition() + "@" + r.offset();
        if (r.headers().lastHeader(StreamFormat.HOTLINE_WINDOW) != null) {
            return; // a hot set, not a vocabulary
        }
        Wanted w = wanted.get(header(r, StreamFormat.COLUMN, where));
        if (w == null) {
            return; // a column the position does not name
        }
        String epoch = OutputConsumer.optionalHeader(r, StreamFormat.EPOCH);
        if ((epoch.isEmpty() ? 0 : Integer.parseInt(epoch)) != w.target.epoch()) {
            return;
        }
        String bucketText = OutputConsumer.optionalHeader(r, StreamFormat.OOV_BUCKETS);
        int buckets = bucketText.isEmpty() ? 0 : Integer.parseInt(bucketText);
        if (buckets != w.target.oovBuckets()) {
            throw new IOException(
                    where
                            + ": "
                            + w.target.name()
                            + " has "
                            + buckets
                            + " OOV buckets in epoch "
                            + w.target.epoch()
                            + ", the position says "
                            + w.target.oovBuckets()
                            + " (a position of another stream?)");
        }
        String text = new String(r.value(), StandardCharsets.UTF_8);
        if (EvictingVocabularies.evicting(r)) {
            w.assignments(
                    Long.parseLong(header(r, StreamFormat.FIRST_ASSIGNMENT, where)), text, where);
        } else {
            w.entries(text, where);
        }
    }

    private static String notReached(
            String topic,
            VocabularyPosition at,
            Map<String, Wanted> wanted,
            long records,
            Duration idle) {
        StringBuilder sb =
                new StringBuilder(
                        topic
                                + ": no record for "
                                + idle.toSeconds()
                                + " s after "
                                + records
                                + " records, and the position of "
                                + at.source()
                                + " is not reached:");
        for (VocabularySnapshot.Column c : at.columns()) {
            Wanted w = wanted.get(c.name());
            if (!w.reached()) {
                sb.append(' ')
                        .append(c.name())
                        .append(" (epoch ")
                        .append(c.epoch())
                        .append(") has ")
                        .append(w.progress())
                        .append(" of ")
                        .append(c.position())
                        .append(w.evicting ? " assignments;" : " entries;");
            }
        }
        sb.append(" is the stream still committing, or is this another stream's topic?");
        return sb.toString();
    }

    /** One column's vocabulary, read up to its position. */
    private static final class Wanted {
        final VocabularySnapshot.Column target;
        final int position;

        /** Whether the column's records are assignments; set by its first record. */
        boolean evicting;

        boolean kindKnown;

        /** A column that does not evict: the key of entry {@code i}, index {@code buckets + i}. */
        long[] entryKeys;

        BitSet held;

        /** An evicting column: the records not applied yet, by their first assignment's number. */
        final TreeMap<Long, String[]> waiting = new TreeMap<>();

        long applied;
        final Int2LongOpenHashMap keyAt = new Int2LongOpenHashMap();

        Wanted(VocabularySnapshot.Column target) {
            this.target = target;
            if (target.position() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(
                        target.name() + ": position " + target.position() + " is past 2^31 - 1");
            }
            this.position = (int) target.position();
        }

        boolean reached() {
            return progress() >= position;
        }

        long progress() {
            return evicting ? applied : held == null ? 0 : held.cardinality();
        }

        private void kind(boolean evicts, String where) throws IOException {
            if (kindKnown && evicting != evicts) {
                throw new IOException(
                        where
                                + ": "
                                + target.name()
                                + " has records of entries and of assignments");
            }
            kindKnown = true;
            evicting = evicts;
        }

        void entries(String text, String where) throws IOException {
            kind(false, where);
            if (entryKeys == null) {
                entryKeys = new long[position];
                held = new BitSet(position);
            }
            int first = target.oovBuckets();
            for (String line : lines(text)) {
                int tab = line.indexOf('\t');
                int end = line.indexOf('\t', tab + 1);
                int i = Integer.parseInt(line.substring(0, tab)) - first;
                if (i < 0 || i >= position) {
                    continue; // an entry past the position
                }
                if (held.get(i)) {
                    throw new IOException(
                            where + ": " + target.name() + " index " + (i + first) + " seen twice");
                }
                entryKeys[i] =
                        Long.parseUnsignedLong(
                                line.substring(tab + 1, end < 0 ? line.length() : end));
                held.set(i);
            }
        }

        void assignments(long first, String text, String where) throws IOException {
            kind(true, where);
            if (first < applied || waiting.containsKey(first)) {
                throw new IOException(
                        where
                                + ": "
                                + target.name()
                                + " assignments from "
                                + first
                                + " seen twice");
            }
            waiting.put(first, new String[] {text, where});
            Map.Entry<Long, String[]> head;
            while (applied < position
                    && (head = waiting.firstEntry()) != null
                    && head.getKey() == applied) {
                waiting.pollFirstEntry();
                String at = head.getValue()[1];
                for (String line : lines(head.getValue()[0])) {
                    if (applied == position) {
                        break;
                    }
                    String[] f = line.split("\t", -1);
                    int index = Integer.parseInt(f[0]);
                    boolean reuse = !f[3].isEmpty();
                    if (reuse != keyAt.containsKey(index)
                            || (reuse && keyAt.get(index) != Long.parseUnsignedLong(f[3]))) {
                        throw new IOException(
                                at
                                        + ": "
                                        + target.name()
                                        + " assignment "
                                        + applied
                                        + " evicts \""
                                        + f[3]
                                        + "\" from index "
                                        + index
                                        + ", which holds "
                                        + (keyAt.containsKey(index)
                                                ? Long.toUnsignedString(keyAt.get(index))
                                                : "no key"));
                    }
                    keyAt.put(index, Long.parseUnsignedLong(f[1]));
                    applied++;
                }
            }
        }

        int[] indices() {
            if (evicting) {
                return keyAt.keySet().toIntArray();
            }
            int[] indices = new int[position];
            for (int i = 0; i < position; i++) {
                indices[i] = target.oovBuckets() + i;
            }
            return indices;
        }

        long[] keys() {
            if (evicting) {
                int[] indices = keyAt.keySet().toIntArray();
                long[] keys = new long[indices.length];
                for (int i = 0; i < indices.length; i++) {
                    keys[i] = keyAt.get(indices[i]);
                }
                return keys;
            }
            return entryKeys == null ? new long[0] : entryKeys;
        }

        private static List<String> lines(String text) {
            List<String> lines = new ArrayList<>();
            int from = 0;
            while (from < text.length()) {
                int nl = text.indexOf('\n', from);
                int end = nl < 0 ? text.length() : nl;
                if (end > from) {
                    lines.add(text.substring(from, end));
                }
                from = end + 1;
            }
            return lines;
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties props = KafkaConnectors.committedReader(client);
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.putIfAbsent(
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(8 << 20));
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private List<TopicPartition> awaitTopic(
            KafkaConsumer<byte[], byte[]> consumer, String topic, Duration wait)
            throws IOException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
            if (infos != null && !infos.isEmpty()) {
                return infos.stream()
                        .map(i -> new TopicPartition(i.topic(), i.partition()))
                        .toList();
            }
            if (System.nanoTime() >= deadline) {
                throw new IOException(
                        "topic "
                                + topic
                                + " does not exist on "
                                + bootstrapServers
                                + " after "
                                + wait.toSeconds()
                                + " s of waiting");
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for topic " + topic, e);
            }
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String key, String where)
            throws IOException {
        Header h = r.headers().lastHeader(key);
        if (h == null) {
            throw new IOException(where + ": no " + key + " header");
        }
        return new String(h.value(), StandardCharsets.US_ASCII);
    }
}
