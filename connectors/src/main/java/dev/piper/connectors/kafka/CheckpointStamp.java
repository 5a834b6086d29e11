package dev.piper.connectors.kafka;

import dev.piper.core.block.KafkaOut;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.StreamFormat;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Stamps each rows and vocabulary record with its commit stamp ({@link RowsRecord#CHECKPOINT}),
 * just before the exactly-once Kafka sink, chained to it: the id of the checkpoint whose completion
 * commits it, raised past every stamp the topics already hold where a stream fast-forwarded past an
 * earlier run's output ({@link #CheckpointStamp(long)}). Stamps so only grow along the topics, run
 * after run.
 *
 * <p>The sink writes the records that follow checkpoint {@code k}'s barrier into the transaction
 * that checkpoint {@code k + 1} commits; this function sees the same barrier first ({@link
 * #snapshotState}), so it stamps what follows it one more than it stamped before. A snapshot's own
 * stamp is the one it stored: a committed record stamped above it holds output committed after that
 * snapshot, which a stream resuming from it must not commit again ({@code StreamProgram}: refused,
 * or passed over by a fast-forward).
 *
 * <p>Its state is the stamp of the snapshot it last took (a long per subtask, Flink's own
 * serializer; before fast-forwards existed, that checkpoint's id, which is the same number): a
 * restored job goes on from the larger of it and the floor it is given.
 */
public final class CheckpointStamp
        implements MapFunction<KafkaOut, KafkaOut>, CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** Its state's descriptor: the stamp of the snapshot it last took. */
    static final ListStateDescriptor<Long> SEEN =
            new ListStateDescriptor<>("checkpoint-seen", LongSerializer.INSTANCE);

    /** Its state's name, which a launcher reads a snapshot's stamp by. */
    public static final String STATE_NAME = SEEN.getName();

    /** The highest stamp in the output topics when the job was built; its stamps go on above. */
    private final long floor;

    /** The stamp of the records passing now. */
    private long committedBy = 1;

    /** {@link #committedBy} as the header's bytes, made once per checkpoint. */
    private transient byte[] committedByText = StreamFormat.checkpointStamp(1);

    /** The stamp less the checkpoint id: 0 unless a floor raised the stamps. */
    private long raise;

    private transient ListState<Long> seen;

    /** Stamps from the checkpoint ids. */
    public CheckpointStamp() {
        this(0);
    }

    /**
     * Stamps above {@code floor}, the highest stamp the output topics hold: a stream that passed
     * over output an earlier run committed after its snapshot.
     */
    public CheckpointStamp(long floor) {
        if (floor < 0) {
            throw new IllegalArgumentException("a stamp floor of " + floor);
        }
        this.floor = floor;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        seen = context.getOperatorStateStore().getListState(SEEN);
        long restoredId = context.getRestoredCheckpointId().orElse(0);
        long last = restoredId;
        for (Long stamp : seen.get()) {
            last = Math.max(last, stamp);
        }
        long base = Math.max(last, floor);
        raise = base - restoredId;
        committedBy = base + 1;
        committedByText = StreamFormat.checkpointStamp(committedBy);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        long stamp = Math.max(context.getCheckpointId() + raise, committedBy);
        committedBy = stamp + 1;
        committedByText = StreamFormat.checkpointStamp(committedBy);
        seen.update(java.util.List.of(stamp));
    }

    @Override
    public KafkaOut map(KafkaOut record) {
        int kind = record.target() % KafkaOut.KINDS;
        if (kind != KafkaOut.ROWS && kind != KafkaOut.VOCAB) {
            return record;
        }
        return StreamFormat.withCheckpoint(record, committedByText);
    }
}
