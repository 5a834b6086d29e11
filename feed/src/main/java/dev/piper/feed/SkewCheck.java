package dev.piper.feed;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.serve.Transform;
import dev.piper.core.serve.VocabularyPosition;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.VocabularyPolicy;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * The skew check ({@code piper skew-check}): a sample of a stream's committed rows records, each
 * compared with what the serving transform ({@link Transform}) makes of the record's own input
 * records (its {@code piper.input.offsets}) at the record's own vocabulary position ({@code
 * piper.vocab.position}, the vocabularies cut from the vocabulary topic). Every slot of every row
 * and every list value is compared.
 *
 * <p>A difference is <em>skew</em> unless it is the one thing a position cannot give (docs/
 * SERVING.md): a block's own learning. Under {@code min_count} the feed sent a key's occurrences
 * before its admission in the block to an OOV bucket, which the position knows as an entry; under
 * eviction a key evicted within the block kept its index for the block's earlier rows. So a
 * difference in a {@code min_count} column whose feed index is an OOV bucket and served index an
 * entry, and a difference in an evicting column whose block made assignments ({@code
 * piper.vocab.position} above {@code piper.assignments}), count as the block's own learning; every
 * other difference, in any column or in the rows and dead letters a record holds, is skew.
 */
public final class SkewCheck {

    /** How many skewed slots a report names, the first ones found. */
    static final int NAMED = 20;

    private final String bootstrapServers;
    private final Map<String, String> client;
    private final DecodeOptions options;
    private final String pipeline;

    /**
     * @param options the spec the stream ran (its chains must be the records')
     * @param pipeline its {@code name/version}: records of another are not compared
     */
    public SkewCheck(
            String bootstrapServers,
            Map<String, String> client,
            DecodeOptions options,
            String pipeline) {
        this.bootstrapServers = bootstrapServers;
        this.client = Map.copyOf(client);
        this.options = options;
        this.pipeline = pipeline;
    }

    /**
     * What a check found.
     *
     * @param records the rows records read
     * @param ofPipeline those of the pipeline checked
     * @param sampled those compared
     * @param rows the rows compared
     * @param columns per sparse column (C1..), its slots compared and how many differed, as the
     *     block's own learning or as skew
     * @param skewed the slots (and records) that differed for another reason: the first {@link
     *     #NAMED}, each naming its record, row, column and both values
     * @param skew how many differences were skew
     */
    public record Report(
            long records,
            long ofPipeline,
            int sampled,
            long rows,
            List<ColumnCount> columns,
            List<String> skewed,
            long skew) {}

    /** One sparse column's comparisons. */
    public record ColumnCount(String column, long compared, long learning, long skew) {}

    /**
     * Checks up to {@code sample} records of {@code rowsTopic} (a seeded uniform sample of those
     * committed when it starts) against {@code vocabTopic} and their input.
     *
     * @throws IOException if a record states no vocabulary position, or the topics are not read
     *     within {@code idle}
     * @throws IllegalArgumentException if the records' chains are not the spec's
     */
    public Report check(
            String rowsTopic,
            String vocabTopic,
            int sample,
            long seed,
            Duration idle,
            PrintStream progress)
            throws IOException {
        Sample s = sample(rowsTopic, sample, seed, idle, progress);
        if (s.kept.isEmpty()) {
            return new Report(s.records, s.ofPipeline, 0, 0, List.of(), List.of(), 0);
        }
        VocabularyPosition furthest = furthest(s.kept);
        TopicSnapshot topics = new TopicSnapshot(bootstrapServers, client);
        TopicSnapshot.History history = topics.history(vocabTopic, furthest, idle, progress);
        int sparse = options.program().layout().sparse();
        long[][] counts = new long[sparse][3];
        List<String> skewed = new ArrayList<>();
        long[] skew = {0};
        long rows = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            int done = 0;
            for (RowsRecord r : s.kept) {
                VocabularyPosition at = TopicSnapshot.positionOf(r);
                Transform transform = new Transform(options, history.at(at));
                AssembledBlock served = transform.apply(inputs(consumer, r, idle)).block();
                compare(r, served, counts, skewed, skew);
                rows += r.rows();
                if (++done % 20 == 0) {
                    progress.printf("skew check: %d of %d records compared%n", done, s.kept.size());
                }
            }
        }
        List<ColumnCount> columns = new ArrayList<>();
        for (int c = 0; c < sparse; c++) {
            columns.add(new ColumnCount("C" + (c + 1), counts[c][0], counts[c][1], counts[c][2]));
        }
        return new Report(
                s.records,
                s.ofPipeline,
                s.kept.size(),
                rows,
                columns,
                List.copyOf(skewed),
                skew[0]);
    }

    /** The rows records read and the sample kept. */
    private static final class Sample {
        long records;
        long ofPipeline;
        final List<RowsRecord> kept = new ArrayList<>();
    }

    /**
     * Reads {@code rowsTopic} up to its end when the check starts, keeping a uniform sample of the
     * pipeline's records (reservoir sampling, seeded); refuses records of other chains.
     */
    private Sample sample(
            String rowsTopic, int size, long seed, Duration idle, PrintStream progress)
            throws IOException {
        Sample s = new Sample();
        SplittableRandom random = new SplittableRandom(seed);
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions =
                    new TopicSnapshot(bootstrapServers, client)
                            .awaitTopic(consumer, rowsTopic, idle);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long lastRecord = System.nanoTime();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                var polled = consumer.poll(Duration.ofMillis(200));
                if (!polled.isEmpty()) {
                    lastRecord = System.nanoTime();
                } else if (System.nanoTime() - lastRecord > idle.toNanos()) {
                    throw new IOException(
                            rowsTopic
                                    + ": no record for "
                                    + idle.toSeconds()
                                    + " s before its end");
                }
                for (ConsumerRecord<byte[], byte[]> r : polled) {
                    s.records++;
                    RowsRecord rows = RowsRecord.of(r);
                    if (!rows.pipeline().equals(pipeline)) {
                        continue;
                    }
                    checkChains(r);
                    long n = s.ofPipeline++;
                    if (s.kept.size() < size) {
                        s.kept.add(rows);
                    } else {
                        long j = random.nextLong(n + 1);
                        if (j < size) {
                            s.kept.set((int) j, rows);
                        }
                    }
                }
            }
        }
        progress.printf(
                "skew check: %,d rows records read, %,d of pipeline %s, %d sampled%n",
                s.records, s.ofPipeline, pipeline, s.kept.size());
        return s;
    }

    private void checkChains(ConsumerRecord<byte[], byte[]> r) {
        Header params = r.headers().lastHeader(RowsRecord.PIPELINE_PARAMS);
        if (params == null) {
            return; // a spec received at run time: its chains are on the status topic
        }
        String text = new String(params.value(), StandardCharsets.US_ASCII);
        if (!ConsumedMetadata.sameChains(options, text)) {
            throw new IllegalArgumentException(
                    r.topic()
                            + "/"
                            + r.partition()
                            + "@"
                            + r.offset()
                            + ": the rows were made by other chains than the spec's (the"
                            + " record's "
                            + text
                            + ", the spec's chains="
                            + options.program().fingerprint()
                            + "): check with the spec the stream ran");
        }
    }

    /** Per column, the furthest position of the sampled records (in their one epoch each). */
    private static VocabularyPosition furthest(List<RowsRecord> kept) throws IOException {
        VocabularyPosition first = TopicSnapshot.positionOf(kept.get(0));
        List<VocabularySnapshot.Column> columns = new ArrayList<>(first.columns());
        for (RowsRecord r : kept) {
            VocabularyPosition p = TopicSnapshot.positionOf(r);
            for (int c = 0; c < columns.size(); c++) {
                VocabularySnapshot.Column have = columns.get(c);
                VocabularySnapshot.Column next = p.columns().get(c);
                if (next.epoch() != have.epoch()) {
                    throw new IOException(
                            r.where()
                                    + ": "
                                    + next.name()
                                    + " is in epoch "
                                    + next.epoch()
                                    + ", other records of the same pipeline version in "
                                    + have.epoch());
                }
                if (next.position() > have.position()) {
                    columns.set(c, next);
                }
            }
        }
        return new VocabularyPosition(first.pipeline(), "the sample's furthest", columns);
    }

    /** The input records of {@code r}'s block, in offset order. */
    private List<byte[]> inputs(KafkaConsumer<byte[], byte[]> consumer, RowsRecord r, Duration idle)
            throws IOException {
        long[] offsets = r.inputOffsets();
        if (offsets == null) {
            throw new IOException(r.where() + ": the record names no input offsets");
        }
        TopicPartition tp = new TopicPartition(r.inputTopic(), r.inputPartition());
        consumer.assign(List.of(tp));
        consumer.seek(tp, offsets[0]);
        List<byte[]> records = new ArrayList<>();
        long deadline = System.nanoTime() + idle.toNanos();
        while (consumer.position(tp) <= offsets[1]) {
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        r.where()
                                + ": its input "
                                + tp
                                + " offsets "
                                + offsets[0]
                                + "-"
                                + offsets[1]
                                + " not read within "
                                + idle.toSeconds()
                                + " s (deleted by retention?)");
            }
            for (ConsumerRecord<byte[], byte[]> in : consumer.poll(Duration.ofMillis(200))) {
                if (in.offset() >= offsets[0] && in.offset() <= offsets[1]) {
                    records.add(in.value() == null ? new byte[0] : in.value());
                }
            }
        }
        return records;
    }

    /**
     * Compares the feed's rows with the served ones, counting per column into {@code counts}
     * (compared, learning, skew) and naming the first skewed slots.
     */
    void compare(
            RowsRecord feed,
            AssembledBlock served,
            long[][] counts,
            List<String> skewed,
            long[] skew) {
        if (served.rows() != feed.rows()) {
            skew[0]++;
            name(skewed, feed.where() + ": " + feed.rows() + " rows, served " + served.rows());
            return;
        }
        int width = feed.rowBytes() / Integer.BYTES;
        int[] columnOfSlot = new int[width];
        java.util.Arrays.fill(columnOfSlot, -1);
        for (int[] s : feed.sparseColumns()) {
            columnOfSlot[s[1]] = s[0];
        }
        ByteBuffer want = ByteBuffer.wrap(feed.value()).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer have = ByteBuffer.wrap(served.rowBytes()).order(ByteOrder.LITTLE_ENDIAN);
        for (int row = 0; row < feed.rows(); row++) {
            for (int slot = 0; slot < width; slot++) {
                int at = (row * width + slot) * Integer.BYTES;
                int c = columnOfSlot[slot];
                slot(feed, row, c, slot, want.getInt(at), have.getInt(at), counts, skewed, skew);
            }
        }
        for (int l = 0; l < feed.listColumns().length; l++) {
            int c = feed.listColumns()[l];
            int[] offsets = served.listOffsets()[l];
            int[] values = served.listIndices()[l];
            int at = 0;
            for (int row = 0; row < feed.rows(); row++) {
                int n = offsets[row + 1] - offsets[row];
                if (n != feed.listLengths()[l][row]) {
                    skew[0]++;
                    name(skewed, feed.where() + " row " + row + " C" + (c + 1) + ": list length");
                    return;
                }
                for (int i = 0; i < n; i++, at++) {
                    int f = feed.listValues()[l][at];
                    int v = values[offsets[row] + i];
                    slot(feed, row, c, -1, f, v, counts, skewed, skew);
                }
            }
        }
    }

    /** One slot: sparse column {@code c} (or -1: a label or dense slot {@code slot}). */
    private void slot(
            RowsRecord feed,
            int row,
            int c,
            int slot,
            int f,
            int v,
            long[][] counts,
            List<String> skewed,
            long[] skew) {
        if (c >= 0) {
            counts[c][0]++;
        }
        if (f == v) {
            return;
        }
        if (c >= 0 && ownLearning(feed, c, f, v)) {
            counts[c][1]++;
            return;
        }
        if (c >= 0) {
            counts[c][2]++;
        }
        skew[0]++;
        name(
                skewed,
                feed.where()
                        + " row "
                        + row
                        + " "
                        + (c >= 0 ? "C" + (c + 1) : "slot " + slot)
                        + ": feed "
                        + f
                        + ", served "
                        + v);
    }

    /** Whether a difference in column {@code c} is the block's own learning (the class text). */
    private boolean ownLearning(RowsRecord feed, int c, int f, int v) {
        VocabularyPolicy policy = options.program().vocabPolicy(c);
        if (policy.evicts()) {
            return feed.assignmentsBefore() != null
                    && feed.vocabPosition()[c] > feed.assignmentsBefore()[c];
        }
        return policy.minCount() > 1 && f < policy.oovBuckets() && v >= policy.oovBuckets();
    }

    private static void name(List<String> skewed, String what) {
        if (skewed.size() < NAMED) {
            skewed.add(what);
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        return CommittedReads.consumer(bootstrapServers, client);
    }
}
