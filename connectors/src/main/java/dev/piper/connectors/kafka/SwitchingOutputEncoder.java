package dev.piper.connectors.kafka;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.Lanes;
import dev.piper.core.control.ActiveSpec;
import dev.piper.operators.block.BlockTypes;
import dev.piper.operators.control.ActiveSpecSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The {@link OutputEncoder} of a reconfigurable stream, keyed by lane: it learns every accepted
 * spec from the control operator's broadcast (held in broadcast state, so a restored job knows them
 * again), and encodes each block with the rows' shape of the version it was decoded under (its row
 * columns, float32 and list columns, its vocabularies' OOV buckets).
 *
 * <p>A spec reaches the decoders and this encoder over different paths; should a block of a new
 * version arrive before its spec does, it waits, with every later block of its lane, in keyed state
 * until the spec arrives, so each lane's records keep their order.
 */
public final class SwitchingOutputEncoder
        extends KeyedBroadcastProcessFunction<Integer, AssembledBlock, ActiveSpec, KafkaOut> {

    private static final long serialVersionUID = 1L;

    /** The broadcast state: every accepted spec, by {@code pipeline index/version}. */
    public static final MapStateDescriptor<String, ActiveSpec> SPECS =
            new MapStateDescriptor<>(
                    "encoder-specs", StringSerializer.INSTANCE, new ActiveSpecSerializer());

    /** The keyed state: a lane's blocks waiting for their version's spec, in order. */
    static final ListStateDescriptor<AssembledBlock> WAITING =
            new ListStateDescriptor<>("encoder-waiting", BlockTypes.ASSEMBLED_BLOCK);

    private final OutputEncoder encoder;

    /** Each pipeline's name, by index. */
    private final String[] names;

    private transient ListState<AssembledBlock> waiting;

    /**
     * @param encoder the encoder, knowing every pipeline's starting spec
     * @param names each pipeline's name, by index
     */
    public SwitchingOutputEncoder(OutputEncoder encoder, String[] names) {
        this.encoder = encoder;
        this.names = names.clone();
    }

    @Override
    public void open(org.apache.flink.api.common.functions.OpenContext context) throws Exception {
        super.open(context);
        waiting = getRuntimeContext().getListState(WAITING);
    }

    @Override
    public void processElement(AssembledBlock block, ReadOnlyContext ctx, Collector<KafkaOut> out)
            throws Exception {
        int p = Lanes.pipeline(block.lane());
        if (!encoder.knows(p, block.version())) {
            learnAll(ctx.getBroadcastState(SPECS));
        }
        if (encoder.knows(p, block.version()) && !waiting.get().iterator().hasNext()) {
            encoder.flatMap(block, out); // the usual case: nothing waits in this lane
            return;
        }
        waiting.add(block);
        flush(waiting, out);
    }

    /**
     * Encodes a lane's waiting blocks, in order, up to the first whose version is still unknown;
     * keeps that one and the rest.
     */
    private void flush(ListState<AssembledBlock> blocks, Collector<KafkaOut> out) throws Exception {
        List<AssembledBlock> still = new ArrayList<>();
        for (AssembledBlock b : blocks.get()) {
            if (still.isEmpty() && encoder.knows(Lanes.pipeline(b.lane()), b.version())) {
                encoder.flatMap(b, out);
            } else {
                still.add(b);
            }
        }
        blocks.update(still);
    }

    @Override
    public void processBroadcastElement(ActiveSpec spec, Context ctx, Collector<KafkaOut> out)
            throws Exception {
        int p = indexOf(spec.name());
        ctx.getBroadcastState(SPECS).put(p + "/" + spec.version(), spec);
        encoder.learn(p, spec.program());
        ctx.applyToKeyedState(WAITING, (lane, blocks) -> flush(blocks, out));
    }

    /** Learns every spec in the broadcast state (a restored job's, before any broadcast). */
    private void learnAll(ReadOnlyBroadcastState<String, ActiveSpec> specs) throws Exception {
        for (Map.Entry<String, ActiveSpec> e : specs.immutableEntries()) {
            encoder.learn(indexOf(e.getValue().name()), e.getValue().program());
        }
    }

    private int indexOf(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        throw new IllegalStateException(
                "a spec of pipeline " + name + ", which the job does not run");
    }
}
