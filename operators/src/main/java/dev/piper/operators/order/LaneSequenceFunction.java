package dev.piper.operators.order;

import dev.piper.core.block.AssembledBlock;
import dev.piper.operators.block.AssembledBlockSerializer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Puts each lane's assembled blocks back into input order, keyed by lane. A lane's blocks carry
 * sequence numbers from 0 without gaps (the log chunker numbers them per partition); blocks that
 * arrive early wait in keyed state until every earlier block of their lane has been emitted. Lanes
 * are independent: a slow lane never holds back another.
 *
 * <p>The keyed counterpart of {@link SequenceFunction}, which orders the single lane of a file at
 * parallelism 1; this one runs at any parallelism and rescales with its key groups.
 */
public final class LaneSequenceFunction
        extends KeyedProcessFunction<Integer, AssembledBlock, AssembledBlock> {

    private static final long serialVersionUID = 1L;

    public static final ValueStateDescriptor<Long> NEXT_SEQ =
            new ValueStateDescriptor<>("lane-next-seq", LongSerializer.INSTANCE);
    public static final MapStateDescriptor<Long, AssembledBlock> PENDING =
            new MapStateDescriptor<>(
                    "lane-pending", LongSerializer.INSTANCE, AssembledBlockSerializer.INSTANCE);

    private transient ValueState<Long> nextSeq;
    private transient MapState<Long, AssembledBlock> pending;

    @Override
    public void open(OpenContext openContext) {
        nextSeq = getRuntimeContext().getState(NEXT_SEQ);
        pending = getRuntimeContext().getMapState(PENDING);
    }

    @Override
    public void processElement(AssembledBlock block, Context ctx, Collector<AssembledBlock> out)
            throws Exception {
        Long stored = nextSeq.value();
        long next = stored == null ? 0 : stored;
        if (block.seq() < next || pending.contains(block.seq())) {
            throw new IllegalStateException(
                    "lane " + block.lane() + ": block " + block.seq() + " arrived twice");
        }
        if (block.seq() != next) {
            pending.put(block.seq(), block);
            return;
        }
        out.collect(block);
        next++;
        AssembledBlock waiting;
        while ((waiting = pending.get(next)) != null) {
            pending.remove(next);
            out.collect(waiting);
            next++;
        }
        nextSeq.update(next);
    }
}
