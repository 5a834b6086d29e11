package dev.piper.operators.order;

import dev.piper.core.block.AssembledBlock;
import dev.piper.operators.block.AssembledBlockSerializer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Puts assembled blocks back into input order for a sink that writes one ordered stream. Runs at
 * parallelism 1; blocks that arrive early wait (in operator state across checkpoints) until every
 * block before them has been emitted.
 */
public final class SequenceFunction extends ProcessFunction<AssembledBlock, AssembledBlock>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    public static final ListStateDescriptor<AssembledBlock> PENDING =
            new ListStateDescriptor<>("pending-blocks", AssembledBlockSerializer.INSTANCE);
    public static final ListStateDescriptor<Long> NEXT_SEQ =
            new ListStateDescriptor<>("next-seq", LongSerializer.INSTANCE);

    private final Map<Long, AssembledBlock> waiting = new HashMap<>();
    private long next;

    private transient ListState<AssembledBlock> pendingState;
    private transient ListState<Long> nextState;

    @Override
    public void open(OpenContext openContext) {
        int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        if (parallelism != 1) {
            throw new IllegalStateException(
                    "SequenceFunction must run at parallelism 1, not " + parallelism);
        }
    }

    @Override
    public void processElement(AssembledBlock block, Context ctx, Collector<AssembledBlock> out) {
        if (block.seq() < next || waiting.containsKey(block.seq())) {
            throw new IllegalStateException("block " + block.seq() + " arrived twice");
        }
        if (block.seq() != next) {
            waiting.put(block.seq(), block);
            return;
        }
        out.collect(block);
        next++;
        AssembledBlock b;
        while ((b = waiting.remove(next)) != null) {
            out.collect(b);
            next++;
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        pendingState.update(new ArrayList<>(waiting.values()));
        nextState.update(List.of(next));
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        pendingState = context.getOperatorStateStore().getListState(PENDING);
        nextState = context.getOperatorStateStore().getListState(NEXT_SEQ);
        if (context.isRestored()) {
            for (Long n : nextState.get()) {
                next = n;
            }
            for (AssembledBlock b : pendingState.get()) {
                waiting.put(b.seq(), b);
            }
        }
    }
}
