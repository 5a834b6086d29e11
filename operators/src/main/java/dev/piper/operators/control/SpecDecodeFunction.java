package dev.piper.operators.control;

import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.Lanes;
import dev.piper.core.block.RawChunk;
import dev.piper.core.control.ActiveSpec;
import dev.piper.core.cost.CostSample;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.operators.block.SerializerTypeInfo;
import dev.piper.operators.cost.CostSamples;
import dev.piper.operators.decode.DecodeFunction;
import dev.piper.operators.decode.DecodeMetrics;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.streaming.api.functions.co.BroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

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

    /**
     * Each spec as this decoder starts using it: before the first block a subtask decodes under a
     * version (since it opened, so again after a restore), for the operators downstream that need
     * the spec of the blocks they receive (the output encoder).
     */
    public static final OutputTag<ActiveSpec> ANNOUNCED =
            new OutputTag<>(
                    "announced-specs",
                    new SerializerTypeInfo<>(ActiveSpec.class, new ActiveSpecSerializer()));

    private final Decoders decoders;

    private transient DecodeMetrics metrics;

    /** Per pipeline, the spec version this subtask announced last. */
    private transient int[] announced;

    /**
     * @param starts each pipeline's starting spec, by index
     * @param maxRawBytes how many bytes of a rejected line its dead letter keeps
     */
    public SpecDecodeFunction(ActiveSpec[] starts, int maxRawBytes) {
        this(starts, maxRawBytes, 0);
    }

    private SpecDecodeFunction(ActiveSpec[] starts, int maxRawBytes, int countEvery) {
        this.decoders = new Decoders(starts, maxRawBytes, countEvery);
    }

    /**
     * A decoder that also emits a {@link CostSample} per block on {@link CostSamples#TAG}, stamped
     * with the block's spec version (as {@link PipelinesDecodeFunction#measured}), and before the
     * first block it decodes under a version, that version's column program ({@link
     * CostSample#program}), so that the cost model prices each version's chains. After a restore
     * the programs are announced again with the first blocks.
     */
    public static SpecDecodeFunction measured(
            ActiveSpec[] starts, int maxRawBytes, int countEvery) {
        if (countEvery < 1) {
            throw new IllegalArgumentException("countEvery must be positive: " + countEvery);
        }
        return new SpecDecodeFunction(starts, maxRawBytes, countEvery);
    }

    @Override
    public void processElement(RawChunk chunk, ReadOnlyContext ctx, Collector<KeyChunk> out)
            throws Exception {
        int p = decoders.pipeline(chunk.lane());
        ActiveSpec spec = decoders.spec(p, ctx.getBroadcastState(SPECS).get(decoders.name(p)));
        if (announced[p] != spec.version()) {
            ctx.output(ANNOUNCED, spec);
            if (decoders.measures()) {
                ctx.output(CostSamples.TAG, CostSample.program(p, spec.program()));
            }
            announced[p] = spec.version();
        }
        CriteoDecoder.Decoded decoded =
                decoders.decode(
                        p,
                        spec,
                        chunk,
                        dense -> ctx.output(DecodeFunction.DENSE, dense),
                        out,
                        sample -> ctx.output(CostSamples.TAG, sample));
        metrics.count(decoded.dense());
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        super.open(openContext);
        metrics = new DecodeMetrics(getRuntimeContext().getMetricGroup());
        announced = new int[Lanes.MAX_PIPELINES];
        java.util.Arrays.fill(announced, -1);
        decoders.open();
    }

    @Override
    public void close() throws Exception {
        decoders.close(getRuntimeContext());
        super.close();
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
