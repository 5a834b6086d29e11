package dev.piper.operators.concat;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.Assignments;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.Lanes;
import dev.piper.core.cost.CostSample;
import dev.piper.core.cost.ThreadCpu;
import dev.piper.operators.block.DenseChunkSerializer;
import dev.piper.operators.block.IndexChunkSerializer;
import dev.piper.operators.cost.CostSamples;
import dev.piper.operators.cost.CpuMeter;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.OneHot;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
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
 * has sparse columns), then writes the rows in the DLRM layout (little-endian int32 per row: label,
 * I1.., C1..; 40 in Criteo's layout).
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
        out.collect(assemble(d, columns));
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

    /** Interleaves the block's columns into rows. */
    public static AssembledBlock assemble(DenseChunk d, IndexChunk[] columns) {
        int rows = d.rows();
        RowLayout layout = d.layout();
        int sparseColumns = layout.sparse();
        int width = layout.labelDenseWidth();
        if (columns.length != sparseColumns) {
            throw new IllegalStateException(
                    "block "
                            + d.lane()
                            + "/"
                            + d.seq()
                            + ": "
                            + columns.length
                            + " index chunks for "
                            + layout);
        }
        int[] onehot = d.onehot();
        int rowBytes = layout.rowBytes(onehot);
        byte[] bytes = new byte[rows * rowBytes];
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int[] labelDense = d.labelDense();
        int[][] indices = new int[sparseColumns][];
        int[] firstNew = new int[sparseColumns];
        long[][] newKeys = new long[sparseColumns][];
        int[] epochs = new int[sparseColumns];
        Assignments[] assignments = null;
        for (int c = 0; c < sparseColumns; c++) {
            IndexChunk chunk = columns[c];
            checkChunk(d, c, chunk);
            indices[c] = chunk.indices();
            firstNew[c] = chunk.firstNewIndex();
            newKeys[c] = chunk.newKeys();
            epochs[c] = chunk.epoch();
            if (chunk.assignments() != null) {
                if (assignments == null) {
                    assignments = new Assignments[sparseColumns];
                }
                assignments[c] = chunk.assignments();
            }
        }
        writeRows(buf, rows, width, labelDense, onehot, layout.scalarColumns(), indices);
        int lists = layout.listColumns().size();
        int[][] listOffsets = new int[lists][];
        int[][] listIndices = new int[lists][];
        for (int l = 0; l < lists; l++) {
            IndexChunk chunk = columns[layout.listColumns().get(l)];
            listOffsets[l] = chunk.offsets();
            listIndices[l] =
                    chunk.indices().length == chunk.size()
                            ? chunk.indices()
                            : Arrays.copyOf(chunk.indices(), chunk.size());
        }
        return new AssembledBlock(
                d.lane(),
                d.seq(),
                d.lines(),
                rows,
                bytes,
                d.deadLetters(),
                firstNew,
                newKeys,
                d.origin(),
                d.version(),
                epochs,
                listOffsets,
                listIndices,
                null,
                assignments);
    }

    /** Refuses an index chunk {@code chunk} of sparse column {@code c} that is not of block d. */
    private static void checkChunk(DenseChunk d, int c, IndexChunk chunk) {
        int rows = d.rows();
        if (chunk.rows() != rows
                || (chunk.offsets() != null) != d.layout().isList(c)
                || chunk.seq() != d.seq()
                || chunk.lane() != d.lane()) {
            throw new IllegalStateException(
                    "block "
                            + d.lane()
                            + "/"
                            + d.seq()
                            + ": column C"
                            + (c + 1)
                            + " has "
                            + chunk.rows()
                            + (chunk.offsets() != null ? " lists" : " rows")
                            + " of block "
                            + chunk.lane()
                            + "/"
                            + chunk.seq()
                            + ", expected "
                            + rows);
        }
    }

    /**
     * Writes each row: its label and dense values (a onehot column as its columns), then its scalar
     * sparse columns' indices, little-endian int32.
     */
    private static void writeRows(
            ByteBuffer buf,
            int rows,
            int width,
            int[] labelDense,
            int[] onehot,
            int[] scalar,
            int[][] indices) {
        int pos = 0;
        for (int r = 0; r < rows; r++) {
            int base = r * width;
            for (int j = 0; j < width; j++) {
                int v = labelDense[base + j];
                if (onehot != null && onehot[j] > 0) {
                    int hot = OneHot.hot(v, onehot[j]); // drop-last one-hot of the category v
                    for (int k = 0; k < onehot[j] - 1; k++) {
                        buf.putInt(pos, k == hot ? 1 : 0);
                        pos += Integer.BYTES;
                    }
                    continue;
                }
                buf.putInt(pos, v);
                pos += Integer.BYTES;
            }
            for (int c : scalar) {
                buf.putInt(pos, indices[c][r]);
                pos += Integer.BYTES;
            }
        }
        assert pos == buf.capacity();
    }
}
