package dev.piper.feed;

import dev.piper.output.AssignmentLog;
import dev.piper.output.NameText;
import dev.piper.output.NamedOutput;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * {@code consume}'s side of evicting vocabularies: the assignment records of the vocabulary topic
 * ({@link StreamFormat#EVICT}) replayed into {@code vocab/Cj.assignments.tsv} with each
 * assignment's row of {@code rows.bin}, and at the end {@code vocab/Cj.tsv}, the key each index
 * then holds: {@code preprocess}'s files for the same lines and spec.
 *
 * <p>An assignment record names the rows record its rows belong to (input partition and block); it
 * is replayed once that block is in {@code rows.bin} (so its first row is known) and every
 * assignment numbered before it has been. {@link AssignmentLog} checks each one against the keys
 * the indices hold.
 *
 * <p>The replay is exact only if {@code rows.bin} holds the blocks in the order the column's
 * vocabulary applied them: always with one input partition. With several, a vocabulary applies the
 * partitions' blocks as they reach it, which {@code rows.bin}'s order need not follow; every block
 * is therefore checked against the count of assignments its rows record says came before it ({@link
 * RowsRecord#ASSIGNMENTS}): all those, and none after, must stand at rows before the block. A block
 * that breaks this fails the run, naming the column and the block, rather than writing an
 * assignments file that gives some rows another key's index.
 *
 * <p>Memory: the first row of every block written (records may still name it: about 100 bytes a
 * block, 100 MB for 10^6 blocks of some 4 * 10^9 rows), each column's keys as they stand (its
 * capacity at most), and the records not replayed yet.
 */
final class EvictingVocabularies {

    /** One evicting column in one epoch. */
    private static final class Column {
        final String name;
        final Path vocabFile;
        final OutputStream file;
        final AssignmentLog log;
        final int buckets;

        /** Records not replayed yet, by their first assignment's number. */
        final TreeMap<Long, Pending> waiting = new TreeMap<>();

        /**
         * Blocks in {@code rows.bin} order, each its first row and the assignments before it, kept
         * until an assignment numbered at or after that count has been replayed.
         */
        final ArrayDeque<Written> blocks = new ArrayDeque<>();

        /** The assignments before the last block written. */
        long lastBefore;

        Column(String name, Path vocabFile, int buckets) throws IOException {
            this.name = name;
            this.vocabFile = vocabFile;
            String file = vocabFile.getFileName().toString();
            this.file =
                    new BufferedOutputStream(
                            NamedOutput.open(
                                    vocabFile.resolveSibling(
                                            file.substring(0, file.length() - ".tsv".length())
                                                    + ".assignments.tsv")),
                            1 << 16);
            this.log = new AssignmentLog(name, buckets, this.file);
            this.buckets = buckets;
        }
    }

    /**
     * A block in {@code rows.bin}: its first row, and the assignments its record says precede it.
     */
    private record Written(long firstRow, long before, int partition, long block) {
        @Override
        public String toString() {
            return "block " + block + " of input partition " + partition;
        }
    }

    /** An assignment record waiting for its block's rows or for the assignments before it. */
    private record Pending(String where, int partition, long block, int count, byte[] text) {}

    private final LongFunction<String> names;
    private final LongFunction<Path> files;

    /** By column and epoch ({@code OutputConsumer}'s key). */
    private final Map<Long, Column> columns = new TreeMap<>();

    /** The first row in {@code rows.bin} of each block written, by input partition and block. */
    private final Map<Long, Map<Long, Long>> blockRows = new HashMap<>();

    /**
     * @param names a (column, epoch) key's name: {@code C3}, {@code C3.epoch1}
     * @param files a (column, epoch) key's vocabulary file ({@code vocab/C3.tsv}); its assignments
     *     file goes beside it ({@code vocab/C3.assignments.tsv})
     */
    EvictingVocabularies(LongFunction<String> names, LongFunction<Path> files) {
        this.names = names;
        this.files = files;
    }

    /** Whether {@code r}, a vocabulary record, is an evicting column's. */
    static boolean evicting(ConsumerRecord<byte[], byte[]> r) {
        return r.headers().lastHeader(StreamFormat.EVICT) != null;
    }

    /** Whether the column and epoch of {@code key} evicts, as far as the records read say. */
    boolean has(long key) {
        return columns.containsKey(key);
    }

    /**
     * Takes an evicting column's assignment record.
     *
     * @param key its column and epoch
     * @param buckets its OOV buckets, the record says
     */
    void add(ConsumerRecord<byte[], byte[]> r, long key, int buckets) throws IOException {
        String where = r.topic() + "/" + r.partition() + "@" + r.offset();
        Column col = column(key, buckets, where);
        long first = number(r, StreamFormat.FIRST_ASSIGNMENT, where);
        int count = (int) number(r, StreamFormat.COUNT, where);
        if (first < col.log.next() || col.waiting.containsKey(first)) {
            throw new IllegalStateException(
                    where + ": " + col.name + " assignments from " + first + " seen twice");
        }
        col.waiting.put(
                first,
                new Pending(
                        where,
                        (int) number(r, StreamFormat.INPUT_PARTITION, where),
                        number(r, StreamFormat.BLOCK, where),
                        count,
                        r.value()));
        replay(col);
    }

    /** The column and epoch of {@code key}, created as it is first named. */
    private Column column(long key, int buckets, String where) throws IOException {
        Column col = columns.get(key);
        if (col == null) {
            col = new Column(names.apply(key), files.apply(key), buckets);
            columns.put(key, col);
        } else if (col.buckets != buckets) {
            throw new IllegalStateException(
                    where
                            + ": "
                            + col.name
                            + " has "
                            + buckets
                            + " OOV buckets here, "
                            + col.buckets
                            + " before");
        }
        return col;
    }

    /**
     * Notes a block written to {@code rows.bin} from {@code firstRow} on, checks it against the
     * assignments replayed so far, and replays those that were waiting for it.
     *
     * @param keys per sparse column of the record, its (column, epoch) key
     */
    void blockWritten(RowsRecord r, long firstRow, long[] keys) throws IOException {
        blockRows
                .computeIfAbsent((long) r.inputPartition(), p -> new HashMap<>())
                .put(r.block(), firstRow);
        for (int c = 0; c < keys.length; c++) {
            boolean evicts = r.evicts() != null && r.evicts()[c];
            Column col = columns.get(keys[c]);
            if (col != null && !evicts) {
                throw new IllegalStateException(
                        r.where()
                                + ": "
                                + col.name
                                + " evicts, but the record's "
                                + StreamFormat.EVICT
                                + " header does not say so");
            }
            if (!evicts) {
                continue;
            }
            col = column(keys[c], r.buckets()[c], r.where());
            Written w =
                    new Written(firstRow, r.assignmentsBefore()[c], r.inputPartition(), r.block());
            if (w.before() < col.lastBefore || w.before() < col.log.next()) {
                throw outOfOrder(col, w);
            }
            col.lastBefore = w.before();
            col.blocks.addLast(w);
            replay(col);
        }
    }

    private static IllegalStateException outOfOrder(Column col, Written block) {
        return new IllegalStateException(
                col.name
                        + ": its vocabulary applied "
                        + block
                        + " after "
                        + block.before()
                        + " assignments, but rows.bin does not hold it after exactly those"
                        + " (with several input partitions a vocabulary applies their blocks as"
                        + " they reach it, and rows.bin cannot follow that order for every"
                        + " column): the files so far hold rows before it; read the topics with"
                        + " a reader that replays assignments per block (docs/SEMANTICS.md)");
    }

    /** Replays the column's waiting records whose turn has come and whose block is written. */
    private void replay(Column col) throws IOException {
        Map.Entry<Long, Pending> head;
        while ((head = col.waiting.firstEntry()) != null && head.getKey() == col.log.next()) {
            Pending p = head.getValue();
            Map<Long, Long> rows = blockRows.get((long) p.partition());
            Long firstRow = rows == null ? null : rows.get(p.block());
            if (firstRow == null) {
                return; // its rows are not in rows.bin yet
            }
            col.waiting.pollFirstEntry();
            replay(col, p, firstRow);
        }
    }

    private static void replay(Column col, Pending p, long firstRow) throws IOException {
        String[] lines = new String(p.text(), StandardCharsets.UTF_8).split("\n", -1);
        if (lines.length != p.count() + 1 || !lines[p.count()].isEmpty()) {
            throw new IllegalStateException(
                    p.where() + ": " + p.count() + " assignments announced, the value has others");
        }
        for (int i = 0; i < p.count(); i++) {
            String[] f = lines[i].split("\t", -1);
            if (f.length != 4 && f.length != 5) {
                throw new IllegalStateException(
                        p.where()
                                + ": line "
                                + (i + 1)
                                + " is not index, key, row, evicted key (and string)");
            }
            long number = col.log.next();
            long row;
            try {
                row = firstRow + Integer.parseInt(f[2]);
                col.log.append(
                        number,
                        row,
                        Integer.parseInt(f[0]),
                        Long.parseUnsignedLong(f[1]),
                        !f[3].isEmpty(),
                        f[3].isEmpty() ? 0 : Long.parseUnsignedLong(f[3]),
                        f.length == 5 ? NameText.parse(f[4]) : null);
            } catch (NumberFormatException e) {
                throw new IllegalStateException(
                        p.where() + ": line " + (i + 1) + ": not a number: " + e.getMessage());
            } catch (IllegalStateException e) {
                throw new IllegalStateException(p.where() + ": " + e.getMessage(), e);
            }
            check(col, number, row);
        }
    }

    /**
     * Assignment {@code number}, at {@code row}, against the blocks written: at or after each block
     * it does not precede, before the first one it does.
     */
    private static void check(Column col, long number, long row) {
        Written b;
        while ((b = col.blocks.peekFirst()) != null && b.before() <= number) {
            if (row < b.firstRow()) {
                throw outOfOrder(col, b);
            }
            col.blocks.pollFirst();
        }
        if (b != null && row >= b.firstRow()) {
            throw outOfOrder(col, b);
        }
    }

    /**
     * Whether every assignment of the blocks written has been replayed, as far as the records read
     * tell: none waits for an earlier one, and every count a block's record gave is reached.
     */
    boolean complete() {
        for (Column col : columns.values()) {
            if (lacksAssignments(col)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether an assignment of a block written has not been replayed: one before the last block's
     * count, or one before a record of a block written that waits.
     */
    private boolean lacksAssignments(Column col) {
        if (col.log.next() < col.lastBefore) {
            return true;
        }
        for (Pending p : col.waiting.values()) {
            Map<Long, Long> rows = blockRows.get((long) p.partition());
            if (rows != null && rows.containsKey(p.block())) {
                return true;
            }
        }
        return false;
    }

    /** The indices a key holds now, of the column and epoch of {@code key}. */
    int held(long key) {
        Column col = columns.get(key);
        return col == null ? 0 : col.log.held();
    }

    /** The assignments replayed of the column and epoch of {@code key}; 0 if it does not evict. */
    long assignments(long key) {
        Column col = columns.get(key);
        return col == null ? 0 : col.log.next();
    }

    /** The evictions replayed of the column and epoch of {@code key}; 0 if it does not evict. */
    long evictions(long key) {
        Column col = columns.get(key);
        return col == null ? 0 : col.log.evictions();
    }

    /** Per (column, epoch) key, the indices a key holds now. */
    Map<Long, Integer> held() {
        Map<Long, Integer> held = new TreeMap<>();
        columns.forEach((key, col) -> held.put(key, col.log.held()));
        return held;
    }

    /**
     * Writes each column's vocabulary file (the key each index holds) and closes its assignments
     * file; fails if an assignment of a block in {@code rows.bin} never arrived.
     */
    void finish() throws IOException {
        for (Map.Entry<Long, Column> e : columns.entrySet()) {
            Column col = e.getValue();
            col.file.close();
            if (lacksAssignments(col)) {
                throw new IllegalStateException(
                        col.name
                                + ": assignments from "
                                + col.log.next()
                                + " never arrived, though rows.bin holds blocks after them");
            }
            try (OutputStream out =
                    new BufferedOutputStream(NamedOutput.open(col.vocabFile), 1 << 16)) {
                col.log.writeMap(out);
            }
        }
    }

    private static long number(ConsumerRecord<byte[], byte[]> r, String key, String where) {
        Header h = r.headers().lastHeader(key);
        if (h == null) {
            throw new IllegalStateException(where + ": no " + key + " header");
        }
        String text = new String(h.value(), StandardCharsets.US_ASCII);
        try {
            long v = Long.parseLong(text);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new IllegalStateException(where + ": " + key + " \"" + text + "\" is not a count");
    }
}
