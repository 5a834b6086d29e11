package dev.piper.job.kafka;

import dev.piper.job.sink.OutputLayout;
import dev.piper.operators.decode.CriteoLayout;
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
 * their records arrive in), {@code dead-letters.jsonl} from the dead-letter topic.
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
        int[] maxIndex = new int[CriteoLayout.SPARSE];
        Arrays.fill(maxIndex, -1);
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
                        trackIndices(r.value(), n, maxIndex);
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
        Map<String, Integer> sizes = new LinkedHashMap<>();
        if (vocab != null) {
            vocab.finish();
            for (int c = 0; c < CriteoLayout.SPARSE; c++) {
                String name = CriteoLayout.sparseName(c);
                sizes.put(name, vocab.size(c));
                if (maxIndex[c] >= vocab.size(c)) {
                    throw new IllegalStateException(
                            name
                                    + ": the rows use index "
                                    + maxIndex[c]
                                    + " but the vocabulary topic holds "
                                    + vocab.size(c)
                                    + " entries");
                }
            }
        }
        return new Result(rows, rowRecords, deadLetters, sizes, (System.nanoTime() - start) / 1e9);
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

    private static void trackIndices(byte[] value, int rows, int[] maxIndex) {
        ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        int first = CriteoLayout.LABEL_DENSE_WIDTH * Integer.BYTES;
        for (int r = 0; r < rows; r++) {
            int base = r * CriteoLayout.ROW_BYTES + first;
            for (int c = 0; c < CriteoLayout.SPARSE; c++) {
                int index = b.getInt(base + c * Integer.BYTES);
                if (index > maxIndex[c]) {
                    maxIndex[c] = index;
                }
            }
        }
    }

    /** The vocabulary files, written in index order from records that may come in any order. */
    private static final class Vocab {
        private final OutputStream[] files = new OutputStream[CriteoLayout.SPARSE];
        private final int[] next = new int[CriteoLayout.SPARSE];
        private final List<TreeMap<Integer, Entry>> waiting = new ArrayList<>();
        private final Map<String, Integer> columns = new HashMap<>();

        private record Entry(int count, byte[] text) {}

        Vocab(Path dir) throws IOException {
            Files.createDirectories(dir.resolve(OutputLayout.VOCAB_DIR));
            for (int c = 0; c < CriteoLayout.SPARSE; c++) {
                files[c] =
                        new BufferedOutputStream(
                                Files.newOutputStream(dir.resolve(OutputLayout.vocabFile(c))));
                waiting.add(new TreeMap<>());
                columns.put(CriteoLayout.sparseName(c), c);
            }
        }

        void add(ConsumerRecord<byte[], byte[]> r) throws IOException {
            String where = r.topic() + "/" + r.partition() + "@" + r.offset();
            String name = header(r, StreamFormat.COLUMN, where);
            Integer c = columns.get(name);
            if (c == null) {
                throw new IllegalStateException(where + ": unknown column " + name);
            }
            int first = Integer.parseInt(header(r, StreamFormat.FIRST_INDEX, where));
            int count = Integer.parseInt(header(r, StreamFormat.COUNT, where));
            if (first < next[c] || waiting.get(c).containsKey(first)) {
                throw new IllegalStateException(
                        where + ": " + name + " entries from index " + first + " seen twice");
            }
            waiting.get(c).put(first, new Entry(count, r.value()));
            Map.Entry<Integer, Entry> head;
            while ((head = waiting.get(c).firstEntry()) != null && head.getKey() == next[c]) {
                waiting.get(c).pollFirstEntry();
                files[c].write(head.getValue().text());
                next[c] += head.getValue().count();
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
            for (TreeMap<Integer, Entry> w : waiting) {
                if (!w.isEmpty()) {
                    return false;
                }
            }
            return true;
        }

        int size(int c) {
            return next[c];
        }

        void finish() throws IOException {
            for (OutputStream f : files) {
                f.close();
            }
            for (int c = 0; c < CriteoLayout.SPARSE; c++) {
                if (!waiting.get(c).isEmpty()) {
                    throw new IllegalStateException(
                            CriteoLayout.sparseName(c)
                                    + ": vocabulary entries from index "
                                    + next[c]
                                    + " never arrived (next present: "
                                    + waiting.get(c).firstKey()
                                    + ")");
                }
            }
        }
    }
}
