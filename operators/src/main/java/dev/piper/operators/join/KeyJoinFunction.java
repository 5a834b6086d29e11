package dev.piper.operators.join;

import dev.piper.core.join.JoinDeadLetter;
import dev.piper.core.join.JoinInput;
import dev.piper.core.join.JoinedLine;
import dev.piper.core.join.StreamJoinOutput;
import dev.piper.pipeline.join.JoinOutput;
import dev.piper.pipeline.join.LabelSpec;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The label join of the stream, keyed by the join key: each key's {@link JoinKey} in keyed state,
 * advanced by an event-time timer at the next thing it has to do. A Flink watermark {@code W}
 * promises no record of time {@code W} or before, which is the join's watermark {@code W + 1}
 * ({@code docs/SEMANTICS.md}, "Label join"). Rows go out as labelled lines, to be put in order
 * downstream ({@link JoinOrderOperator}); refused records to {@link #DEAD_LETTERS}.
 */
public final class KeyJoinFunction extends KeyedProcessFunction<String, JoinInput, JoinedLine>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** The records the join refused: late, duplicate, after their window, orphan. */
    public static final OutputTag<JoinDeadLetter> DEAD_LETTERS =
            new OutputTag<>("label-join-dead-letters", JoinRecordSerializers.JOIN_DEAD_LETTER);

    private final LabelSpec labels;
    private final int maxRawBytes;
    private transient ValueState<JoinKey> state;
    private transient StreamJoinOutput output;
    private transient LabelJoinMetrics metrics;
    private transient Outcomes sink;

    /**
     * Each subtask's count of the impressions its keys hold, for the impressions-held gauge: union
     * state, so that after a rescale the first subtask starts from the sum of them all and the
     * others from 0 (a key's impressions may then leave on another subtask than they were counted
     * on: each subtask's gauge is its share of the stream's, their sum exact).
     */
    private transient ListState<long[]> heldState;

    private transient long restoredHeld;

    public KeyJoinFunction(LabelSpec labels, int maxRawBytes) {
        this.labels = labels;
        this.maxRawBytes = maxRawBytes;
    }

    @Override
    public void open(OpenContext openContext) {
        state =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>(
                                        "label-join", new JoinKeySerializer(labels.join())));
        output = new StreamJoinOutput(labels, maxRawBytes);
        metrics = new LabelJoinMetrics(getRuntimeContext().getMetricGroup(), restoredHeld);
        sink = new Outcomes();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        heldState =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "label-join-impressions-held",
                                        PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        restoredHeld = 0;
        if (context.isRestored()) {
            int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
            long sum = 0;
            Long own = null;
            for (long[] e : heldState.get()) { // {subtask, parallelism, count}
                sum += e[2];
                if (e[0] == subtask && e[1] == parallelism) {
                    own = e[2];
                }
            }
            // the same subtasks: each its own count; after a rescale the first takes them all
            restoredHeld = own != null ? own : subtask == 0 ? sum : 0;
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        heldState.update(
                List.of(
                        new long[] {
                            getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                            getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(),
                            metrics.impressionsHeld()
                        }));
    }

    @Override
    public void processElement(JoinInput r, Context ctx, Collector<JoinedLine> out)
            throws Exception {
        JoinKey key = state.value();
        boolean fresh = key == null;
        if (fresh) {
            key = JoinKey.empty(labels.join());
        }
        int held = key.join.impressionsHeld();
        JoinOutput<byte[]> to = to(key, ctx, out);
        if (fresh) {
            // a new key starts at the join's watermark, as every key of the batch join does
            key.join.advance(joinWatermark(ctx.timerService().currentWatermark()), to);
        }
        if (r.isImpression()) {
            key.join.impression(StreamJoinOutput.impression(r), to);
        } else {
            var action = StreamJoinOutput.action(r);
            key.pending.put(action.position(), r);
            key.join.action(action, to);
        }
        save(key, held, ctx);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<JoinedLine> out)
            throws Exception {
        JoinKey key = state.value();
        if (key == null) {
            return; // a timer of a key whose state went
        }
        int held = key.join.impressionsHeld();
        key.join.advance(joinWatermark(ctx.timerService().currentWatermark()), to(key, ctx, out));
        save(key, held, ctx);
    }

    /** The impressions this subtask's keys hold, as its gauge says. */
    long impressionsHeld() {
        return metrics.impressionsHeld();
    }

    /** The join's watermark of Flink's {@code w}: every time up to {@code w} is complete. */
    static long joinWatermark(long w) {
        return w == Long.MAX_VALUE ? Long.MAX_VALUE : w + 1;
    }

    /** Keeps the key's join ({@code held} impressions before this call) and its next timer. */
    private void save(JoinKey key, int held, Context ctx) throws Exception {
        metrics.held(key.join.impressionsHeld() - held);
        if (key.join.isEmpty()) {
            state.clear();
            return;
        }
        state.update(key);
        long next = key.join.nextDueMs();
        if (next != Long.MAX_VALUE) {
            ctx.timerService().registerEventTimeTimer(next);
        }
    }

    private JoinOutput<byte[]> to(JoinKey key, Context ctx, Collector<JoinedLine> out) {
        sink.ctx = ctx;
        sink.out = out;
        return output.of(key.pending, sink);
    }

    /** Counts the join's outcomes and hands them on; one per subtask, aimed at each call's. */
    private final class Outcomes implements StreamJoinOutput.Sink {
        Context ctx;
        Collector<JoinedLine> out;

        @Override
        public void row(JoinedLine row) {
            metrics.row();
            out.collect(row);
        }

        @Override
        public void deadLetter(JoinDeadLetter d) {
            metrics.deadLetter(d.reason());
            ctx.output(DEAD_LETTERS, d);
        }

        @Override
        public void joined(int stream, long delayMs) {
            metrics.joined(delayMs);
        }

        @Override
        public void sampledOut() {
            metrics.sampledOut();
        }
    }
}
