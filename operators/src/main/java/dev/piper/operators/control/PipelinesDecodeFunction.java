package dev.piper.operators.control;

import dev.piper.operators.block.KeyChunk;
import dev.piper.operators.block.RawChunk;
import dev.piper.operators.cost.CostSample;
import dev.piper.operators.cost.CpuMeter;
import dev.piper.operators.cost.ThreadCpu;
import dev.piper.operators.decode.CriteoDecoder;
import dev.piper.operators.decode.DecodeFunction;
import dev.piper.operators.decode.DecodeMetrics;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The decoder of a job running several pipelines with fixed specs: each block is decoded with the
 * spec of its lane's pipeline. Outputs as {@link DecodeFunction}.
 */
public final class PipelinesDecodeFunction extends ProcessFunction<RawChunk, KeyChunk> {

    private static final long serialVersionUID = 1L;

    private final Decoders decoders;
    private final int countEvery;

    /** Measuring: blocks decoded, and the thread's CPU clock at the end of the previous sample. */
    private transient long blocks;

    /** Measuring: the thread CPU bookkeeping; null otherwise. */
    private transient CpuMeter meter;

    private transient DecodeMetrics metrics;

    /**
     * @param starts each pipeline's spec, by index
     * @param maxRawBytes how many bytes of a rejected line its dead letter keeps
     */
    public PipelinesDecodeFunction(ActiveSpec[] starts, int maxRawBytes) {
        this(starts, maxRawBytes, 0);
    }

    private PipelinesDecodeFunction(ActiveSpec[] starts, int maxRawBytes, int countEvery) {
        this.decoders = new Decoders(starts, maxRawBytes, countEvery > 0);
        this.countEvery = countEvery;
    }

    /**
     * A decoder that also emits a {@link CostSample} per block on {@link CostSample#TAG}, counting
     * each field's bytes in its first block and every {@code countEvery}-th after it (as {@link
     * DecodeFunction#measured}).
     */
    public static PipelinesDecodeFunction measured(
            ActiveSpec[] starts, int maxRawBytes, int countEvery) {
        if (countEvery < 1) {
            throw new IllegalArgumentException("countEvery must be positive: " + countEvery);
        }
        return new PipelinesDecodeFunction(starts, maxRawBytes, countEvery);
    }

    @Override
    public void open(OpenContext openContext) {
        meter = countEvery > 0 ? CpuMeter.start() : null;
        metrics = new DecodeMetrics(getRuntimeContext().getMetricGroup());
    }

    @Override
    public void close() throws Exception {
        if (countEvery > 0) {
            meter.close(getRuntimeContext());
        }
        super.close();
    }

    @Override
    public void processElement(RawChunk chunk, Context ctx, Collector<KeyChunk> out) {
        boolean measure = countEvery > 0;
        long start = measure ? ThreadCpu.now() : 0;
        int p = decoders.pipeline(chunk.lane());
        CriteoDecoder.Decoded decoded =
                decoders.decode(
                        p,
                        null,
                        chunk,
                        measure && blocks++ % countEvery == 0,
                        dense -> ctx.output(DecodeFunction.DENSE, dense),
                        out);
        metrics.count(decoded.dense());
        if (measure) {
            long end = ThreadCpu.now();
            ctx.output(
                    CostSample.TAG, decoded.costSample(p, start, end, meter.sinceLastSample(end)));
        }
    }
}
