package dev.piper.operators.order;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.FastForward;
import dev.piper.operators.block.AssembledBlockSerializer;
import dev.piper.operators.resume.CatchUpOperator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
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
 * <p>With a fast-forward ({@link #withFastForward}), a lane whose blocks past the restored snapshot
 * an earlier run committed goes on after the last of them, as the chunker numbers its blocks
 * ({@code LogChunkOperator}): its count moves up to it as the function opens ({@link
 * CatchUpOperator}).
 *
 * <p>The keyed counterpart of {@link SequenceFunction}, which orders the single lane of a file at
 * parallelism 1; this one runs at any parallelism and rescales with its key groups.
 */
public final class LaneSequenceFunction
        extends KeyedProcessFunction<Integer, AssembledBlock, AssembledBlock>
        implements CatchUpOperator.CatchingUp {

    private static final long serialVersionUID = 1L;

    public static final ValueStateDescriptor<Long> NEXT_SEQ =
            new ValueStateDescriptor<>("lane-next-seq", LongSerializer.INSTANCE);
    public static final MapStateDescriptor<Long, AssembledBlock> PENDING =
            new MapStateDescriptor<>(
                    "lane-pending", LongSerializer.INSTANCE, AssembledBlockSerializer.INSTANCE);

    /** By lane: its next block after a fast-forward past committed blocks; empty without one. */
    private HashMap<Integer, Long> fastForward = new HashMap<>();

    private transient ValueState<Long> nextSeq;
    private transient MapState<Long, AssembledBlock> pending;

    /**
     * This function, taking each lane of {@code tails} on after its last committed block ({@link
     * FastForward#lanes()}).
     */
    public LaneSequenceFunction withFastForward(Map<Integer, FastForward.LaneTail> tails) {
        fastForward = new HashMap<>();
        tails.forEach((lane, tail) -> fastForward.put(lane, tail.lastBlock() + 1));
        return this;
    }

    @Override
    public void open(OpenContext openContext) {
        nextSeq = getRuntimeContext().getState(NEXT_SEQ);
        pending = getRuntimeContext().getMapState(PENDING);
    }

    @Override
    public Set<Integer> catchUpKeys() {
        return fastForward.keySet();
    }

    @Override
    public void catchUp(int lane) throws Exception {
        Long stored = nextSeq.value();
        long after = fastForward.get(lane);
        if (stored == null || stored < after) {
            nextSeq.update(after);
        }
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
