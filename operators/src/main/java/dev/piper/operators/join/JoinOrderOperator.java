package dev.piper.operators.join;

import dev.piper.core.block.Lanes;
import dev.piper.core.block.LogRecord;
import dev.piper.core.join.JoinedLine;
import java.util.ArrayList;
import java.util.Arrays;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Puts the rows of every key's join in the join's order ({@link JoinedLine#ORDER}, the batch
 * join's) and hands them on as the records of one lane of the pipeline: a row of emission time
 * {@code t} goes out once the watermark is at {@code t}, when every key's join has emitted every
 * row of that time (a key's timers fire before the watermark passes on). Runs at parallelism 1; the
 * rows waiting for the watermark and the next record number are its checkpointed state.
 */
public final class JoinOrderOperator extends AbstractStreamOperator<LogRecord>
        implements OneInputStreamOperator<JoinedLine, LogRecord> {

    private static final long serialVersionUID = 1L;

    /** The lane of the joined rows: pipeline 0, partition 0. */
    public static final int LANE = Lanes.of(0, 0);

    /** The rows not yet handed on: in order up to {@link #sorted}, as they came after it. */
    private transient ArrayList<JoinedLine> waiting;

    private transient int sorted;
    private transient long next;
    private transient ListState<JoinedLine> waitingState;
    private transient ListState<Long> nextState;

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
            emit(waiting.get(n++));
        }
        waiting.subList(0, n).clear();
        sorted -= n;
        super.processWatermark(mark);
    }

    /**
     * Hands {@code l} on as the lane's next record, without a line break: a row of a checkpoint
     * taken by an earlier build, which wrote one, loses it.
     */
    private void emit(JoinedLine l) {
        byte[] line = l.line();
        if (line.length > 0 && line[line.length - 1] == '\n') {
            line = Arrays.copyOf(line, line.length - 1);
        }
        output.collect(
                new StreamRecord<>(
                        new LogRecord(LANE, next++, l.emitTimeMs(), line), l.emitTimeMs()));
    }

    /** The rows waiting for the watermark. */
    int waiting() {
        return waiting.size();
    }
}
