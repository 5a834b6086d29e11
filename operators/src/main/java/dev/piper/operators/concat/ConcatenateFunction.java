package dev.piper.operators.concat;

import dev.piper.core.assemble.RowAssembly;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.Lanes;
import dev.piper.core.cost.CostSample;
import dev.piper.core.cost.ThreadCpu;
import dev.piper.operators.block.DenseChunkSerializer;
import dev.piper.operators.block.IndexChunkSerializer;
import dev.piper.operators.cost.CostSamples;
import dev.piper.operators.cost.CpuMeter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * PIPER's Concatenate: keyed by block (its sequence number, or lane and sequence number), it waits
 * for the block's dense part and its categorical index chunks (as many as the dense part's layout
 * has sparse columns), then writes the rows in the DLRM layout ({@link RowAssembly}).
 */
public final class ConcatenateFunction<K>
        extends KeyedCoProcessFunction<K, DenseChunk, IndexChunk, AssembledBlock> {

    private static final long serialVersionUID = 1L;

    public static final ValueStateDescriptor<DenseChunk> DENSE =
            new ValueStateDescriptor<>("dense", DenseChunkSerializer.INSTANCE);
    public static final MapStateDescriptor<Integer, IndexChunk> SPARSE_PARTS =
            new MapStateDescriptor<>(
                    "sparse", IntSerializer.INSTANCE, IndexChunkSerializer.INSTANCE);
    public static final ValueStateDescriptor<Integer> SPARSE_COUNT =
            new ValueStateDescriptor<>("sparse-count", IntSerializer.INSTANCE);

    private transient ValueState<DenseChunk> dense;
    private transient MapState<Integer, IndexChunk> sparse;
    private transient ValueState<Integer> sparseCount;

    private final boolean measure;

    /** Measuring: the thread CPU bookkeeping; null otherwise. */
    private transient CpuMeter meter;

    public ConcatenateFunction() {
        this(false);
    }

    private ConcatenateFunction(boolean measure) {
        this.measure = measure;
    }

    /**
     * A concatenation that also emits a {@link CostSample} per assembled block on {@link
     * CostSamples#TAG}: the rows it assembled and the CPU time it took, including the operators
     * chained behind it (sequencing and the sink's write).
     */
    public static <K> ConcatenateFunction<K> measured() {
        return new ConcatenateFunction<>(true);
    }

    @Override
    public void open(OpenContext openContext) {
        dense = getRuntimeContext().getState(DENSE);
        sparse = getRuntimeContext().getMapState(SPARSE_PARTS);
        sparseCount = getRuntimeContext().getState(SPARSE_COUNT);
        meter = measure ? CpuMeter.start() : null;
    }

    @Override
    public void close() throws Exception {
        if (measure) {
            meter.close(getRuntimeContext());
        }
        super.close();
    }

    @Override
    public void processElement1(DenseChunk chunk, Context ctx, Collector<AssembledBlock> out)
            throws Exception {
        dense.update(chunk);
        emitIfComplete(ctx, out);
    }

    @Override
    public void processElement2(IndexChunk chunk, Context ctx, Collector<AssembledBlock> out)
            throws Exception {
        sparse.put(chunk.column(), chunk);
        Integer count = sparseCount.value();
        sparseCount.update(count == null ? 1 : count + 1);
        emitIfComplete(ctx, out);
    }

    /**
     * Emits the block if all its parts are here. Measuring, it then emits the block's cost sample:
     * the assembly's and output's CPU time as the work, and as the thread's time everything since
     * the previous block's sample (receiving and storing the block's 27 parts included), so that a
     * block costs two clock readings and one sample.
     */
    private void emitIfComplete(Context ctx, Collector<AssembledBlock> out) throws Exception {
        Integer count = sparseCount.value();
        DenseChunk d = dense.value();
        if (d == null || count == null || count < d.layout().sparse()) {
            return;
        }
        long start = measure ? ThreadCpu.now() : 0;
        IndexChunk[] columns = new IndexChunk[d.layout().sparse()];
        for (int c = 0; c < columns.length; c++) {
            columns[c] = sparse.get(c);
        }
        out.collect(RowAssembly.assemble(d, columns));
        dense.clear();
        sparse.clear();
        sparseCount.clear();
        if (measure) {
            long end = ThreadCpu.now();
            ctx.output(
                    CostSamples.TAG,
                    CostSample.output(
                                    Lanes.pipeline(d.lane()),
                                    d.rows(),
                                    end - start,
                                    meter.sinceLastSample(end))
                            .withVersion(d.version()));
        }
    }
}
