package dev.piper.operators.log;

import dev.piper.core.block.FastForward;
import dev.piper.core.block.Lanes;
import dev.piper.core.block.LogRecord;
import dev.piper.core.block.Origin;
import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import dev.piper.pipeline.input.InputFormat.KafkaRecords;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers the records of a partitioned log into line-aligned blocks, one lane per partition, for
 * the decoder chained after it.
 *
 * <p>A lane's block is cut when it reaches {@code maxBlockLines} lines or {@code maxBlockBytes}
 * bytes, when its first record has waited {@code lingerMillis} (processing time), before every
 * checkpoint barrier and at the end of the input. Cutting before the barrier means no partial block
 * is ever part of a checkpoint: the state is only each lane's next sequence number, and a restore
 * re-reads exactly the records after the source's checkpointed offsets.
 *
 * <p>Lines: a record's value is split at {@code \n} (a pipeline of JSON events takes each record
 * whole, its line breaks as spaces: {@link LogRecord#oneLine}); a final {@code \n} ends the last
 * line rather than starting an empty one, and an empty value is one empty line (which the decoder
 * turns into a dead letter, so that every record is accounted for). A record with more lines than a
 * block holds is continued in the next block.
 *
 * <p>Sequence numbers count each lane's blocks from 0 without gaps, the order {@code
 * LaneSequenceFunction} restores after the column operators. They live in union list state, so that
 * after a rescale a partition's counter reaches whichever subtask now reads it; a subtask also
 * keeps counters of partitions it no longer reads, and a restore takes the largest value found for
 * each partition (counters only grow).
 *
 * <p>With a {@link FastForward} ({@link #withFastForward}), a restored lane whose blocks past the
 * snapshot an earlier run has committed numbers its next block after the last of them and passes
 * over the input records they cover, counting them; a restored counter that is neither the first of
 * those blocks nor past them fails the job, naming both.
 */
public final class LogChunkOperator extends AbstractStreamOperator<RawChunk>
        implements OneInputStreamOperator<LogRecord, RawChunk> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(LogChunkOperator.class);

    public static final ListStateDescriptor<Tuple2<Integer, Long>> NEXT_SEQ =
            new ListStateDescriptor<>("log-lane-next-seq", Types.TUPLE(Types.INT, Types.LONG));

    /**
     * By lane: the last input offset a fast-forward passes over and the block it goes on with, kept
     * in every checkpoint until the lane has cut that block, so that a resume from one of them
     * passes over the same records (a restore drops it where the lane's counter is past the block).
     */
    public static final ListStateDescriptor<Tuple3<Integer, Long, Long>> SKIP_THROUGH =
            new ListStateDescriptor<>(
                    "log-lane-skip-through", Types.TUPLE(Types.INT, Types.LONG, Types.LONG));

    private final int maxBlockBytes;

    /** Per pipeline (the pipeline part of a lane, {@link Lanes}): its most lines per block. */
    private final int[] maxBlockLines;

    private final long lingerMillis;

    /** Per pipeline: how its records hold events. */
    private final KafkaRecords[] shapes;

    /** By lane: the committed blocks past the restored snapshot; empty without a fast-forward. */
    private HashMap<Integer, FastForward.LaneTail> fastForward = new HashMap<>();

    private transient Map<Integer, Lane> lanes;
    private transient ListState<Tuple2<Integer, Long>> nextSeqState;
    private transient ListState<Tuple3<Integer, Long, Long>> skipState;
    private transient long timerAt;

    /**
     * @param maxBlockBytes a block is cut once it holds this many bytes (a single larger record
     *     still forms one block)
     * @param maxBlockLines a block never holds more lines (rows) than this
     * @param lingerMillis a block is cut at the latest this long after its first record arrived
     */
    public LogChunkOperator(int maxBlockBytes, int maxBlockLines, long lingerMillis) {
        this(maxBlockBytes, sameForAll(maxBlockLines), lingerMillis);
    }

    /**
     * @param maxBlockLines per pipeline, by index: a block of its lanes never holds more lines
     *     (rows) than this (rows of a wider layout need fewer to a record)
     */
    public LogChunkOperator(int maxBlockBytes, int[] maxBlockLines, long lingerMillis) {
        this(maxBlockBytes, maxBlockLines, new boolean[maxBlockLines.length], lingerMillis);
    }

    /**
     * @param wholeRecords per pipeline, by index: whether each record is one event (JSON), whose
     *     line breaks are whitespace: they become spaces, and the record one line
     */
    public LogChunkOperator(
            int maxBlockBytes, int[] maxBlockLines, boolean[] wholeRecords, long lingerMillis) {
        this(maxBlockBytes, maxBlockLines, shapes(wholeRecords), lingerMillis);
    }

    private static KafkaRecords[] shapes(boolean[] wholeRecords) {
        KafkaRecords[] shapes = new KafkaRecords[wholeRecords.length];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = wholeRecords[i] ? KafkaRecords.ONE_LINE : KafkaRecords.LINES;
        }
        return shapes;
    }

    /**
     * @param shapes per pipeline, by index: how its records hold events
     */
    public LogChunkOperator(
            int maxBlockBytes, int[] maxBlockLines, KafkaRecords[] shapes, long lingerMillis) {
        if (shapes.length != maxBlockLines.length) {
            throw new IllegalArgumentException("one record framing per pipeline");
        }
        this.shapes = shapes.clone();
        int fewest = Integer.MAX_VALUE;
        for (int lines : maxBlockLines) {
            fewest = Math.min(fewest, lines);
        }
        if (maxBlockBytes < 1 || maxBlockLines.length == 0 || fewest < 1 || lingerMillis < 1) {
            throw new IllegalArgumentException(
                    "block bytes, block lines and linger must be positive: "
                            + maxBlockBytes
                            + ", "
                            + Arrays.toString(maxBlockLines)
                            + ", "
                            + lingerMillis);
        }
        this.maxBlockBytes = maxBlockBytes;
        this.maxBlockLines = maxBlockLines.clone();
        this.lingerMillis = lingerMillis;
    }

    /**
     * This operator, fast-forwarding each lane of {@code tails} past its committed blocks on a
     * restore ({@link FastForward#lanes()}).
     */
    public LogChunkOperator withFastForward(Map<Integer, FastForward.LaneTail> tails) {
        this.fastForward = new HashMap<>(tails);
        return this;
    }

    private static int[] sameForAll(int lines) {
        int[] all = new int[Lanes.MAX_PIPELINES];
        Arrays.fill(all, lines);
        return all;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        lanes = new HashMap<>();
        timerAt = Long.MAX_VALUE;
        nextSeqState = context.getOperatorStateStore().getUnionListState(NEXT_SEQ);
        skipState = context.getOperatorStateStore().getUnionListState(SKIP_THROUGH);
        if (context.isRestored()) {
            for (Tuple2<Integer, Long> entry : nextSeqState.get()) {
                Lane lane = lane(entry.f0);
                lane.nextSeq = Math.max(lane.nextSeq, entry.f1);
            }
            for (Tuple3<Integer, Long, Long> entry : skipState.get()) {
                Lane lane = lane(entry.f0);
                if (lane.nextSeq == entry.f2) {
                    lane.skipThrough = Math.max(lane.skipThrough, entry.f1);
                }
            }
        }
        for (Map.Entry<Integer, FastForward.LaneTail> e : fastForward.entrySet()) {
            if (!context.isRestored()) {
                throw new IllegalStateException(
                        "a fast-forward past committed output needs a restored snapshot");
            }
            fastForward(lane(e.getKey()), e.getValue());
        }
    }

    /**
     * Moves {@code lane} past {@code tail}: from the first committed block past the snapshot, its
     * next block is the one after the last, and the records up to the last offset are passed over;
     * at that next block (restored from a checkpoint taken since, before any new block), only the
     * records are; past it, nothing.
     */
    private static void fastForward(Lane lane, FastForward.LaneTail tail) {
        long restored = lane.nextSeq;
        if (restored > tail.lastBlock() + 1) {
            return; // its own checkpoints hold what it still passes over
        }
        if (restored != tail.firstBlock() && restored != tail.lastBlock() + 1) {
            throw new IllegalStateException(
                    "lane "
                            + Lanes.partition(lane.partition)
                            + " of pipeline "
                            + Lanes.pipeline(lane.partition)
                            + ": the restored snapshot numbers its next block "
                            + restored
                            + ", but the output committed past it holds blocks "
                            + tail.firstBlock()
                            + " to "
                            + tail.lastBlock()
                            + ", so the two do not fit together (output missing between them?)"
                            + " and the stream does not go on from there");
        }
        lane.nextSeq = tail.lastBlock() + 1;
        lane.skipThrough = tail.lastOffset();
    }

    private Lane lane(int partition) {
        return lanes.computeIfAbsent(partition, Lane::new);
    }

    @Override
    public void processElement(StreamRecord<LogRecord> element) {
        LogRecord r = element.getValue();
        Lane lane = lane(r.lane());
        if (lane.skipThrough >= 0) {
            if (r.offset() <= lane.skipThrough) {
                lane.skipped++; // committed by an earlier run (a fast-forward)
                return;
            }
            if (lane.skipped > 0) {
                LOG.info(
                        "lane {} of pipeline {}: passed over {} input records up to offset {},"
                                + " whose output an earlier run committed; block {} starts at"
                                + " offset {}",
                        Lanes.partition(lane.partition),
                        Lanes.pipeline(lane.partition),
                        lane.skipped,
                        lane.skipThrough,
                        lane.nextSeq,
                        r.offset());
            }
            lane.skipThrough = -1;
        }
        int maxBlockLines = this.maxBlockLines[Lanes.pipeline(r.lane())];
        KafkaRecords shape = shapes[Lanes.pipeline(r.lane())];
        if (shape == KafkaRecords.FRAME) {
            byte[] v = r.value();
            makeRoom(lane, maxBlockLines, 1, RecordFrames.HEADER + v.length);
            lane.addFrame(r.offset(), r.timestamp(), v);
            emitIfFull(lane, maxBlockLines);
            return;
        }
        byte[] v = shape == KafkaRecords.ONE_LINE ? LogRecord.oneLine(r.value()) : r.value();
        int n = v.length;
        int newlines = 0;
        for (int i = 0; i < n; i++) {
            if (v[i] == '\n') {
                newlines++;
            }
        }
        boolean terminated = n > 0 && v[n - 1] == '\n';
        int lines = terminated ? newlines : newlines + 1;
        int bytes = terminated ? n : n + 1;
        if (lines <= maxBlockLines) {
            makeRoom(lane, maxBlockLines, lines, bytes);
            lane.add(r.offset(), r.timestamp(), v, 0, n, lines, !terminated);
        } else {
            int start = 0;
            while (start < bytes) {
                int end = start;
                int piece = 0;
                int room = maxBlockLines - lane.lines;
                if (room == 0) {
                    emit(lane);
                    room = maxBlockLines;
                }
                while (end < n && piece < room) {
                    int nl = indexOf(v, end, n);
                    end = nl < 0 ? n : nl + 1;
                    piece++;
                }
                open(lane);
                boolean lastPiece = end >= n;
                lane.add(r.offset(), r.timestamp(), v, start, end, piece, lastPiece && !terminated);
                start = lastPiece ? bytes : end;
            }
        }
        emitIfFull(lane, maxBlockLines);
    }

    /**
     * Cuts the lane's block first if {@code lines} more lines of {@code bytes} would not fit it,
     * and opens the lane for them.
     */
    private void makeRoom(Lane lane, int maxBlockLines, int lines, int bytes) {
        if (lane.records > 0
                && (lane.lines + lines > maxBlockLines || lane.length + bytes > maxBlockBytes)) {
            emit(lane);
        }
        open(lane);
    }

    /** Cuts the lane's block if it is full. */
    private void emitIfFull(Lane lane, int maxBlockLines) {
        if (lane.lines >= maxBlockLines || lane.length >= maxBlockBytes) {
            emit(lane);
        }
    }

    private static int indexOf(byte[] v, int from, int to) {
        for (int i = from; i < to; i++) {
            if (v[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** Notes the arrival time of a lane's first record and makes sure a timer will cut it. */
    private void open(Lane lane) {
        if (lane.records > 0) {
            return;
        }
        long now = getProcessingTimeService().getCurrentProcessingTime();
        lane.openedAt = now;
        scheduleAt(now + lingerMillis);
    }

    private void scheduleAt(long time) {
        if (time < timerAt) {
            timerAt = time;
            getProcessingTimeService().registerTimer(time, this::onLinger);
        }
    }

    private void onLinger(long time) {
        if (time != timerAt) {
            return; // superseded by an earlier timer that already ran
        }
        timerAt = Long.MAX_VALUE;
        long earliest = Long.MAX_VALUE;
        for (Lane lane : lanes.values()) {
            if (lane.records == 0) {
                continue;
            }
            if (lane.openedAt + lingerMillis <= time) {
                emit(lane);
            } else {
                earliest = Math.min(earliest, lane.openedAt + lingerMillis);
            }
        }
        if (earliest != Long.MAX_VALUE) {
            scheduleAt(earliest);
        }
    }

    private void emit(Lane lane) {
        if (lane.records == 0) {
            return;
        }
        output.collect(new StreamRecord<>(lane.cut()));
    }

    private void emitAll() {
        for (Lane lane : lanes.values()) {
            emit(lane);
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        emitAll();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<Tuple2<Integer, Long>> entries = new ArrayList<>(lanes.size());
        List<Tuple3<Integer, Long, Long>> skips = new ArrayList<>();
        for (Lane lane : lanes.values()) {
            if (lane.records != 0) {
                throw new IllegalStateException(
                        "partition " + lane.partition + " has an uncut block at a snapshot");
            }
            entries.add(Tuple2.of(lane.partition, lane.nextSeq));
            if (lane.skipThrough >= 0) {
                skips.add(Tuple3.of(lane.partition, lane.skipThrough, lane.nextSeq));
            }
        }
        nextSeqState.update(entries);
        skipState.update(skips);
    }

    @Override
    public void finish() throws Exception {
        emitAll();
        super.finish();
    }

    /** One partition's block under construction. */
    private static final class Lane {
        final int partition;
        long nextSeq;

        /** A fast-forward's last committed input offset, passed over; -1 once past it. */
        long skipThrough = -1;

        /** The records passed over so far. */
        long skipped;

        byte[] data = new byte[4096];
        int length;
        int lines;
        long[] offsets = new long[64];
        int[] firstLines = new int[64];
        int records;
        long firstTimestamp;
        long lastTimestamp;
        long openedAt;

        Lane(int partition) {
            this.partition = partition;
        }

        /**
         * Appends {@code v[from, to)} holding {@code lineCount} lines, and a line break when the
         * piece does not end in one.
         */
        void add(
                long offset,
                long timestamp,
                byte[] v,
                int from,
                int to,
                int lineCount,
                boolean addBreak) {
            reserve(to - from + 1);
            System.arraycopy(v, from, data, length, to - from);
            length += to - from;
            if (addBreak) {
                data[length++] = '\n';
            }
            noteRecord(offset, timestamp, lineCount);
        }

        /** Appends the frame of binary record {@code v}: one line of the block. */
        void addFrame(long offset, long timestamp, byte[] v) {
            reserve(RecordFrames.HEADER + v.length);
            length = RecordFrames.write(data, length, v, 0, v.length, 1);
            noteRecord(offset, timestamp, 1);
        }

        /** Room for {@code bytes} more bytes and one more record. */
        private void reserve(int bytes) {
            int need = length + bytes;
            if (need > data.length) {
                data = Arrays.copyOf(data, Math.max(need, data.length + (data.length >> 1)));
            }
            if (records == offsets.length) {
                offsets = Arrays.copyOf(offsets, records * 2);
                firstLines = Arrays.copyOf(firstLines, records * 2);
            }
        }

        /** Records the log record just appended, holding {@code lineCount} lines. */
        private void noteRecord(long offset, long timestamp, int lineCount) {
            if (records == 0) {
                firstTimestamp = timestamp;
            }
            lastTimestamp = timestamp;
            offsets[records] = offset;
            firstLines[records] = lines;
            records++;
            lines += lineCount;
        }

        RawChunk cut() {
            Origin origin =
                    new Origin(
                            Arrays.copyOf(offsets, records),
                            Arrays.copyOf(firstLines, records),
                            firstTimestamp,
                            lastTimestamp);
            RawChunk chunk = new RawChunk(partition, nextSeq, 0, data, length, -1, origin);
            nextSeq++;
            data = new byte[Math.max(4096, length)];
            length = 0;
            lines = 0;
            records = 0;
            return chunk;
        }
    }
}
