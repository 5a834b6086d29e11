package dev.piper.operators.join;

import dev.piper.core.join.JoinDeadLetter;
import dev.piper.core.join.JoinInput;
import dev.piper.core.join.JoinedLine;
import dev.piper.core.join.StreamJoinOutput;
import dev.piper.pipeline.join.JoinOutput;
import dev.piper.pipeline.join.LabelSpec;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
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
public final class KeyJoinFunction extends KeyedProcessFunction<String, JoinInput, JoinedLine> {

    private static final long serialVersionUID = 1L;

    /** The records the join refused: late, duplicate, after their window, orphan. */
    public static final OutputTag<JoinDeadLetter> DEAD_LETTERS =
            new OutputTag<>("label-join-dead-letters", JoinRecordSerializers.JOIN_DEAD_LETTER);

    private final LabelSpec labels;
    private final int maxRawBytes;
    private transient ValueState<JoinKey> state;
    private transient StreamJoinOutput output;
    private transient Counters counters;
    private transient Outcomes sink;

    /** The join's counters, in the operator's metric group. */
    private static final class Counters {
        final Counter rows;
        final Counter sampledOut;
        final Counter actionsJoined;
        final Counter deadLetters;

        Counters(MetricGroup g) {
            MetricGroup join = g.addGroup("labelJoin");
            rows = join.counter("rows");
            sampledOut = join.counter("sampledOut");
            actionsJoined = join.counter("actionsJoined");
            deadLetters = join.counter("deadLetters");
        }
    }

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
        counters = new Counters(getRuntimeContext().getMetricGroup());
        sink = new Outcomes();
    }

    @Override
    public void processElement(JoinInput r, Context ctx, Collector<JoinedLine> out)
            throws Exception {
        JoinKey key = state.value();
        boolean fresh = key == null;
        if (fresh) {
            key = JoinKey.empty(labels.join());
        }
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
        save(key, ctx);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<JoinedLine> out)
            throws Exception {
        JoinKey key = state.value();
        if (key == null) {
            return; // a timer of a key whose state went
        }
        key.join.advance(joinWatermark(ctx.timerService().currentWatermark()), to(key, ctx, out));
        save(key, ctx);
    }

    /** The join's watermark of Flink's {@code w}: every time up to {@code w} is complete. */
    static long joinWatermark(long w) {
        return w == Long.MAX_VALUE ? Long.MAX_VALUE : w + 1;
    }

    private void save(JoinKey key, Context ctx) throws Exception {
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
            counters.rows.inc();
            out.collect(row);
        }

        @Override
        public void deadLetter(JoinDeadLetter d) {
            counters.deadLetters.inc();
            ctx.output(DEAD_LETTERS, d);
        }

        @Override
        public void joined(int stream) {
            counters.actionsJoined.inc();
        }

        @Override
        public void sampledOut() {
            counters.sampledOut.inc();
        }
    }
}
