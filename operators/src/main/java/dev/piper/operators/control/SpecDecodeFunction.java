package dev.piper.operators.control;

import dev.piper.operators.block.KeyChunk;
import dev.piper.operators.block.RawChunk;
import dev.piper.operators.decode.CriteoDecoder;
import dev.piper.operators.decode.DecodeFunction;
import dev.piper.operators.decode.DecodeMetrics;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.streaming.api.functions.co.BroadcastProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The decoder of reconfigurable pipelines: decodes each raw block with the active spec of its
 * lane's pipeline as held in broadcast state ({@link #SPECS}, pipeline name to spec), or the
 * pipeline's starting spec while none has been accepted. Outputs as {@link DecodeFunction}: a key
 * chunk per sparse column, the dense chunk on {@link DecodeFunction#DENSE}; each stamped with the
 * spec's version and the columns' vocabulary epochs.
 *
 * <p>A block is decoded whole under one spec, so a switch falls between blocks: a spec takes
 * effect, in each input partition, with the first block this subtask decodes after the spec reached
 * it (a lane's blocks are decoded by one subtask, in order). The broadcast state is part of every
 * checkpoint, so a restored job decodes the blocks after the checkpoint with the spec that was
 * active at it.
 */
public final class SpecDecodeFunction
        extends BroadcastProcessFunction<RawChunk, ActiveSpec, KeyChunk> {

    private static final long serialVersionUID = 1L;

    /** The broadcast state: each pipeline's active spec. */
    public static final MapStateDescriptor<String, ActiveSpec> SPECS =
            new MapStateDescriptor<>(
                    "pipeline-specs", StringSerializer.INSTANCE, new ActiveSpecSerializer());

    private final Decoders decoders;
    private transient DecodeMetrics metrics;

    /**
     * @param starts each pipeline's starting spec, by index
     * @param maxRawBytes how many bytes of a rejected line its dead letter keeps
     */
    public SpecDecodeFunction(ActiveSpec[] starts, int maxRawBytes) {
        this.decoders = new Decoders(starts, maxRawBytes);
    }

    @Override
    public void processElement(RawChunk chunk, ReadOnlyContext ctx, Collector<KeyChunk> out)
            throws Exception {
        int p = decoders.pipeline(chunk.lane());
        CriteoDecoder.Decoded decoded =
                decoders.decode(
                        p,
                        ctx.getBroadcastState(SPECS).get(decoders.name(p)),
                        chunk,
                        false,
                        dense -> ctx.output(DecodeFunction.DENSE, dense),
                        out);
        metrics.count(decoded.dense());
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        super.open(openContext);
        metrics = new DecodeMetrics(getRuntimeContext().getMetricGroup());
    }

    @Override
    public void processBroadcastElement(ActiveSpec spec, Context ctx, Collector<KeyChunk> out)
            throws Exception {
        BroadcastState<String, ActiveSpec> specs = ctx.getBroadcastState(SPECS);
        ActiveSpec current = specs.get(spec.name());
        // Versions only grow; a replayed older message changes nothing.
        if (current == null || spec.version() > current.version()) {
            specs.put(spec.name(), spec);
        }
    }
}
