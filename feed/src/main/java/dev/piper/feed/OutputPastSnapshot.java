package dev.piper.feed;

import dev.piper.core.block.FastForward;
import dev.piper.core.block.Lanes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * What a stream's output topics hold past the snapshot it is about to resume from, as a {@link
 * FastForward}: the rows and vocabulary records whose commit stamp ({@link RowsRecord#CHECKPOINT})
 * is above the snapshot's.
 *
 * <p>Stamps grow along a topic ({@code CheckpointStamp} in {@code connectors}), but for the records
 * of two successive checkpoints, which different sink tasks may interleave (one has passed the
 * barrier, another not yet), and a savepoint taken while a checkpoint runs. So each partition is
 * read back from its end, in ever larger steps, until a record stamped at least two below the
 * snapshot's, or the partition's beginning: everything stamped above the snapshot's lies after that
 * record.
 *
 * <p>The result is checked before any job starts: each lane's blocks past the snapshot run without
 * gaps, each column's entries past it run without gaps and reach the position the rows records
 * state, every record names its pipeline's shape the way a fast-forward can take (no Hotline split,
 * no evicting vocabulary). Where one does not hold, the resume is refused naming the record.
 */
public final class OutputPastSnapshot {

    /** One pipeline's input topic and output topics (no vocabulary topic: null). */
    public record Pipeline(
            int index, String name, String inputTopic, String rowsTopic, String vocabTopic) {}

    /**
     * The fast-forward, and a line per lane and column saying what it passes over.
     *
     * @param fastForward what the output holds past the snapshot
     * @param summary what it passes over, in words: a line per lane, then the entries per pipeline
     * @param rowsRecords how many rows records past the snapshot were found
     * @param recordsRead how many records of the rows and vocabulary topics were read to find them
     */
    public record Result(
            FastForward fastForward, List<String> summary, long rowsRecords, long recordsRead) {}

    /** Why a resume cannot pass over the output past its snapshot. */
    public static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    private final String bootstrapServers;
    private final Map<String, String> client;
    private final Duration wait;

    /** Records read back so far. */
    private long read;

    /**
     * @param client the Kafka client's properties (security and the like)
     * @param wait how long a partition's read may take at most
     */
    public OutputPastSnapshot(String bootstrapServers, Map<String, String> client, Duration wait) {
        this.bootstrapServers = bootstrapServers;
        this.client = Map.copyOf(client);
        this.wait = wait;
    }

    /** What a rows record past the snapshot says, its value dropped. */
    private record RowsPast(
            String where,
            int lane,
            long block,
            long lastOffset,
            long[] position,
            int[] epochs,
            int[] buckets) {}

    /** A vocabulary record past the snapshot. */
    private record VocabPast(String where, int epoch, long firstIndex, int buckets, long[] keys) {}

    /**
     * Reads what {@code pipelines}' topics hold stamped above {@code snapshotStamp}.
     *
     * @throws Refused naming the record where the output past the snapshot cannot be passed over
     * @throws IOException if a partition cannot be read within the wait
     */
    public Result read(List<Pipeline> pipelines, long snapshotStamp) throws IOException {
        long floor = snapshotStamp;
        Map<Integer, FastForward.LaneTail> lanes = new HashMap<>();
        Map<Long, FastForward.Entries> columns = new HashMap<>();
        List<String> summary = new ArrayList<>();
        long records = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                CommittedReads.consumer(bootstrapServers, client)) {
            for (Pipeline p : pipelines) {
                List<RowsPast> rows = new ArrayList<>();
                long[] highest = {floor};
                for (TopicPartition tp : CommittedTail.partitions(consumer, p.rowsTopic(), wait)) {
                    readBack(
                            consumer,
                            tp,
                            snapshotStamp,
                            (r, stamp) -> {
                                highest[0] = Math.max(highest[0], stamp);
                                if (stamp > snapshotStamp) {
                                    rows.add(rowsPast(p, r));
                                }
                            });
                }
                floor = Math.max(floor, highest[0]);
                if (rows.isEmpty()) {
                    continue;
                }
                records += rows.size();
                Map<Integer, FastForward.LaneTail> tails = laneTails(p, rows, summary);
                lanes.putAll(tails);
                if (p.vocabTopic() == null) {
                    throw new Refused(
                            "pipeline "
                                    + p.name()
                                    + " has no vocabulary topic, whose entries a resume needs to"
                                    + " pass over the output committed after its snapshot ("
                                    + rows.get(0).where()
                                    + " and on)");
                }
                Map<Integer, List<VocabPast>> vocab = new TreeMap<>();
                for (TopicPartition tp : CommittedTail.partitions(consumer, p.vocabTopic(), wait)) {
                    readBack(
                            consumer,
                            tp,
                            snapshotStamp,
                            (r, stamp) -> {
                                if (stamp > snapshotStamp
                                        && r.headers().lastHeader(StreamFormat.HOTLINE_WINDOW)
                                                == null) {
                                    vocabPast(r, vocab);
                                }
                            });
                }
                columns.putAll(entries(p, rows, vocab, summary));
            }
        }
        return new Result(new FastForward(floor, lanes, columns), summary, records, read);
    }

    /** Sees a committed record and its stamp (0 for none). */
    private interface Visitor {
        void visit(ConsumerRecord<byte[], byte[]> r, long stamp) throws IOException;
    }

    /**
     * Reads {@code tp} back from its end in ever larger windows, each record once (in offset order
     * within a window), until a window holding one stamped two or more below {@code snapshotStamp}
     * (an unstamped one counts as 0), or its beginning.
     */
    private void readBack(
            KafkaConsumer<byte[], byte[]> consumer,
            TopicPartition tp,
            long snapshotStamp,
            Visitor visitor)
            throws IOException {
        consumer.assign(List.of(tp));
        long beginning = consumer.beginningOffsets(List.of(tp), wait).get(tp);
        long to = consumer.endOffsets(List.of(tp), wait).get(tp);
        for (long step = 16; to > beginning; step *= 4) {
            long from = Math.max(beginning, to - step);
            boolean[] done = {false};
            // each record as it comes (a window of rows records may not fit the heap)
            CommittedTail.window(
                    consumer,
                    tp,
                    from,
                    to,
                    wait,
                    r -> {
                        read++;
                        long stamp = stamp(r);
                        visitor.visit(r, stamp);
                        done[0] |= stamp <= snapshotStamp - 2;
                    });
            if (done[0]) {
                return;
            }
            to = from;
        }
    }

    /** The record's commit stamp, 0 if it has none. */
    public static long stamp(ConsumerRecord<byte[], byte[]> r) {
        Header h = r.headers().lastHeader(RowsRecord.CHECKPOINT);
        return h == null ? 0 : Long.parseLong(new String(h.value(), StandardCharsets.US_ASCII));
    }

    private static RowsPast rowsPast(Pipeline p, ConsumerRecord<byte[], byte[]> r)
            throws IOException {
        RowsRecord rows = RowsRecord.of(r);
        if (rows.hotlineFirstRow() >= 0 || rows.evicts() != null) {
            throw new Refused(
                    rows.where()
                            + ", committed after the snapshot, holds "
                            + (rows.hotlineFirstRow() >= 0
                                    ? "rows of Hotline's split, whose state"
                                    : "the rows of an evicting vocabulary, whose counts")
                            + " the output does not hold, so a resume cannot pass over it");
        }
        if (rows.inputOffsets() == null || rows.vocabPosition() == null) {
            throw new Refused(
                    rows.where()
                            + ", committed after the snapshot, states no input offsets or no"
                            + " vocabulary position (written by an older build?), so a resume"
                            + " cannot pass over it");
        }
        return new RowsPast(
                rows.where(),
                Lanes.of(p.index(), rows.inputPartition()),
                rows.block(),
                rows.inputOffsets()[1],
                rows.vocabPosition(),
                rows.epochs(),
                rows.buckets());
    }

    /** Each lane's blocks past the snapshot, checked to run without gaps. */
    private static Map<Integer, FastForward.LaneTail> laneTails(
            Pipeline p, List<RowsPast> rows, List<String> summary) throws Refused {
        Map<Integer, List<RowsPast>> byLane = new TreeMap<>();
        for (RowsPast r : rows) {
            byLane.computeIfAbsent(r.lane(), k -> new ArrayList<>()).add(r);
        }
        Map<Integer, FastForward.LaneTail> tails = new HashMap<>();
        for (Map.Entry<Integer, List<RowsPast>> e : byLane.entrySet()) {
            List<RowsPast> blocks = e.getValue();
            blocks.sort(Comparator.comparingLong(RowsPast::block));
            for (int i = 1; i < blocks.size(); i++) {
                if (blocks.get(i).block() != blocks.get(i - 1).block() + 1) {
                    throw new Refused(
                            "input partition "
                                    + Lanes.partition(e.getKey())
                                    + " of pipeline "
                                    + p.name()
                                    + ": the output committed after the snapshot holds block "
                                    + blocks.get(i - 1).block()
                                    + " ("
                                    + blocks.get(i - 1).where()
                                    + ") and then block "
                                    + blocks.get(i).block()
                                    + " ("
                                    + blocks.get(i).where()
                                    + "), a gap or a block twice, so a resume cannot pass over"
                                    + " it");
                }
            }
            RowsPast first = blocks.get(0);
            RowsPast last = blocks.get(blocks.size() - 1);
            tails.put(
                    e.getKey(),
                    new FastForward.LaneTail(first.block(), last.block(), last.lastOffset()));
            summary.add(
                    String.format(
                            "%s/%d: blocks %d to %d, input to offset %d",
                            p.inputTopic(),
                            Lanes.partition(e.getKey()),
                            first.block(),
                            last.block(),
                            last.lastOffset()));
        }
        return tails;
    }

    private static void vocabPast(
            ConsumerRecord<byte[], byte[]> r, Map<Integer, List<VocabPast>> to) throws IOException {
        String where = r.topic() + "/" + r.partition() + "@" + r.offset();
        if (EvictingVocabularies.evicting(r)) {
            throw new Refused(
                    where
                            + ", committed after the snapshot, holds an evicting vocabulary's"
                            + " assignments, whose counts the output does not hold, so a resume"
                            + " cannot pass over it");
        }
        String name = OutputConsumer.optionalHeader(r, StreamFormat.COLUMN);
        if (!name.matches("C[1-9][0-9]*")) {
            throw new Refused(where + ": not a vocabulary record (column '" + name + "')");
        }
        String epochText = OutputConsumer.optionalHeader(r, StreamFormat.EPOCH);
        String bucketText = OutputConsumer.optionalHeader(r, StreamFormat.OOV_BUCKETS);
        int count = Integer.parseInt(OutputConsumer.optionalHeader(r, StreamFormat.COUNT));
        long first = Long.parseLong(OutputConsumer.optionalHeader(r, StreamFormat.FIRST_INDEX));
        String text = r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8);
        long[] keys = new long[count];
        int at = 0;
        int n = 0;
        while (at < text.length()) {
            int end = text.indexOf('\n', at);
            int tab = text.indexOf('\t', at);
            if (end < 0 || tab < 0 || tab > end || n == count) {
                throw new Refused(where + ": entry " + (n + 1) + " is not index<TAB>key");
            }
            if (Long.parseLong(text.substring(at, tab)) != first + n) {
                throw new Refused(where + ": entry " + (n + 1) + " is out of index order");
            }
            int keyEnd = text.indexOf('\t', tab + 1);
            keys[n++] =
                    Long.parseUnsignedLong(
                            text.substring(tab + 1, keyEnd < 0 || keyEnd > end ? end : keyEnd));
            at = end + 1;
        }
        if (n != count) {
            throw new Refused(where + ": " + count + " entries announced, " + n + " in the value");
        }
        int column = Integer.parseInt(name.substring(1)) - 1;
        to.computeIfAbsent(column, k -> new ArrayList<>())
                .add(
                        new VocabPast(
                                where,
                                epochText.isEmpty() ? 0 : Integer.parseInt(epochText),
                                first,
                                bucketText.isEmpty() ? 0 : Integer.parseInt(bucketText),
                                keys));
    }

    /**
     * Each sparse column's entries past the snapshot, checked to run without gaps up to the
     * position the rows records past it state; a column that gained none, its position as an empty
     * run (the restored vocabulary must reach it).
     */
    private static Map<Long, FastForward.Entries> entries(
            Pipeline p,
            List<RowsPast> rows,
            Map<Integer, List<VocabPast>> vocab,
            List<String> summary)
            throws Refused {
        RowsPast furthest = rows.get(0);
        int sparse = furthest.position().length;
        long[] end = new long[sparse];
        String[] endWhere = new String[sparse];
        for (RowsPast r : rows) {
            if (r.position().length != sparse) {
                throw new Refused(
                        r.where()
                                + " and "
                                + furthest.where()
                                + " state positions of different column counts");
            }
            for (int c = 0; c < sparse; c++) {
                if (r.position()[c] >= end[c]) {
                    end[c] = r.position()[c];
                    endWhere[c] = r.where();
                }
            }
        }
        for (int column : vocab.keySet()) {
            if (column >= sparse) {
                throw new Refused(
                        vocab.get(column).get(0).where()
                                + ": column C"
                                + (column + 1)
                                + " is not one of the "
                                + sparse
                                + " sparse columns of the rows committed after the snapshot");
            }
        }
        Map<Long, FastForward.Entries> entries = new HashMap<>();
        long total = 0;
        for (int c = 0; c < sparse; c++) {
            FastForward.Entries e =
                    column(
                            p,
                            c,
                            furthest.epochs()[c],
                            furthest.buckets()[c],
                            vocab.getOrDefault(c, List.of()),
                            end[c],
                            endWhere[c]);
            total += e.keys().length;
            entries.put(FastForward.columnKey(p.index(), c), e);
        }
        summary.add(
                String.format(
                        "pipeline %s: %,d vocabulary entries of %d columns",
                        p.name(), total, sparse));
        return entries;
    }

    /**
     * Column {@code c}'s entries past the snapshot: its vocabulary {@code records} in index order,
     * checked to run without gaps up to {@code end}, the position the rows records past it state
     * (the furthest at {@code endWhere}).
     */
    private static FastForward.Entries column(
            Pipeline p,
            int c,
            int epoch,
            int buckets,
            List<VocabPast> records,
            long end,
            String endWhere)
            throws Refused {
        String column = "C" + (c + 1);
        records = new ArrayList<>(records);
        records.sort(Comparator.comparingLong(VocabPast::firstIndex));
        long from = records.isEmpty() ? buckets + end : records.get(0).firstIndex();
        long next = from;
        List<long[]> runs = new ArrayList<>();
        for (VocabPast v : records) {
            if (v.epoch() != epoch || v.buckets() != buckets) {
                throw new Refused(
                        v.where()
                                + ": column "
                                + column
                                + "'s entries of epoch "
                                + v.epoch()
                                + " with "
                                + v.buckets()
                                + " OOV buckets, where the rows committed after the"
                                + " snapshot state epoch "
                                + epoch
                                + " with "
                                + buckets
                                + ": a resume cannot pass over them");
            }
            if (v.firstIndex() != next) {
                throw new Refused(
                        v.where()
                                + ": column "
                                + column
                                + "'s entries from index "
                                + v.firstIndex()
                                + " follow those up to index "
                                + (next - 1)
                                + " in the output committed after the snapshot: "
                                + (v.firstIndex() < next ? "seen twice" : "a gap")
                                + ", so a resume cannot pass over it");
            }
            next += v.keys().length;
            runs.add(v.keys());
        }
        if (next - buckets != end) {
            throw new Refused(
                    endWhere
                            + " states column "
                            + column
                            + " at "
                            + end
                            + " entries, but the vocabulary topic "
                            + p.vocabTopic()
                            + " holds its entries past the snapshot up to "
                            + (next - buckets)
                            + " only: vocabulary records missing (or written by an older"
                            + " build without commit stamps), so a resume cannot pass over"
                            + " the output");
        }
        long[] keys = new long[(int) (next - from)];
        int at = 0;
        for (long[] run : runs) {
            System.arraycopy(run, 0, keys, at, run.length);
            at += run.length;
        }
        return new FastForward.Entries(epoch, from, keys);
    }
}
