package dev.piper.connectors.kafka;

import dev.piper.connectors.output.OutputLayout;
import dev.piper.pipeline.layout.CriteoLayout;
import java.io.BufferedOutputStream;
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
 * from the beginning) into the batch layout: {@code rows.bin} from the rows topic, {@code
 * vocab/C1.tsv..C26.tsv} from the vocabulary topic (entries put in index order, whatever order
 * their records arrive in; a later vocabulary epoch of a column in {@code vocab/C3.epoch1.tsv}),
 * {@code dead-letters.jsonl} from the dead-letter topic, and {@code versions.tsv}: the runs of rows
 * in {@code rows.bin} with the pipeline version and vocabulary epochs they were produced under.
 *
 * <p>It checks what it reads: every rows record's length against its row count header, every
 * vocabulary record against the index the column has reached, and every index in the rows against
 * the vocabulary read, when there is one.
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
     * Reads into {@code dir} until {@code maxRows} rows have been read and the vocabulary has no
     * gap, or no new record has arrived for {@code idle}.
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
        Properties props = new Properties();
        props.putAll(properties);
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.putIfAbsent(
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(8 << 20));
        Vocab vocab = vocabTopic == null ? null : new Vocab(dir);
        long rows = 0;
        long rowRecords = 0;
        long deadLetters = 0;
        Map<Long, Integer> maxIndex = new HashMap<>();
        Map<Long, Integer> buckets = new HashMap<>();
        Versions versions = new Versions();
        try (KafkaConsumer<byte[], byte[]> consumer =
                        new KafkaConsumer<>(
                                props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                OutputStream rowsOut =
                        new BufferedOutputStream(
                                Files.newOutputStream(dir.resolve(OutputLayout.ROWS)), 1 << 20);
                OutputStream deadOut =
                        deadLetterTopic == null
                                ? OutputStream.nullOutputStream()
                                : new BufferedOutputStream(
                                        Files.newOutputStream(
                                                dir.resolve(OutputLayout.DEAD_LETTERS)))) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : new String[] {rowsTopic, vocabTopic, deadLetterTopic}) {
                if (topic == null) {
                    continue;
                }
                List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
                if (infos == null || infos.isEmpty()) {
                    throw new IllegalArgumentException("topic " + topic + " does not exist");
                }
                infos.forEach(i -> partitions.add(new TopicPartition(i.topic(), i.partition())));
            }
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
                        int n = rowCount(r);
                        rowsOut.write(r.value());
                        int[] epochs = epochs(r);
                        trackIndices(r.value(), n, epochs, maxIndex);
                        trackBuckets(r, epochs, buckets);
                        versions.add(rows, n, optionalHeader(r, StreamFormat.PIPELINE), epochs);
                        if (stats != null) {
                            stats.add(r, n, readMillis);
                        }
                        rows += n;
                        rowRecords++;
                    } else if (r.topic().equals(vocabTopic)) {
                        vocab.add(r);
                    } else {
                        deadOut.write(r.value());
                        deadOut.write('\n');
                        deadLetters++;
                    }
                }
                boolean vocabComplete = vocab == null || vocab.complete();
                if (maxRows > 0 && rows >= maxRows && vocabComplete) {
                    break;
                }
                if (now - lastRecord >= idle.toNanos()) {
                    break;
                }
                if (now - lastReport >= 5_000_000_000L) {
                    progress.printf("consume: %,d rows%n", rows);
                    lastReport = now;
                }
            }
        }
        versions.write(dir.resolve(OutputLayout.VERSIONS), rows);
        Map<String, Integer> sizes = new LinkedHashMap<>();
        if (vocab != null) {
            vocab.finish();
            sizes.putAll(vocab.sizes());
            for (Map.Entry<Long, Integer> used : new TreeMap<>(maxIndex).entrySet()) {
                String name = columnEpoch(used.getKey());
                int oov = buckets.getOrDefault(used.getKey(), 0);
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
        }
        return new Result(rows, rowRecords, deadLetters, sizes, (System.nanoTime() - start) / 1e9);
    }

    /** Records the OOV buckets a rows record states for its columns' epochs. */
    private static void trackBuckets(
            ConsumerRecord<byte[], byte[]> r, int[] epochs, Map<Long, Integer> buckets) {
        int[] b = perColumn(r, StreamFormat.OOV_BUCKETS);
        for (int c = 0; c < b.length; c++) {
            if (b[c] > 0) {
                buckets.put(columnEpochKey(c, epochs[c]), b[c]);
            }
        }
    }

    private static int rowCount(ConsumerRecord<byte[], byte[]> r) {
        String where = r.topic() + "/" + r.partition() + "@" + r.offset();
        Header h = r.headers().lastHeader(StreamFormat.ROWS);
        if (h == null) {
            throw new IllegalStateException(where + ": no " + StreamFormat.ROWS + " header");
        }
        int n = Integer.parseInt(new String(h.value(), StandardCharsets.US_ASCII));
        if (r.value() == null || r.value().length != n * CriteoLayout.ROW_BYTES) {
            throw new IllegalStateException(
                    where
                            + ": "
                            + n
                            + " rows but "
                            + (r.value() == null ? 0 : r.value().length)
                            + " bytes");
        }
        return n;
    }

    /** A (column, epoch) pair as one map key. */
    private static long columnEpochKey(int c, int epoch) {
        return ((long) c << 32) | epoch;
    }

    /** {@code C3} for epoch 0, {@code C3.epoch1} for later epochs. */
    private static String columnEpoch(long key) {
        String name = CriteoLayout.sparseName((int) (key >>> 32));
        int epoch = (int) key;
        return epoch == 0 ? name : name + ".epoch" + epoch;
    }

    private static String optionalHeader(ConsumerRecord<byte[], byte[]> r, String key) {
        Header h = r.headers().lastHeader(key);
        return h == null ? "" : new String(h.value(), StandardCharsets.US_ASCII);
    }

    /** The rows record's per-column epochs (all 0 when it has no epochs header). */
    private static int[] epochs(ConsumerRecord<byte[], byte[]> r) {
        return perColumn(r, StreamFormat.EPOCHS);
    }

    /** A header of one integer per sparse column, joined by commas; all 0 when absent. */
    private static int[] perColumn(ConsumerRecord<byte[], byte[]> r, String header) {
        int[] values = new int[CriteoLayout.SPARSE];
        String text = optionalHeader(r, header);
        if (text.isEmpty()) {
            return values;
        }
        String[] parts = text.split(",", -1);
        if (parts.length != CriteoLayout.SPARSE) {
            throw new IllegalStateException(
                    r.topic()
                            + "/"
                            + r.partition()
                            + "@"
                            + r.offset()
                            + ": "
                            + header
                            + " has "
                            + parts.length
                            + " entries, expected "
                            + CriteoLayout.SPARSE);
        }
        for (int c = 0; c < parts.length; c++) {
            values[c] = Integer.parseInt(parts[c]);
        }
        return values;
    }

    private static void trackIndices(
            byte[] value, int rows, int[] epochs, Map<Long, Integer> maxIndex) {
        ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        int first = CriteoLayout.LABEL_DENSE_WIDTH * Integer.BYTES;
        for (int c = 0; c < CriteoLayout.SPARSE; c++) {
            int max = -1;
            for (int r = 0; r < rows; r++) {
                max = Math.max(max, b.getInt(r * CriteoLayout.ROW_BYTES + first + c * 4));
            }
            if (max >= 0) {
                maxIndex.merge(columnEpochKey(c, epochs[c]), max, Math::max);
            }
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

    /**
     * The vocabulary files, per column and epoch, written in index order from records that may come
     * in any order.
     */
    private static final class Vocab {
        private final Path dir;
        private final Map<Long, Column> columns = new TreeMap<>();
        private final Map<String, Integer> names = new HashMap<>();

        private record Entry(int count, byte[] text) {}

        /** One column's vocabulary in one epoch. */
        private static final class Column {
            final OutputStream file;
            final TreeMap<Integer, Entry> waiting = new TreeMap<>();

            /** The OOV buckets, so the first entry's index; -1 until a record says. */
            int buckets = -1;

            /** The index of the next entry to write. */
            int next;

            Column(Path file) throws IOException {
                this.file = new BufferedOutputStream(Files.newOutputStream(file));
            }
        }

        Vocab(Path dir) throws IOException {
            this.dir = dir;
            Files.createDirectories(dir.resolve(OutputLayout.VOCAB_DIR));
            for (int c = 0; c < CriteoLayout.SPARSE; c++) {
                column(c, 0);
                names.put(CriteoLayout.sparseName(c), c);
            }
        }

        private Column column(int c, int epoch) throws IOException {
            long key = columnEpochKey(c, epoch);
            Column col = columns.get(key);
            if (col == null) {
                col = new Column(dir.resolve(OutputLayout.vocabFile(c, epoch)));
                columns.put(key, col);
            }
            return col;
        }

        void add(ConsumerRecord<byte[], byte[]> r) throws IOException {
            String where = r.topic() + "/" + r.partition() + "@" + r.offset();
            String name = header(r, StreamFormat.COLUMN, where);
            Integer c = names.get(name);
            if (c == null) {
                throw new IllegalStateException(where + ": unknown column " + name);
            }
            String epochText = optionalHeader(r, StreamFormat.EPOCH);
            int epoch = epochText.isEmpty() ? 0 : Integer.parseInt(epochText);
            if (epoch < 0) {
                throw new IllegalStateException(where + ": negative epoch " + epoch);
            }
            Column col = column(c, epoch);
            String bucketText = optionalHeader(r, StreamFormat.OOV_BUCKETS);
            int buckets = bucketText.isEmpty() ? 0 : Integer.parseInt(bucketText);
            if (col.buckets < 0) {
                col.buckets = buckets;
                col.next = buckets; // nothing is written before the first record
            } else if (col.buckets != buckets) {
                throw new IllegalStateException(
                        where
                                + ": "
                                + columnEpoch(columnEpochKey(c, epoch))
                                + " has "
                                + buckets
                                + " OOV buckets here, "
                                + col.buckets
                                + " before");
            }
            int first = Integer.parseInt(header(r, StreamFormat.FIRST_INDEX, where));
            int count = Integer.parseInt(header(r, StreamFormat.COUNT, where));
            if (first < col.next || col.waiting.containsKey(first)) {
                throw new IllegalStateException(
                        where
                                + ": "
                                + columnEpoch(columnEpochKey(c, epoch))
                                + " entries from index "
                                + first
                                + " seen twice");
            }
            col.waiting.put(first, new Entry(count, r.value()));
            Map.Entry<Integer, Entry> head;
            while ((head = col.waiting.firstEntry()) != null && head.getKey() == col.next) {
                col.waiting.pollFirstEntry();
                col.file.write(head.getValue().text());
                col.next += head.getValue().count();
            }
        }

        private static String header(ConsumerRecord<byte[], byte[]> r, String key, String where) {
            Header h = r.headers().lastHeader(key);
            if (h == null) {
                throw new IllegalStateException(where + ": no " + key + " header");
            }
            return new String(h.value(), StandardCharsets.US_ASCII);
        }

        boolean complete() {
            for (Column col : columns.values()) {
                if (!col.waiting.isEmpty()) {
                    return false;
                }
            }
            return true;
        }

        /** Entries per column and epoch: {@code C3}, {@code C3.epoch1}, ... */
        Map<String, Integer> sizes() {
            Map<String, Integer> sizes = new LinkedHashMap<>();
            columns.forEach(
                    (key, col) -> sizes.put(columnEpoch(key), col.next - Math.max(0, col.buckets)));
            return sizes;
        }

        void finish() throws IOException {
            for (Column col : columns.values()) {
                col.file.close();
            }
            for (Map.Entry<Long, Column> e : columns.entrySet()) {
                Column col = e.getValue();
                if (!col.waiting.isEmpty()) {
                    throw new IllegalStateException(
                            columnEpoch(e.getKey())
                                    + ": vocabulary entries from index "
                                    + col.next
                                    + " never arrived (next present: "
                                    + col.waiting.firstKey()
                                    + ")");
                }
            }
        }
    }
}
