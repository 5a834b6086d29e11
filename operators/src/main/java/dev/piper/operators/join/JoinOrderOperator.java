package dev.piper.operators.join;

import dev.piper.core.block.Lanes;
import dev.piper.core.block.LogRecord;
import dev.piper.core.join.ImpressionLines;
import dev.piper.core.join.JoinDeadLetter;
import dev.piper.core.join.JoinedLine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Puts the rows of every key's join in the join's order ({@link JoinedLine#ORDER}, the batch
 * join's) and hands them on as the records of one lane of the pipeline: a row of emission time
 * {@code t} goes out once the watermark is at {@code t}, when every key's join has emitted every
 * row of that time (a key's timers fire before the watermark passes on). Runs at parallelism 1; the
 * rows waiting for the watermark and the next record number are its checkpointed state.
 *
 * <p>A row whose impression the join held by position ({@link JoinedLine#labelsOnly}) gets its line
 * here, as it goes out: the lines of the rows one watermark lets go are read back from the
 * impressions' topic together, per partition in the order of their offsets ({@link
 * ImpressionLines}), and the labels spliced in. A line the topic no longer has makes the row a dead
 * letter ({@value #LINE_GONE}) on {@link #DEAD_LETTERS}, counted with the join's.
 */
public final class JoinOrderOperator extends AbstractStreamOperator<LogRecord>
        implements OneInputStreamOperator<JoinedLine, LogRecord> {

    private static final long serialVersionUID = 1L;

    /** The lane of the joined rows: pipeline 0, partition 0. */
    public static final int LANE = Lanes.of(0, 0);

    /** The reason of a row whose impression's line its topic no longer has. */
    public static final String LINE_GONE = "impression_gone";

    /** The rows whose impressions' lines are gone, as dead letters. */
    public static final OutputTag<JoinDeadLetter> DEAD_LETTERS =
            new OutputTag<>(
                    "label-join-order-dead-letters", JoinRecordSerializers.JOIN_DEAD_LETTER);

    /** Opens the impressions' lines where rows hold their labels only; null: none may. */
    private final ImpressionLines.Opener opener;

    private transient ImpressionLines lines;
    private transient Counter deadLetters;
    private transient Counter linesGone;

    /** The rows not yet handed on: in order up to {@link #sorted}, as they came after it. */
    private transient ArrayList<JoinedLine> waiting;

    private transient int sorted;
    private transient long next;
    private transient ListState<JoinedLine> waitingState;
    private transient ListState<Long> nextState;

    /** An order lane whose rows all come with their lines. */
    public JoinOrderOperator() {
        this(null);
    }

    /**
     * @param opener opens the impressions' lines, read back for the rows that hold their labels
     *     only (on the first such row); null if no row may
     */
    public JoinOrderOperator(ImpressionLines.Opener opener) {
        this.opener = opener;
    }

    @Override
    public void open() throws Exception {
        super.open();
        MetricGroup g = getRuntimeContext().getMetricGroup().addGroup(LabelJoinMetrics.GROUP);
        deadLetters = g.counter(LabelJoinMetrics.DEAD_LETTERS);
        linesGone =
                g.addGroup(LabelJoinMetrics.REASON, LINE_GONE)
                        .counter(LabelJoinMetrics.DEAD_LETTERS_BY_REASON);
    }

    @Override
    public void close() throws Exception {
        try {
            if (lines != null) {
                lines.close();
                lines = null;
            }
        } finally {
            super.close();
        }
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        if (getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks() != 1) {
            throw new IllegalStateException(
                    "the label join's order runs at parallelism 1, not "
                            + getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
        }
        waiting = new ArrayList<>();
        sorted = 0;
        waitingState =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "label-join-waiting-rows",
                                        JoinRecordSerializers.JOINED_LINE));
        nextState =
                context.getOperatorStateStore()
                        .getListState(new ListStateDescriptor<>("label-join-next", Types.LONG));
        if (context.isRestored()) {
            for (JoinedLine l : waitingState.get()) {
                waiting.add(l);
            }
            for (Long n : nextState.get()) {
                next = n;
            }
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        waitingState.update(java.util.List.copyOf(waiting));
        nextState.update(java.util.List.of(next));
    }

    @Override
    public void processElement(StreamRecord<JoinedLine> element) {
        waiting.add(element.getValue());
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        long w = mark.getTimestamp();
        if (sorted < waiting.size()) {
            // each key join hands its rows on in the order of their times: a few sorted runs,
            // which the list's merge sort joins in about one pass
            waiting.sort(JoinedLine.ORDER);
            sorted = waiting.size();
        }
        int n = 0;
        while (n < waiting.size() && waiting.get(n).emitTimeMs() <= w) {
            n++;
        }
        byte[][] read = readBack(n);
        for (int i = 0; i < n; i++) {
            JoinedLine l = waiting.get(i);
            if (!l.labelsOnly()) {
                emit(l, l.line());
                continue;
            }
            byte[] line = read[i] == null ? null : l.spliceInto(read[i]);
            if (line == null) {
                gone(l, read[i] == null);
            } else {
                emit(l, line);
            }
        }
        waiting.subList(0, n).clear();
        sorted -= n;
        super.processWatermark(mark);
    }

    /**
     * The impressions' lines of the labels-only rows among the first {@code n} waiting, by row
     * (null where a row has its line, or where its topic no longer has it): read per partition, in
     * the order of their offsets.
     */
    private byte[][] readBack(int n) throws IOException {
        byte[][] read = new byte[n][];
        Integer[] rows = null;
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (waiting.get(i).labelsOnly()) {
                if (rows == null) {
                    rows = new Integer[n - i];
                }
                rows[m++] = i;
            }
        }
        if (m == 0) {
            return read;
        }
        if (lines == null) {
            if (opener == null) {
                throw new IllegalStateException(
                        "a row of the label join holds its labels only, and this job reads no"
                                + " impressions' lines back (--join-lines topic)");
            }
            lines = opener.open();
        }
        Arrays.sort(
                rows,
                0,
                m,
                Comparator.comparingInt((Integer i) -> waiting.get(i).partition())
                        .thenComparingLong(i -> waiting.get(i).offset()));
        long[] offsets = new long[m];
        for (int from = 0; from < m; ) {
            int partition = waiting.get(rows[from]).partition();
            int to = from;
            int distinct = 0;
            while (to < m && waiting.get(rows[to]).partition() == partition) {
                long o = waiting.get(rows[to]).offset();
                if (distinct == 0 || offsets[distinct - 1] != o) {
                    offsets[distinct++] = o; // a row and its positive copy share a line
                }
                to++;
            }
            byte[][] got = lines.read(partition, Arrays.copyOf(offsets, distinct));
            for (int r = from; r < to; r++) {
                read[rows[r]] =
                        got[
                                Arrays.binarySearch(
                                        offsets, 0, distinct, waiting.get(rows[r]).offset())];
            }
            from = to;
        }
        return read;
    }

    /**
     * Hands {@code l} on, as {@code line}, as the lane's next record, without a line break: a row
     * of a checkpoint taken by an earlier build, which wrote one, loses it.
     */
    private void emit(JoinedLine l, byte[] line) {
        if (line.length > 0 && line[line.length - 1] == '\n') {
            line = Arrays.copyOf(line, line.length - 1);
        }
        output.collect(
                new StreamRecord<>(
                        new LogRecord(LANE, next++, l.emitTimeMs(), line), l.emitTimeMs()));
    }

    /** The row {@code l} as a dead letter: its impression's line is gone from its topic. */
    private void gone(JoinedLine l, boolean missing) {
        deadLetters.inc();
        linesGone.inc();
        String detail =
                (missing
                                ? "its topic no longer has the impression (its retention or"
                                        + " compaction removed it)"
                                : "its topic now has another record there, not a JSON object")
                        + " when its row was made at event time "
                        + l.emitTimeMs()
                        + "; key "
                        + l.key()
                        + (l.copyOf() >= 0 ? ", positive copy of stream " + l.copyOf() : "");
        output.collect(
                DEAD_LETTERS,
                new StreamRecord<>(
                        new JoinDeadLetter(
                                "impressions",
                                0,
                                l.partition(),
                                l.offset(),
                                LINE_GONE,
                                detail,
                                new byte[0],
                                false),
                        l.emitTimeMs()));
    }

    /** The rows waiting for the watermark. */
    int waiting() {
        return waiting.size();
    }
}
