package dev.piper.feed;

import dev.piper.core.serve.VocabularyPosition;
import dev.piper.core.serve.VocabularySnapshot;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * A stream's vocabularies at a position ({@link VocabularyPosition}), read from its vocabulary
 * topic ({@code piper vocab snapshot}): per column, in the position's epoch, the entries below
 * {@code oov_buckets + position} (a column that does not evict), or the key each index holds once
 * its assignments numbered below the position are applied in number order (an evicting column: an
 * index reused holds its newest key, an evicted key none). Committed records only, from the
 * beginning, until every column has reached its position.
 *
 * <p>The position of a rows record (the vocabularies once its block was applied) comes from the
 * record's {@link RowsRecord#VOCAB_POSITION} header ({@link #positionOf}).
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

    /**
     * The position of a stream's end as committed now: every entry (or assignment) the vocabulary
     * topic holds, so every index of every committed row. The pipeline and the sparse columns come
     * from the newest of the last committed records of {@code rowsTopic}'s partitions; each
     * column's epoch, OOV buckets and position from the furthest record of {@code vocabTopic} up to
     * its end (a later epoch before an earlier one), where it has any.
     *
     * @throws IOException naming the topic if the rows topic holds no committed record within
     *     {@code wait}
     */
    public VocabularyPosition positionAtEnd(String rowsTopic, String vocabTopic, Duration wait)
            throws IOException {
        ConsumerRecord<byte[], byte[]> newest = null;
        Map<String, VocabularySnapshot.Column> furthest = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = awaitTopic(consumer, rowsTopic, wait);
            for (ConsumerRecord<byte[], byte[]> r : CommittedTail.of(consumer, partitions, wait)) {
                if (newest == null || r.timestamp() > newest.timestamp()) {
                    newest = r;
                }
            }
            if (newest == null) {
                throw new IOException(
                        rowsTopic
                                + ": no committed rows record yet, so the stream has no end to"
                                + " cut at");
            }
            List<TopicPartition> vocab = awaitTopic(consumer, vocabTopic, wait);
            Map<TopicPartition, Long> vocabEnds = consumer.endOffsets(vocab, wait);
            consumer.assign(vocab);
            consumer.seekToBeginning(vocab);
            long deadline = System.nanoTime() + wait.toNanos();
            while (!readTo(consumer, vocabEnds)) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    deadline = System.nanoTime() + wait.toNanos();
                    furthest(furthest, r);
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(
                            vocabTopic
                                    + ": not read to its end "
                                    + vocabEnds
                                    + " (no record for "
                                    + wait.toSeconds()
                                    + " s)");
                }
            }
        }
        VocabularyPosition rows = positionOf(RowsRecord.of(newest));
        List<VocabularySnapshot.Column> columns = new ArrayList<>();
        for (VocabularySnapshot.Column c : rows.columns()) {
            VocabularySnapshot.Column v = furthest.get(c.name());
            boolean ahead =
                    v != null
                            && (v.epoch() > c.epoch()
                                    || (v.epoch() == c.epoch() && v.position() > c.position()));
            columns.add(ahead ? v : c);
        }
        return new VocabularyPosition(
                rows.pipeline(),
                "the end of " + rowsTopic + " and " + vocabTopic + " (" + rows.source() + ")",
                columns);
    }

    /** Whether {@code consumer} has read each of its partitions up to its end in {@code ends}. */
    private static boolean readTo(
            KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Moves {@code furthest}'s column past the entries or assignments of vocabulary record {@code
     * r}, as its headers count them (a hot set is no vocabulary record).
     */
    private static void furthest(
            Map<String, VocabularySnapshot.Column> furthest, ConsumerRecord<byte[], byte[]> r)
            throws IOException {
        if (r.headers().lastHeader(StreamFormat.HOTLINE_WINDOW) != null) {
            return;
        }
        String where = r.topic() + "/" + r.partition() + "@" + r.offset();
        String name = header(r, StreamFormat.COLUMN, where);
        String epochText = OutputConsumer.optionalHeader(r, StreamFormat.EPOCH);
        int epoch = epochText.isEmpty() ? 0 : Integer.parseInt(epochText);
        String bucketText = OutputConsumer.optionalHeader(r, StreamFormat.OOV_BUCKETS);
        int buckets = bucketText.isEmpty() ? 0 : Integer.parseInt(bucketText);
        long count = Long.parseLong(header(r, StreamFormat.COUNT, where));
        long position =
                EvictingVocabularies.evicting(r)
                        ? Long.parseLong(header(r, StreamFormat.FIRST_ASSIGNMENT, where)) + count
                        : Long.parseLong(header(r, StreamFormat.FIRST_INDEX, where))
                                + count
                                - buckets;
        VocabularySnapshot.Column was = furthest.get(name);
        if (was == null
                || epoch > was.epoch()
                || (epoch == was.epoch() && position > was.position())) {
            furthest.put(name, new VocabularySnapshot.Column(name, epoch, buckets, position));
        }
    }

    /**
     * The position {@code rows} states ({@link RowsRecord#VOCAB_POSITION}).
     *
     * @throws IOException naming the record if it states none
     */
    public static VocabularyPosition positionOf(RowsRecord rows) throws IOException {
        long[] position = rows.vocabPosition();
        if (position == null) {
            throw new IOException(
                    rows.where()
                            + ": the record states no vocabulary position (no "
                            + RowsRecord.VOCAB_POSITION
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
     * Reads {@code vocabTopic} until every column of {@code at} has reached its position, and
     * returns the vocabularies there.
     *
     * @param idle how long to wait for a record (and for the topic) before giving up
     * @throws IOException naming each column not reached and how far the topic took it, when no
     *     record has come for {@code idle}; naming the record of a column whose records contradict
     *     each other or the position (other OOV buckets, an entry twice)
     */
    public VocabularySnapshot read(
            String vocabTopic, VocabularyPosition at, Duration idle, PrintStream progress)
            throws IOException {
        return history(vocabTopic, at, idle, progress).at(at);
    }

    /**
     * The vocabularies of {@code vocabTopic} read up to {@code furthest}, from which a snapshot at
     * any position up to it is cut without reading the topic again ({@link History#at}).
     *
     * @throws IOException as {@link #read}
     */
    public History history(
            String vocabTopic, VocabularyPosition furthest, Duration idle, PrintStream progress)
            throws IOException {
        Map<String, ColumnHistory> wanted = new HashMap<>();
        for (VocabularySnapshot.Column c : furthest.columns()) {
            wanted.put(c.name(), new ColumnHistory(c));
        }
        long records = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = awaitTopic(consumer, vocabTopic, idle);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long lastRecord = System.nanoTime();
            long lastReport = lastRecord;
            while (!wanted.values().stream().allMatch(ColumnHistory::reached)) {
                var polled = consumer.poll(Duration.ofMillis(200));
                long now = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> r : polled) {
                    lastRecord = now;
                    records++;
                    add(wanted, r);
                }
                if (now - lastRecord >= idle.toNanos()) {
                    throw new IOException(notReached(vocabTopic, furthest, wanted, records, idle));
                }
                if (now - lastReport >= 5_000_000_000L) {
                    progress.printf(
                            "vocab snapshot: %,d records of %s read, %d of %d columns reached%n",
                            records,
                            vocabTopic,
                            wanted.values().stream().filter(ColumnHistory::reached).count(),
                            wanted.size());
                    lastReport = now;
                }
            }
        }
        return new History(vocabTopic, wanted);
    }

    /** A vocabulary topic read up to a position: snapshots at that position or before it. */
    public static final class History {
        private final String topic;
        private final Map<String, ColumnHistory> columns;

        private History(String topic, Map<String, ColumnHistory> columns) {
            this.topic = topic;
            this.columns = columns;
        }

        /**
         * The vocabularies at {@code at}.
         *
         * @throws IOException if a column of {@code at} was not read, or in another epoch or with
         *     other OOV buckets, or past its position read
         */
        public VocabularySnapshot at(VocabularyPosition at) throws IOException {
            int n = at.columns().size();
            int[][] indices = new int[n][];
            long[][] keys = new long[n][];
            for (int c = 0; c < n; c++) {
                VocabularySnapshot.Column want = at.columns().get(c);
                ColumnHistory read = columns.get(want.name());
                if (read == null
                        || read.target.epoch() != want.epoch()
                        || read.target.oovBuckets() != want.oovBuckets()
                        || want.position() > read.progress()) {
                    throw new IOException(
                            at.source()
                                    + ": "
                                    + want
                                    + " is not within what was read of "
                                    + topic
                                    + (read == null ? "" : " (" + read.target + ")"));
                }
                ColumnHistory.Entries e = read.at(want.position());
                indices[c] = e.indices();
                keys[c] = e.keys();
            }
            try {
                return VocabularySnapshot.of(
                        at.pipeline(),
                        "vocabulary topic " + topic + " at the position of " + at.source(),
                        at.columns(),
                        indices,
                        keys);
            } catch (IllegalArgumentException e) {
                throw new IOException(topic + ": " + e.getMessage(), e);
            }
        }
    }

    private static void add(Map<String, ColumnHistory> wanted, ConsumerRecord<byte[], byte[]> r)
            throws IOException {
        String where = r.topic() + "/" + r.partition() + "@" + r.offset();
        if (r.headers().lastHeader(StreamFormat.HOTLINE_WINDOW) != null) {
            return; // a hot set, not a vocabulary
        }
        ColumnHistory w = wanted.get(header(r, StreamFormat.COLUMN, where));
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
            Map<String, ColumnHistory> wanted,
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
            ColumnHistory w = wanted.get(c.name());
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

    private KafkaConsumer<byte[], byte[]> consumer() {
        return CommittedReads.consumer(bootstrapServers, client);
    }

    /**
     * {@code topic}'s partitions, once it exists; waits up to {@code wait} for it.
     *
     * @throws IOException naming the topic and the brokers if it does not exist by then
     */
    List<TopicPartition> awaitTopic(
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
