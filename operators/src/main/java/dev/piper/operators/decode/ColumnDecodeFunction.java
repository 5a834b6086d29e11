package dev.piper.operators.decode;

import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.decode.ColumnarDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.pipeline.ops.ColumnProgram;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Hands on the blocks of a columnar input (Parquet), which its reader has decoded ({@link
 * ColumnBlock}), as {@link DecodeFunction} hands on a text block: one key chunk per categorical
 * column, stamped with the program's vocabulary epochs and policies, the block's dense chunk on
 * {@link DecodeFunction#DENSE}, and the same counters. The arrays pass on as they are.
 */
public final class ColumnDecodeFunction extends ProcessFunction<ColumnBlock, KeyChunk> {

    private static final long serialVersionUID = 1L;

    private final ColumnProgram program;
    private transient DecodeMetrics metrics;

    public ColumnDecodeFunction(ColumnProgram program) {
        this.program = program;
    }

    @Override
    public void open(OpenContext openContext) {
        metrics = new DecodeMetrics(getRuntimeContext().getMetricGroup());
    }

    @Override
    public void processElement(ColumnBlock block, Context ctx, Collector<KeyChunk> out) {
        CriteoDecoder.Decoded decoded = ColumnarDecoder.decoded(program, block);
        ctx.output(DecodeFunction.DENSE, decoded.dense());
        metrics.count(decoded.dense());
        for (KeyChunk keys : decoded.keys()) {
            out.collect(keys);
        }
    }
}
