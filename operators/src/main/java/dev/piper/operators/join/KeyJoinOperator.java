package dev.piper.operators.join;

import dev.piper.core.join.JoinDeadLetter;
import dev.piper.core.join.JoinInput;
import dev.piper.core.join.JoinedLine;
import dev.piper.core.join.StreamJoinOutput;
import dev.piper.pipeline.join.JoinOutput;
import dev.piper.pipeline.join.LabelSpec;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * The label join of the stream, keyed by the join key: each key's {@link JoinKey} in keyed state,
 * advanced in event time, when the watermark passes the next thing it has to do. A Flink watermark
 * {@code W} promises no record of time {@code W} or before, which is the join's watermark {@code W
 * + 1} ({@code docs/SEMANTICS.md}, "Label join"). Rows go out as labelled lines, to be put in order
 * downstream ({@link JoinOrderOperator}); refused records to {@link #DEAD_LETTERS}.
 *
 * <p>When each key is next due is a function of its state ({@code KeyJoin.nextDueMs}), so the
 * operator keeps the keys' due times in one queue of its own, in memory, rather than a Flink timer
 * per key: it is not checkpointed but rebuilt from the keyed state on restore, each subtask from
 * the keys it was given. Flink's timer service kept a deduplicating hash set and a heap per key
 * group for the same, and its timers in every checkpoint; on 600,000 impressions it took a third of
 * the join's CPU ({@code docs/PERFORMANCE.md}, "The label join").
 */
public final class KeyJoinOperator extends AbstractStreamOperator<JoinedLine>
        implements OneInputStreamOperator<JoinInput, JoinedLine> {

    private static final long serialVersionUID = 1L;

    /** The records the join refused: late, duplicate, after their window, orphan. */
    public static final OutputTag<JoinDeadLetter> DEAD_LETTERS =
            new OutputTag<>("label-join-dead-letters", JoinRecordSerializers.JOIN_DEAD_LETTER);

    private static final String STATE = "label-join";

    private final LabelSpec labels;
    private final int maxRawBytes;

    /** Each key's state, encoded ({@link JoinKeySerializer} says why). */
    private transient ValueState<byte[]> state;

    private transient JoinKeyCodec codec;
    private transient StreamJoinOutput lines;
    private transient LabelJoinMetrics metrics;
    private transient Outcomes sink;

    /** Every key with something to do, by when: a key's entries other than its due time stale. */
    private transient DueQueue due;

    /** The latest watermark, Flink's: every record of its time or before has arrived. */
    private transient long watermark;

    /**
     * Each subtask's count of the impressions its keys hold, for the impressions-held gauge: union
     * state, so that after a rescale the first subtask starts from the sum of them all and the
     * others from 0 (a key's impressions may then leave on another subtask than they were counted
     * on: each subtask's gauge is its share of the stream's, their sum exact).
     */
    private transient ListState<long[]> heldState;

    private transient long restoredHeld;

    public KeyJoinOperator(LabelSpec labels, int maxRawBytes) {
        this.labels = labels;
        this.maxRawBytes = maxRawBytes;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        watermark = Long.MIN_VALUE;
        due = new DueQueue();
        codec = new JoinKeyCodec(labels.join());
        state =
                getPartitionedState(
                        new ValueStateDescriptor<>(STATE, new JoinKeySerializer(labels.join())));
        heldState =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "label-join-impressions-held",
                                        PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        restoredHeld = 0;
        if (context.isRestored()) {
            restoredHeld = restoredHeld();
            scheduleRestoredKeys();
        }
    }

    /** This subtask's count of held impressions as restored: its own, or after a rescale. */
    private long restoredHeld() throws Exception {
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
        return own != null ? own : subtask == 0 ? sum : 0;
    }

    /** Queues every restored key at its next due time, as its state says. */
    private void scheduleRestoredKeys() throws Exception {
        List<String> keys;
        try (var stream =
                this.<String>getKeyedStateBackend().getKeys(STATE, VoidNamespace.INSTANCE)) {
            keys = stream.toList(); // read whole before the state is read key by key
        }
        for (String k : keys) {
            setCurrentKey(k);
            JoinKey key = read(k);
            long next = key == null ? Long.MAX_VALUE : key.join.nextDueMs();
            if (next != Long.MAX_VALUE) {
                due.add(next, k);
            }
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        lines = new StreamJoinOutput(labels, maxRawBytes);
        metrics = new LabelJoinMetrics(getRuntimeContext().getMetricGroup(), restoredHeld);
        sink = new Outcomes();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        heldState.update(
                List.of(
                        new long[] {
                            getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                            getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks(),
                            metrics.impressionsHeld()
                        }));
    }

    @Override
    public void processElement(StreamRecord<JoinInput> element) throws Exception {
        JoinInput r = element.getValue();
        JoinKey key = read(r.key());
        boolean fresh = key == null;
        long before = Long.MAX_VALUE;
        if (fresh) {
            key = JoinKey.empty(labels.join());
        } else {
            before = key.join.nextDueMs();
        }
        int held = key.join.impressionsHeld();
        JoinOutput<byte[]> to = lines.of(key.pending, sink.at(element.getTimestamp()));
        if (fresh) {
            // a new key starts at the join's watermark, as every key of the batch join does
            key.join.advance(joinWatermark(watermark), to);
        }
        if (r.isImpression()) {
            key.join.impression(StreamJoinOutput.impression(r), to);
        } else {
            var action = StreamJoinOutput.action(r);
            key.pending.put(action.position(), r);
            key.join.action(action, to);
        }
        save(r.key(), key, held, before);
    }

    /**
     * Advances every key due at or before {@code mark}, in the order they fell due, and then hands
     * the watermark on: the rows it made go out before it.
     */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        long w = mark.getTimestamp();
        watermark = Math.max(watermark, w);
        long joinWatermark = joinWatermark(watermark);
        while (!due.isEmpty() && due.firstTime() <= w) {
            long at = due.firstTime();
            String k = due.firstKey();
            due.removeFirst();
            setCurrentKey(k);
            JoinKey key = read(k);
            if (key == null || key.join.nextDueMs() != at) {
                continue; // stale: the key went, or fell due at another time, queued again then
            }
            int held = key.join.impressionsHeld();
            key.join.advance(joinWatermark, lines.of(key.pending, sink.at(at)));
            save(k, key, held, at);
        }
        super.processWatermark(mark);
    }

    /** The state of {@code k}, the current key, or null if it holds nothing. */
    private JoinKey read(String k) throws Exception {
        byte[] kept = state.value();
        return kept == null ? null : codec.decode(kept, k);
    }

    /** The impressions this subtask's keys hold, as its gauge says. */
    long impressionsHeld() {
        return metrics.impressionsHeld();
    }

    /** The keys queued to be advanced, stale entries included. */
    int queued() {
        return due.size();
    }

    /** The join's watermark of Flink's {@code w}: every time up to {@code w} is complete. */
    static long joinWatermark(long w) {
        return w == Long.MAX_VALUE ? Long.MAX_VALUE : w + 1;
    }

    /**
     * Keeps the key's join ({@code held} impressions and due at {@code before} when the call began)
     * and queues it again if it is now due at another time.
     */
    private void save(String k, JoinKey key, int held, long before) throws Exception {
        metrics.held(key.join.impressionsHeld() - held);
        if (key.join.isEmpty()) {
            state.clear();
            return;
        }
        state.update(codec.encode(key, k));
        long next = key.join.nextDueMs();
        if (next != before && next != Long.MAX_VALUE) {
            due.add(next, k);
        }
    }

    /** Counts the join's outcomes and hands them on, stamped with the time they were made at. */
    private final class Outcomes implements StreamJoinOutput.Sink {
        private final StreamRecord<JoinedLine> row = new StreamRecord<>(null);
        private final StreamRecord<JoinDeadLetter> dead = new StreamRecord<>(null);
        private long at;

        Outcomes at(long timestamp) {
            at = timestamp;
            return this;
        }

        @Override
        public void row(JoinedLine line) {
            metrics.row();
            output.collect(row.replace(line, at));
        }

        @Override
        public void deadLetter(JoinDeadLetter d) {
            metrics.deadLetter(d.reason());
            output.collect(DEAD_LETTERS, dead.replace(d, at));
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
