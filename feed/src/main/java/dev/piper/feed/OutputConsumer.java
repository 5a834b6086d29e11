package dev.piper.feed;

import dev.piper.output.Closeables;
import dev.piper.output.EventTimesFile;
import dev.piper.output.NamedOutput;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * Reads the committed output of {@code bin/piper stream} ({@code read_committed}, every partition
 * from the beginning) into the batch layout of any spec: {@code rows.bin} and, for list columns,
 * {@code lists/Cj.lengths} and {@code lists/Cj.values} from the rows topic, {@code vocab/C1.tsv..}
 * from the vocabulary topic (entries put in index order, whatever order their records arrive in; a
 * later vocabulary epoch of a column in {@code vocab/C3.epoch1.tsv}; an evicting column's
 * assignments replayed into {@code vocab/C3.assignments.tsv} and its final map by {@link
 * EvictingVocabularies}), {@code dead-letters.jsonl} from the dead-letter topic, and {@code
 * versions.tsv}: the runs of rows in {@code rows.bin} with the pipeline version and vocabulary
 * epochs they were produced under, and {@code metadata.json}, {@code preprocess}'s keys for the
 * same spec ({@link ConsumedMetadata}).
 *
 * <p>The rows topic spreads an input partition's blocks over its partitions; the consumer puts them
 * back in block order per input partition before writing them, so that with one input partition the
 * files are {@code preprocess}'s.
 *
 * <p>It checks what it reads: every rows record against its headers ({@link RowsRecord}), every
 * block number (none twice, none missing), every vocabulary record against the index the column has
 * reached, and every index in the rows against the vocabulary read, when there is one.
 */
public final class OutputConsumer {

    /** What a consume run read. */
    public record Result(
            long rows,
            long rowRecords,
            long deadLetters,
            Map<String, Integer> vocabSizes,
            double seconds) {}

    private final String bootstrapServers;
    private final Map<String, String> properties;
    private final String rowsTopic;
    private final String vocabTopic;
    private final String deadLetterTopic;

    /** The spec the rows were made under, when it is not one piper ships; or null. */
    private DecodeOptions spec;

    /**
     * @param vocabTopic the vocabulary topic, or null
     * @param deadLetterTopic the dead-letter topic, or null
     */
    public OutputConsumer(
            String bootstrapServers,
            Map<String, String> properties,
            String rowsTopic,
            String vocabTopic,
            String deadLetterTopic) {
        this.bootstrapServers = bootstrapServers;
        this.properties = properties;
        this.rowsTopic = rowsTopic;
        this.vocabTopic = vocabTopic;
        this.deadLetterTopic = deadLetterTopic;
    }

    /**
     * The spec the stream ran, for {@code metadata.json}'s layout, table sizes and chains; needed
     * only for a spec that is neither the built-in one nor a preset (those the records name).
     */
    public OutputConsumer spec(DecodeOptions spec) {
        this.spec = spec;
        return this;
    }

    /**
     * Reads into {@code dir} until {@code maxRows} rows have been read and the vocabulary has no
     * gap, or no new record has arrived for {@code idle}. Topics that do not exist yet are waited
     * for, also for at most {@code idle}; a reader never creates them.
     *
     * @param maxRows stop after this many rows; 0 or negative: no limit
     * @throws IllegalStateException if what was read is inconsistent (a gap in a column's
     *     vocabulary, an index without a vocabulary entry, a malformed rows record)
     */
    public Result consume(Path dir, long maxRows, Duration idle, PrintStream progress)
            throws IOException {
        return consume(dir, maxRows, idle, null, progress);
    }

    /** As {@link #consume(Path, long, Duration, PrintStream)}, also filling {@code stats}. */
    public Result consume(
            Path dir, long maxRows, Duration idle, DeliveryStats stats, PrintStream progress)
            throws IOException {
        Files.createDirectories(dir);
        long start = System.nanoTime();
        Properties props = consumerProperties();
        ConsumedVocabulary vocab = vocabTopic == null ? null : new ConsumedVocabulary(dir);
        long deadLetters = 0;
        Rows out = new Rows(dir, vocab == null ? null : vocab.evicting);
        ConsumedMetadata metadata = new ConsumedMetadata(spec);
        try (out;
                KafkaConsumer<byte[], byte[]> consumer =
                        new KafkaConsumer<>(
                                props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                OutputStream deadOut =
                        deadLetterTopic == null
                                ? OutputStream.nullOutputStream()
                                : new BufferedOutputStream(
                                        NamedOutput.open(dir.resolve(OutputLayout.DEAD_LETTERS)))) {
            List<TopicPartition> partitions = awaitTopics(consumer, idle, progress);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long lastRecord = System.nanoTime();
            long lastReport = System.nanoTime();
            while (true) {
                var records = consumer.poll(Duration.ofMillis(200));
                long now = System.nanoTime();
                long readMillis = System.currentTimeMillis();
                if (!records.isEmpty()) {
                    lastRecord = now;
                }
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    if (r.topic().equals(rowsTopic)) {
                        RowsRecord rows = RowsRecord.of(r);
                        metadata.rows(r, rows);
                        if (stats != null) {
                            stats.add(r, rows.rows(), readMillis);
                        }
                        out.add(rows);
                    } else if (r.topic().equals(vocabTopic)) {
                        vocab.add(r);
                    } else {
                        deadLetters += deadLetter(r, metadata, deadOut);
                    }
                }
                if (maxRows > 0 && out.rows >= maxRows && complete(vocab, out, metadata)) {
                    break;
                }
                if (now - lastRecord >= idle.toNanos()) {
                    break;
                }
                if (now - lastReport >= 5_000_000_000L) {
                    progress.printf("consume: %,d rows%n", out.rows);
                    lastReport = now;
                }
            }
            out.finish();
        }
        out.versions.write(dir.resolve(OutputLayout.VERSIONS), out.rows);
        if (vocab != null && !vocab.hotSets.isEmpty()) {
            ConsumedVocabulary.writeHotSets(dir, vocab, out.hotlineRows);
        }
        Map<String, Integer> sizes = vocab == null ? new LinkedHashMap<>() : sizes(vocab, out);
        metadata.write(
                dir,
                out.rows,
                vocab == null ? null : sizes,
                vocab == null ? null : vocab.evicting,
                deadLetterTopic != null,
                out.timesOut,
                progress);
        return new Result(
                out.rows, out.records, deadLetters, sizes, (System.nanoTime() - start) / 1e9);
    }

    /** Writes a dead-letter record as its line; returns 1, the count it adds. */
    private static int deadLetter(
            ConsumerRecord<byte[], byte[]> r, ConsumedMetadata metadata, OutputStream deadOut)
            throws IOException {
        metadata.deadLetter(r);
        deadOut.write(r.value());
        deadOut.write('\n');
        return 1;
    }

    /**
     * Whether what the rows read need has been read too: the vocabulary entries of every index they
     * use, and the dead letters of their blocks (on their own topic).
     */
    private boolean complete(ConsumedVocabulary vocab, Rows out, ConsumedMetadata metadata) {
        boolean vocabComplete =
                vocab == null || (vocab.complete() && vocab.covers(out.maxIndex, out.buckets));
        boolean deadComplete =
                deadLetterTopic == null || metadata.deadLettersRead() >= metadata.deadLetters();
        return vocabComplete && deadComplete;
    }

    /** The consumer's properties: the client's, reading committed records from the start. */
    private Properties consumerProperties() {
        Properties props = CommittedReads.properties(properties);
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.putIfAbsent(
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(8 << 20));
        return props;
    }

    /**
     * Each (column, epoch)'s vocabulary size, once every index the rows use is in it.
     *
     * @throws IllegalStateException naming a column whose rows use an index the vocabulary topic
     *     does not hold
     */
    private static Map<String, Integer> sizes(ConsumedVocabulary vocab, Rows out)
            throws IOException {
        Map<String, Integer> sizes = new LinkedHashMap<>();
        vocab.finish(out.sparseCount);
        sizes.putAll(vocab.sizes());
        for (Map.Entry<Long, Integer> used : new TreeMap<>(out.maxIndex).entrySet()) {
            String name = ConsumedVocabulary.columnEpoch(used.getKey());
            int oov = out.buckets.getOrDefault(used.getKey(), 0);
            int size = oov + sizes.getOrDefault(name, 0);
            if (used.getValue() >= size) {
                throw new IllegalStateException(
                        name
                                + ": the rows use index "
                                + used.getValue()
                                + " but the vocabulary topic holds "
                                + sizes.getOrDefault(name, 0)
                                + " entries"
                                + (oov > 0 ? " after " + oov + " OOV buckets" : ""));
            }
        }
        return sizes;
    }

    /**
     * The partitions of the rows, vocabulary and dead-letter topics, once all of them exist: a
     * reader may start before the stream that creates them. Says every few seconds which ones it
     * waits for.
     *
     * @throws IllegalArgumentException naming the topics still missing after {@code wait}
     */
    private List<TopicPartition> awaitTopics(
            KafkaConsumer<byte[], byte[]> consumer, Duration wait, PrintStream progress) {
        long start = System.nanoTime();
        long lastReport = start;
        while (true) {
            List<TopicPartition> partitions = new ArrayList<>();
            List<String> missing = new ArrayList<>();
            for (String topic : new String[] {rowsTopic, vocabTopic, deadLetterTopic}) {
                if (topic == null) {
                    continue;
                }
                List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
                if (infos == null || infos.isEmpty()) {
                    missing.add(topic);
                } else {
                    infos.forEach(
                            i -> partitions.add(new TopicPartition(i.topic(), i.partition())));
                }
            }
            if (missing.isEmpty()) {
                return partitions;
            }
            long now = System.nanoTime();
            if (now - start >= wait.toNanos()) {
                throw new IllegalArgumentException(
                        (missing.size() == 1 ? "topic " : "topics ")
                                + String.join(", ", missing)
                                + (missing.size() == 1 ? " does" : " do")
                                + " not exist on "
                                + bootstrapServers
                                + " after "
                                + wait.toSeconds()
                                + " s of waiting: is 'piper stream' running with these topics?"
                                + " It creates them as it starts");
            }
            if (now - lastReport >= 5_000_000_000L) {
                progress.printf(
                        "consume: waiting for %s to be created by the stream%n",
                        String.join(", ", missing));
                lastReport = now;
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + missing, e);
            }
        }
    }

    static String optionalHeader(ConsumerRecord<byte[], byte[]> r, String key) {
        Header h = r.headers().lastHeader(key);
        return h == null ? "" : new String(h.value(), StandardCharsets.US_ASCII);
    }

    /**
     * The rows files: each input partition's blocks written in block order (they arrive spread over
     * the rows topic's partitions), with what the checks need.
     */
    private static final class Rows implements java.io.Closeable {
        private final Path dir;
        private final OutputStream rowsOut;
        private OutputStream popularOut; // hotline/popular.bin, once a record has a split
        EventTimesFile timesOut; // event_times.bin, once a record has event times

        /** Rows of Hotline's split order seen: the end of its last window. */
        long hotlineRows;

        private OutputStream[] lengthsOut = new OutputStream[0];
        private OutputStream[] valuesOut = new OutputStream[0];
        private int[] listColumns;

        /** Per input (topic, partition): the next block to write and those waiting for it. */
        private final Map<String, Long> nextBlock = new HashMap<>();

        private final Map<String, TreeMap<Long, RowsRecord>> waiting = new HashMap<>();

        final Versions versions = new Versions();
        final Map<Long, Integer> maxIndex = new HashMap<>();
        final Map<Long, Integer> buckets = new HashMap<>();
        long rows;
        long records;

        /** Sparse columns (list columns included) of the rows read; -1 before the first. */
        int sparseCount = -1;

        /** The rows' shape ({@link RowsRecord#shape()}) of the first record written. */
        private String shape;

        /** The evicting columns' replay, told of every block written; null without a vocabulary. */
        private final EvictingVocabularies evicting;

        Rows(Path dir, EvictingVocabularies evicting) throws IOException {
            this.dir = dir;
            this.evicting = evicting;
            this.rowsOut =
                    new BufferedOutputStream(
                            NamedOutput.open(dir.resolve(OutputLayout.ROWS)), 1 << 20);
        }

        void add(RowsRecord r) throws IOException {
            String input = r.inputTopic() + "/" + r.inputPartition();
            long next = nextBlock.getOrDefault(input, 0L);
            TreeMap<Long, RowsRecord> queue = waiting.computeIfAbsent(input, k -> new TreeMap<>());
            if (r.block() < next || queue.containsKey(r.block())) {
                throw new IllegalStateException(
                        r.where() + ": block " + r.block() + " of " + input + " seen twice");
            }
            queue.put(r.block(), r);
            Map.Entry<Long, RowsRecord> head;
            while ((head = queue.firstEntry()) != null && head.getKey() == next) {
                queue.pollFirstEntry();
                write(head.getValue());
                next++;
            }
            nextBlock.put(input, next);
        }

        /** Per input (topic, partition): the last input offset of the blocks written. */
        private final Map<String, Long> lastOffset = new HashMap<>();

        private void write(RowsRecord r) throws IOException {
            checkOffsets(r);
            checkShape(r);
            // the flags and times first: a record refused for lacking them adds no rows either
            writePopular(r);
            writeEventTimes(r);
            rowsOut.write(r.value(), 0, r.rows() * r.rowBytes());
            for (int l = 0; l < listColumns.length; l++) {
                lengthsOut[l].write(littleEndian(r.listLengths()[l]));
                valuesOut[l].write(littleEndian(r.listValues()[l]));
            }
            int[] epochs = r.epochs();
            int[] max = r.maxIndices();
            long[] keys = new long[epochs.length];
            for (int c = 0; c < epochs.length; c++) {
                long key = ConsumedVocabulary.columnEpochKey(c, epochs[c]);
                keys[c] = key;
                if (max[c] >= 0) {
                    maxIndex.merge(key, max[c], Math::max);
                }
                if (r.buckets()[c] > 0) {
                    buckets.put(key, r.buckets()[c]);
                }
            }
            if (evicting != null) {
                evicting.blockWritten(r, rows, keys);
            }
            versions.add(rows, r.rows(), r.pipeline(), epochs);
            rows += r.rows();
            records++;
        }

        /**
         * In block order, each block's input follows the last one's: a stream that resumed from an
         * earlier snapshot writes rows again under new block numbers, refused here.
         */
        private void checkOffsets(RowsRecord r) {
            if (r.inputOffsets() != null) {
                String input = r.inputTopic() + "/" + r.inputPartition();
                Long before = lastOffset.get(input);
                if (before != null && r.inputOffsets()[0] <= before) {
                    throw new IllegalStateException(
                            r.where()
                                    + ": block "
                                    + r.block()
                                    + " of "
                                    + input
                                    + " holds input offsets "
                                    + r.inputOffsets()[0]
                                    + "-"
                                    + r.inputOffsets()[1]
                                    + ", but the blocks before it reached offset "
                                    + before
                                    + ": rows of those offsets seen twice");
                }
                lastOffset.put(input, r.inputOffsets()[1]);
            }
        }

        /** The first record sets the rows' shape; a record of another shape is refused. */
        private void checkShape(RowsRecord r) throws IOException {
            if (sparseCount < 0) {
                sparseCount = r.sparseCount();
                listColumns = r.listColumns();
                shape = r.shape();
                openLists();
            } else if (!r.shape().equals(shape)) {
                // rows.bin holds rows of one shape: a plausible mix of two would be worse than none
                throw new IllegalStateException(
                        r.where()
                                + " ("
                                + r.pipeline()
                                + ", block "
                                + r.block()
                                + " of "
                                + r.inputTopic()
                                + "/"
                                + r.inputPartition()
                                + "): its rows have "
                                + r.shape()
                                + ", the rows before "
                                + shape
                                + " (a spec switch changed the rows' shape); the files hold the"
                                + " "
                                + rows
                                + " rows before it, consume the rest with a reader of the topic"
                                + " (each record states its shape)");
            }
        }

        /** Hotline's flags into hotline/popular.bin: for every row, or for none. */
        private void writePopular(RowsRecord r) throws IOException {
            if (records > 0 && (r.popular() != null) != (popularOut != null)) {
                // hotline/popular.bin holds a flag for every row of rows.bin, or is absent
                throw new IllegalStateException(
                        r.where()
                                + ": "
                                + (r.popular() != null ? "a Hotline split" : "no Hotline split")
                                + " after "
                                + rows
                                + " rows "
                                + (r.popular() != null ? "without" : "with")
                                + " one");
            }
            if (r.popular() != null) {
                if (popularOut == null) {
                    Files.createDirectories(dir.resolve(OutputLayout.HOTLINE_DIR));
                    popularOut =
                            new BufferedOutputStream(
                                    NamedOutput.open(dir.resolve(OutputLayout.HOTLINE_POPULAR)),
                                    1 << 16);
                }
                popularOut.write(r.popular());
                hotlineRows = Math.max(hotlineRows, r.hotlineFirstRow() + r.rows());
            }
        }

        /** The rows' event times into event_times.bin: for every row, or for none. */
        private void writeEventTimes(RowsRecord r) throws IOException {
            if (records > 0 && (r.eventTimes() != null) != (timesOut != null)) {
                // event_times.bin holds a time for every row of rows.bin, or is absent
                throw new IllegalStateException(
                        r.where()
                                + ": "
                                + (r.eventTimes() != null ? "event times" : "no event times")
                                + " after "
                                + rows
                                + " rows "
                                + (r.eventTimes() != null ? "without" : "with")
                                + " them (a spec switch added or removed input.timestamp)");
            }
            if (r.eventTimes() != null) {
                if (timesOut == null) {
                    timesOut = new EventTimesFile(dir);
                }
                timesOut.write(r.eventTimes(), r.rows(), r.where());
            }
        }

        private void openLists() throws IOException {
            lengthsOut = new OutputStream[listColumns.length];
            valuesOut = new OutputStream[listColumns.length];
            if (listColumns.length > 0) {
                Files.createDirectories(dir.resolve(OutputLayout.LISTS_DIR));
            }
            for (int l = 0; l < listColumns.length; l++) {
                int c = listColumns[l];
                lengthsOut[l] =
                        new BufferedOutputStream(
                                NamedOutput.open(dir.resolve(OutputLayout.listLengthsFile(c))),
                                1 << 20);
                valuesOut[l] =
                        new BufferedOutputStream(
                                NamedOutput.open(dir.resolve(OutputLayout.listValuesFile(c))),
                                1 << 20);
            }
        }

        private static byte[] littleEndian(int[] values) {
            ByteBuffer b =
                    ByteBuffer.allocate(values.length * Integer.BYTES)
                            .order(ByteOrder.LITTLE_ENDIAN);
            b.asIntBuffer().put(values);
            return b.array();
        }

        /** Fails if a block never arrived while later ones of its input partition did. */
        void finish() {
            for (Map.Entry<String, TreeMap<Long, RowsRecord>> e : waiting.entrySet()) {
                if (!e.getValue().isEmpty()) {
                    throw new IllegalStateException(
                            e.getKey()
                                    + ": block "
                                    + nextBlock.getOrDefault(e.getKey(), 0L)
                                    + " never arrived (next present: "
                                    + e.getValue().firstKey()
                                    + "); rows.bin holds the blocks before it only");
                }
            }
        }

        @Override
        public void close() throws IOException {
            List<Closeable> all = new ArrayList<>(List.of(rowsOut));
            if (popularOut != null) {
                all.add(popularOut);
            }
            if (timesOut != null) {
                all.add(timesOut);
            }
            all.addAll(Arrays.asList(lengthsOut));
            all.addAll(Arrays.asList(valuesOut));
            Closeables.closeAll(all);
        }
    }

    /** Runs of consecutive rows read under one pipeline version and set of epochs. */
    private static final class Versions {
        private final StringBuilder lines =
                new StringBuilder("first_row\trows\tpipeline\tepochs\n");
        private long runStart;
        private String run;

        void add(long firstRow, int rows, String pipeline, int[] epochs) {
            String key = pipeline + "\t" + Arrays.toString(epochs).replace(" ", "");
            if (!key.equals(run)) {
                close(firstRow);
                run = key;
                runStart = firstRow;
            }
        }

        private void close(long end) {
            if (run != null && end > runStart) {
                lines.append(runStart).append('\t').append(end - runStart).append('\t');
                lines.append(run).append('\n');
            }
        }

        void write(Path file, long totalRows) throws IOException {
            close(totalRows);
            run = null;
            Files.writeString(file, lines, StandardCharsets.US_ASCII);
        }
    }
}
