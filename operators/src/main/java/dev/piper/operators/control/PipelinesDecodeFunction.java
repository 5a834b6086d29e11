package dev.piper.operators.control;

import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.control.ActiveSpec;
import dev.piper.core.cost.CostSample;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.operators.cost.CostSamples;
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

    private transient DecodeMetrics metrics;

    /**
     * @param starts each pipeline's spec, by index
     * @param maxRawBytes how many bytes of a rejected line its dead letter keeps
     */
    public PipelinesDecodeFunction(ActiveSpec[] starts, int maxRawBytes) {
        this(starts, maxRawBytes, 0);
    }

    private PipelinesDecodeFunction(ActiveSpec[] starts, int maxRawBytes, int countEvery) {
        this.decoders = new Decoders(starts, maxRawBytes, countEvery);
    }

    /**
     * A decoder that also emits a {@link CostSample} per block on {@link CostSamples#TAG}, counting
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
        decoders.open();
        metrics = new DecodeMetrics(getRuntimeContext().getMetricGroup());
    }

    @Override
    public void close() throws Exception {
        decoders.close(getRuntimeContext());
        super.close();
    }

    @Override
    public void processElement(RawChunk chunk, Context ctx, Collector<KeyChunk> out) {
        int p = decoders.pipeline(chunk.lane());
        CriteoDecoder.Decoded decoded =
                decoders.decode(
                        p,
                        null,
                        chunk,
                        dense -> ctx.output(DecodeFunction.DENSE, dense),
                        out,
                        sample -> ctx.output(CostSamples.TAG, sample));
        metrics.count(decoded.dense());
    }
}
