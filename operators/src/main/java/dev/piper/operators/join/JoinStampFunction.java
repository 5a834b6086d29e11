package dev.piper.operators.join;

import dev.piper.core.join.JoinDeadLetter;
import dev.piper.core.join.JoinInput;
import dev.piper.core.join.JoinRead;
import dev.piper.core.join.PartitionTimes;
import java.util.Map;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Chained to the join's Kafka source: stamps each record to join with its partition's watermark
 * ({@link PartitionTimes}, checkpointed with the source's offsets as union state, so that a
 * partition moved to another subtask by a rescale keeps its time) and sends the records that cannot
 * join to {@link #DEAD_LETTERS}.
 */
public final class JoinStampFunction extends ProcessFunction<JoinRead, JoinInput>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** The records that cannot join, as read. */
    public static final OutputTag<JoinDeadLetter> DEAD_LETTERS =
            new OutputTag<>("label-join-read-dead-letters", JoinRecordSerializers.JOIN_DEAD_LETTER);

    private final long maxOutOfOrdernessMs;
    private transient PartitionTimes times;
    private transient ListState<long[]> checkpointed;

    public JoinStampFunction(long maxOutOfOrdernessMs) {
        this.maxOutOfOrdernessMs = maxOutOfOrdernessMs;
    }

    @Override
    public void processElement(JoinRead r, Context ctx, Collector<JoinInput> out) {
        if (r instanceof JoinInput input) {
            out.collect(times.stamp(input));
        } else {
            ctx.output(DEAD_LETTERS, (JoinDeadLetter) r);
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        checkpointed.clear();
        for (Map.Entry<Long, Long> e : times.maxTimes().entrySet()) {
            checkpointed.add(new long[] {e.getKey(), e.getValue()});
        }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        times = new PartitionTimes(maxOutOfOrdernessMs);
        checkpointed =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "label-join-partition-times",
                                        PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        if (context.isRestored()) {
            for (long[] e : checkpointed.get()) {
                times.restore(e[0], e[1]);
            }
        }
    }
}
