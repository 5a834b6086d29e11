package dev.piper.job.control;

import dev.piper.operators.block.KeyChunk;
import dev.piper.operators.block.RawChunk;
import dev.piper.operators.decode.DecodeFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The decoder of a job running several pipelines with fixed specs: each block is decoded with the
 * spec of its lane's pipeline. Outputs as {@link DecodeFunction}.
 */
public final class PipelinesDecodeFunction extends ProcessFunction<RawChunk, KeyChunk> {

    private static final long serialVersionUID = 1L;

    private final Decoders decoders;

    /**
     * @param starts each pipeline's spec, by index
     * @param maxRawBytes how many bytes of a rejected line its dead letter keeps
     */
    public PipelinesDecodeFunction(ActiveSpec[] starts, int maxRawBytes) {
        this.decoders = new Decoders(starts, maxRawBytes);
    }

    @Override
    public void processElement(RawChunk chunk, Context ctx, Collector<KeyChunk> out) {
        decoders.decode(
                decoders.pipeline(chunk.lane()),
                null,
                chunk,
                dense -> ctx.output(DecodeFunction.DENSE, dense),
                out);
    }
}
