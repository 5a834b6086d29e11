package dev.piper.operators.decode;

import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.Lanes;
import dev.piper.core.block.RawChunk;
import dev.piper.core.cost.CostSample;
import dev.piper.core.cost.ThreadCpu;
import dev.piper.core.decode.BlockDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.operators.block.BlockTypes;
import dev.piper.operators.cost.CostSamples;
import dev.piper.operators.cost.CpuMeter;
import dev.piper.pipeline.ops.DecodeOptions;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Decodes raw chunks in parallel, with the decoder of the input's format ({@link BlockDecoder}).
 * Emits one {@link KeyChunk} per categorical column (to the vocabulary operators) and the block's
 * {@link DenseChunk} (labels, dense values, dead letters) on {@link #DENSE}, which goes straight to
 * the concatenation. When it {@link #measured measures}, it also emits one {@link CostSample} per
 * block on {@link CostSamples#TAG}.
 */
public final class DecodeFunction extends ProcessFunction<RawChunk, KeyChunk> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<DenseChunk> DENSE =
            new OutputTag<>("dense", BlockTypes.DENSE_CHUNK);

    private final DecodeOptions options;
    private final boolean measure;
    private final int countEvery;
    private transient BlockDecoder decoder;
    private transient DecodeMetrics metrics;

    /** Measuring: blocks this subtask decoded. */
    private transient long blocks;

    /** Blocks whose fields were counted. */
    private transient long counts;

    /**
     * A decoder measures its kinds of fields ({@link CriteoDecoder#measureKinds}) on its first
     * counted block and every this many counted blocks after it: about twice a block's decoding, so
     * at the default count cadence (16) one block in 64 takes three times its decoding (3% more
     * decoding time), left out of the figures.
     */
    static final int KIND_EVERY = 4;

    /** Measuring: the thread CPU bookkeeping; null otherwise. */
    private transient CpuMeter meter;

    public DecodeFunction(DecodeOptions options) {
        this(options, false, 1);
    }

    private DecodeFunction(DecodeOptions options, boolean measure, int countEvery) {
        if (countEvery < 1) {
            throw new IllegalArgumentException("countEvery must be positive: " + countEvery);
        }
        this.options = options;
        this.measure = measure;
        this.countEvery = countEvery;
    }

    /**
     * A decoder that also emits a {@link CostSample} per block on {@link CostSamples#TAG}, with
     * each field's bytes counted in its first block and every {@code countEvery}-th after it.
     */
    public static DecodeFunction measured(DecodeOptions options, int countEvery) {
        return new DecodeFunction(options, true, countEvery);
    }

    @Override
    public void open(OpenContext openContext) {
        decoder = BlockDecoder.of(options, measure);
        metrics = new DecodeMetrics(getRuntimeContext().getMetricGroup());
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
    public void processElement(RawChunk chunk, Context ctx, Collector<KeyChunk> out) {
        long start = measure ? ThreadCpu.now() : 0;
        boolean counted = measure && blocks++ % countEvery == 0;
        CriteoDecoder.Decoded decoded = decoder.decode(chunk, counted);
        ctx.output(DENSE, decoded.dense());
        metrics.count(decoded.dense());
        for (KeyChunk keys : decoded.keys()) {
            out.collect(keys);
        }
        if (measure) {
            long end = ThreadCpu.now();
            CostSample sample =
                    decoded.costSample(
                            Lanes.pipeline(chunk.lane()), start, end, meter.sinceLastSample(end));
            if (counted && counts++ % KIND_EVERY == 0) {
                // what each kind of field costs, on the decoder's own code; its time is left out
                long[] kinds = decoder.measureKinds(chunk);
                meter.exclude(end, ThreadCpu.now());
                if (kinds[0] + kinds[1] > 0) {
                    sample = sample.withParseNanos(kinds[0], kinds[1]);
                }
            }
            ctx.output(CostSamples.TAG, sample);
        }
    }
}
