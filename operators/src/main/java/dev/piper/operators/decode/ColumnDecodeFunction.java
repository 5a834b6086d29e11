package dev.piper.operators.decode;

import dev.piper.operators.block.ColumnBlock;
import dev.piper.operators.block.DenseChunk;
import dev.piper.operators.block.KeyChunk;
import dev.piper.operators.block.Origin;
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
        CriteoDecoder.Decoded decoded = decoded(program, block);
        ctx.output(DecodeFunction.DENSE, decoded.dense());
        metrics.count(decoded.dense());
        for (KeyChunk keys : decoded.keys()) {
            out.collect(keys);
        }
    }

    /** The block's parts, as the text decoder gives them for a text block. */
    public static CriteoDecoder.Decoded decoded(ColumnProgram program, ColumnBlock block) {
        if (block.keys().length != program.layout().sparse()) {
            throw new IllegalArgumentException(
                    "a block of "
                            + block.keys().length
                            + " sparse columns for a pipeline of "
                            + program.layout());
        }
        DenseChunk dense =
                new DenseChunk(
                        block.lane(),
                        block.seq(),
                        block.lines(),
                        block.rows(),
                        block.labelDense(),
                        block.deadLetters(),
                        Origin.NONE,
                        program.version(),
                        program.layout(),
                        program.onehotSizes());
        return new CriteoDecoder.Decoded(
                dense,
                CriteoDecoder.keyChunks(
                        program,
                        block.lane(),
                        block.seq(),
                        block.keys(),
                        block.offsets(),
                        block.rows()),
                new int[0],
                0,
                0);
    }
}
