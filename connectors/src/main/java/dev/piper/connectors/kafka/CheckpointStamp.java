package dev.piper.connectors.kafka;

import dev.piper.core.block.KafkaOut;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Stamps each rows record with the id of the checkpoint whose completion commits it ({@link
 * StreamFormat#CHECKPOINT}), just before the exactly-once Kafka sink, chained to it.
 *
 * <p>The sink writes the records that follow checkpoint {@code k}'s barrier into the transaction
 * that checkpoint {@code k + 1} commits; this function sees the same barrier first ({@link
 * #snapshotState}), so it stamps what follows it {@code k + 1}. A job restored from checkpoint or
 * savepoint {@code k} numbers its next checkpoint {@code k + 1}, and what it writes before that one
 * is committed by it. So a committed rows record stamped above the id of the snapshot a stream is
 * about to resume from holds output that the resume would commit a second time, and the stream
 * refuses to start ({@code StreamProgram}).
 *
 * <p>Its state is the id of the checkpoint it last saw (a long per subtask, Flink's own
 * serializer): the id a restore gives is what counts, and Flink gives it only to a task that holds
 * state, so the stamp holds its own rather than rely on the operators chained to it.
 */
public final class CheckpointStamp
        implements MapFunction<KafkaOut, KafkaOut>, CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** Its state's descriptor: the checkpoint it last saw. */
    static final ListStateDescriptor<Long> SEEN =
            new ListStateDescriptor<>("checkpoint-seen", LongSerializer.INSTANCE);

    /** The checkpoint that commits the records passing now. */
    private long committedBy = 1;

    private transient ListState<Long> seen;

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        seen = context.getOperatorStateStore().getListState(SEEN);
        long last = 0;
        for (Long id : seen.get()) {
            last = Math.max(last, id);
        }
        committedBy = Math.max(context.getRestoredCheckpointId().orElse(0), last) + 1;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        committedBy = context.getCheckpointId() + 1;
        seen.update(java.util.List.of(context.getCheckpointId()));
    }

    @Override
    public KafkaOut map(KafkaOut record) {
        if (record.target() % KafkaOut.KINDS != KafkaOut.ROWS) {
            return record;
        }
        return stamped(record, committedBy);
    }

    /** {@code record} with {@link StreamFormat#CHECKPOINT} {@code checkpoint} after its headers. */
    static KafkaOut stamped(KafkaOut record, long checkpoint) {
        int n = record.headerNames().length;
        String[] names = Arrays.copyOf(record.headerNames(), n + 1);
        byte[][] values = Arrays.copyOf(record.headerValues(), n + 1);
        names[n] = StreamFormat.CHECKPOINT;
        values[n] = Long.toString(checkpoint).getBytes(StandardCharsets.US_ASCII);
        return new KafkaOut(
                record.target(), record.key(), record.value(), names, values, record.spread());
    }
}
