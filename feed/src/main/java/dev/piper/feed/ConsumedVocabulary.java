package dev.piper.feed;

import dev.piper.output.HotlineFiles;
import dev.piper.output.NamedOutput;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The vocabulary files, per column and epoch, written in index order from records that may come in
 * any order.
 */
final class ConsumedVocabulary {
    private final Path dir;
    private final Map<Long, Column> columns = new TreeMap<>();

    private record Entry(int count, byte[] text) {}

    /** The evicting columns' assignments, replayed into rows.bin's rows. */
    final EvictingVocabularies evicting;

    /** Hotline's hot-set announcements by window, and each window's first row. */
    final TreeMap<Integer, String> hotSets = new TreeMap<>();

    final TreeMap<Integer, Long> hotSetStarts = new TreeMap<>();

    /** One column's vocabulary in one epoch. */
    private static final class Column {
        final OutputStream file;
        final TreeMap<Integer, Entry> waiting = new TreeMap<>();

        /** The OOV buckets, so the first entry's index; -1 until a record says. */
        int buckets = -1;

        /** The index of the next entry to write. */
        int next;

        Column(Path file) throws IOException {
            this.file = new BufferedOutputStream(NamedOutput.open(file));
        }
    }

    ConsumedVocabulary(Path dir) throws IOException {
        this.dir = dir;
        this.evicting =
                new EvictingVocabularies(
                        ConsumedVocabulary::columnEpoch,
                        key -> dir.resolve(OutputLayout.vocabFile((int) (key >>> 32), (int) key)));
        Files.createDirectories(dir.resolve(OutputLayout.VOCAB_DIR));
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
        if (r.headers().lastHeader(StreamFormat.HOTLINE_WINDOW) != null) {
            int window = Integer.parseInt(header(r, StreamFormat.HOTLINE_WINDOW, where));
            if (hotSets.put(window, new String(r.value(), StandardCharsets.UTF_8)) != null) {
                throw new IllegalStateException(
                        where + ": the hot set of window " + window + " seen twice");
            }
            hotSetStarts.put(
                    window, Long.parseLong(header(r, StreamFormat.HOTLINE_FIRST_ROW, where)));
            return;
        }
        String name = header(r, StreamFormat.COLUMN, where);
        int c = RowsRecord.sparseColumn(name);
        if (c < 0 || c >= RowLayout.MAX_SPARSE) {
            throw new IllegalStateException(where + ": unknown column " + name);
        }
        String epochText = OutputConsumer.optionalHeader(r, StreamFormat.EPOCH);
        int epoch = epochText.isEmpty() ? 0 : Integer.parseInt(epochText);
        if (epoch < 0) {
            throw new IllegalStateException(where + ": negative epoch " + epoch);
        }
        String bucketText = OutputConsumer.optionalHeader(r, StreamFormat.OOV_BUCKETS);
        int buckets = bucketText.isEmpty() ? 0 : Integer.parseInt(bucketText);
        if (EvictingVocabularies.evicting(r)) {
            evicting.add(r, columnEpochKey(c, epoch), buckets);
            return;
        }
        Column col = column(c, epoch);
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
        return evicting.complete();
    }

    /**
     * Whether every index the rows read use ({@code maxIndex}, by column and epoch) is an OOV
     * bucket ({@code buckets}) or an entry read: a run stopped by {@code --rows} must not end
     * before the vocabulary records of the rows it wrote, which arrive on their own topic.
     */
    boolean covers(Map<Long, Integer> maxIndex, Map<Long, Integer> buckets) {
        for (Map.Entry<Long, Integer> used : maxIndex.entrySet()) {
            Column col = columns.get(used.getKey());
            int oov = buckets.getOrDefault(used.getKey(), 0);
            int known =
                    evicting.has(used.getKey())
                            ? oov + evicting.held(used.getKey())
                            : Math.max(oov, col == null ? 0 : col.next);
            if (used.getValue() >= known) {
                return false;
            }
        }
        return true;
    }

    /** Entries per column and epoch: {@code C3}, {@code C3.epoch1}, ... */
    Map<String, Integer> sizes() {
        Map<String, Integer> sizes = new LinkedHashMap<>();
        Map<Long, Integer> all = new TreeMap<>();
        columns.forEach((key, col) -> all.put(key, col.next - Math.max(0, col.buckets)));
        all.putAll(evicting.held());
        all.forEach((key, size) -> sizes.put(columnEpoch(key), size));
        return sizes;
    }

    /**
     * Closes the files, after creating the empty ones of columns {@code 0..sparseCount-1} that no
     * record named (preprocess writes a file per column); fails on a gap.
     */
    void finish(int sparseCount) throws IOException {
        for (int c = 0; c < sparseCount; c++) {
            if (!evicting.has(columnEpochKey(c, 0))) {
                column(c, 0);
            }
        }
        for (Column col : columns.values()) {
            col.file.close();
        }
        evicting.finish();
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

    /**
     * {@code hotline/hot-sets.jsonl} from the hot-set records: windows from 0 without a gap, up to
     * the last one the rows read reach, each line its announcement with the rows up to the next
     * window (the last: to the rows read).
     */
    static void writeHotSets(Path dir, ConsumedVocabulary vocab, long hotlineRows)
            throws IOException {
        StringBuilder lines = new StringBuilder();
        int expected = 0;
        for (Map.Entry<Integer, String> e : vocab.hotSets.entrySet()) {
            if (e.getKey() != expected) {
                throw new IllegalStateException(
                        "the hot set of window "
                                + expected
                                + " never arrived (next: "
                                + e.getKey()
                                + ")");
            }
            long first = vocab.hotSetStarts.get(e.getKey());
            if (first >= hotlineRows && e.getKey() > 0) {
                break; // a window of rows this run did not read (--rows stopped it before)
            }
            Map.Entry<Integer, Long> next = vocab.hotSetStarts.higherEntry(e.getKey());
            long end =
                    Math.max(
                            first,
                            next == null ? hotlineRows : Math.min(next.getValue(), hotlineRows));
            lines.append(HotlineFiles.line(e.getValue(), end - first)).append('\n');
            expected++;
        }
        Files.createDirectories(dir.resolve(OutputLayout.HOTLINE_DIR));
        Files.writeString(
                dir.resolve(OutputLayout.HOTLINE_HOT_SETS), lines, StandardCharsets.UTF_8);
    }

    /** A (column, epoch) pair as one map key. */
    static long columnEpochKey(int c, int epoch) {
        return ((long) c << 32) | epoch;
    }

    /** {@code C3} for epoch 0, {@code C3.epoch1} for later epochs. */
    static String columnEpoch(long key) {
        String name = CriteoLayout.sparseName((int) (key >>> 32));
        int epoch = (int) key;
        return epoch == 0 ? name : name + ".epoch" + epoch;
    }
}
