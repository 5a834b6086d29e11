package dev.piper.operators.control;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.Lanes;
import dev.piper.core.control.ControlStatus;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Reports where each input partition switched specs. Keyed by lane and placed after the per-lane
 * sequence, it sees each partition's blocks in input order; the first block whose spec version
 * differs from the previous block's gets an {@code effective} status record (on {@link
 * ControlFunction#STATUS}'s tag) with its first input offset: the exact switch point. Blocks pass
 * through unchanged. The last version per lane is keyed state, so a restore reports each switch
 * once.
 */
public final class SwitchTracker
        extends KeyedProcessFunction<Integer, AssembledBlock, AssembledBlock> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<KafkaOut> STATUS = ControlFunction.STATUS;

    private static final ValueStateDescriptor<Integer> LAST_VERSION =
            new ValueStateDescriptor<>("last-version", IntSerializer.INSTANCE);

    private final String[] names;
    private final int[] startVersions;
    private final String[] inputTopics;

    private transient ValueState<Integer> lastVersion;

    /**
     * @param names each pipeline's name, by index
     * @param startVersions each pipeline's starting spec version
     * @param inputTopics each pipeline's input topic
     */
    public SwitchTracker(String[] names, int[] startVersions, String[] inputTopics) {
        if (names.length != startVersions.length || names.length != inputTopics.length) {
            throw new IllegalArgumentException("one name, version and topic per pipeline");
        }
        this.names = names.clone();
        this.startVersions = startVersions.clone();
        this.inputTopics = inputTopics.clone();
    }

    @Override
    public void open(OpenContext openContext) {
        lastVersion = getRuntimeContext().getState(LAST_VERSION);
    }

    @Override
    public void processElement(AssembledBlock block, Context ctx, Collector<AssembledBlock> out)
            throws Exception {
        int p = Lanes.pipeline(block.lane());
        Integer stored = lastVersion.value();
        int last = stored == null ? startVersions[p] : stored;
        if (block.version() != last) {
            long offset = block.origin().isLog() ? block.origin().offsets()[0] : block.seq();
            ctx.output(
                    STATUS,
                    ControlStatus.effective(
                            names[p],
                            block.version(),
                            last,
                            inputTopics[p],
                            Lanes.partition(block.lane()),
                            offset));
        }
        if (stored == null || stored != block.version()) {
            lastVersion.update(block.version());
        }
        out.collect(block);
    }
}
