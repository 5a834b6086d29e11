package dev.piper.connectors.kafka;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * The split enumerator of a source whose readers bound their read-ahead ({@link ReadAheadReader})
 * across one another, not only among their own splits: each reader reports where it holds the
 * others back ({@link ReaderHold}), and each is told the least of the other readers' holds ({@link
 * OthersHold}), which bounds its splits as its own most-behind split does. Every other call goes to
 * the enumerator it wraps (Kafka's), whose state is the checkpoint's unchanged.
 *
 * <p>Without it the readers of the label join's source drift apart: on two cores, catching up on
 * 2,000,000 impressions and their clicks with two readers bounded each among its own partitions,
 * the join held 40,000 to 220,000 keys (each impression waiting for the slower reader's watermark;
 * its window and retention need 12,000); bounded against each other, 15,000 to 41,000, with a
 * quarter of the stream's garbage-collection CPU ({@code docs/PERFORMANCE.md}, "The label join").
 *
 * <p>Holds live in memory only: a reader registering (at its start or after a restart) holds
 * nothing until it reports again, and a new enumerator (after a failover) starts with none. A hold
 * reported late or lost only paces reading; it never changes a record, a watermark or a row.
 *
 * @param <S> the split type
 * @param <C> the enumerator's checkpoint type
 */
final class ReadAheadEnumerator<S extends SourceSplit, C> implements SplitEnumerator<S, C> {

    /** A reader's hold: the least event time at which one of its splits holds others back. */
    record ReaderHold(long ms) implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }

    /** The least hold of the other readers; {@link Long#MAX_VALUE} where none holds. */
    record OthersHold(long ms) implements SourceEvent {
        private static final long serialVersionUID = 1L;
    }

    private final SplitEnumerator<S, C> enumerator;
    private final SplitEnumeratorContext<S> context;

    /** Each reader's latest hold, by subtask; a reader without one holds nothing. */
    private final Map<Integer, Long> holds = new HashMap<>();

    /** What each reader was last told, by subtask. */
    private final Map<Integer, Long> told = new HashMap<>();

    ReadAheadEnumerator(SplitEnumerator<S, C> enumerator, SplitEnumeratorContext<S> context) {
        this.enumerator = Objects.requireNonNull(enumerator);
        this.context = Objects.requireNonNull(context);
    }

    @Override
    public void start() {
        enumerator.start();
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        enumerator.handleSplitRequest(subtaskId, requesterHostname);
    }

    @Override
    public void addSplitsBack(List<S> splits, int subtaskId) {
        enumerator.addSplitsBack(splits, subtaskId);
    }

    /** A reader (re)registered: whatever it held before holds no more, until it reports. */
    @Override
    public void addReader(int subtaskId) {
        enumerator.addReader(subtaskId);
        holds.remove(subtaskId);
        told.remove(subtaskId);
        tell();
    }

    @Override
    public C snapshotState(long checkpointId) throws Exception {
        return enumerator.snapshotState(checkpointId);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        enumerator.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) throws Exception {
        enumerator.notifyCheckpointAborted(checkpointId);
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (event instanceof ReaderHold hold) {
            holds.put(subtaskId, hold.ms());
            tell();
        } else {
            enumerator.handleSourceEvent(subtaskId, event);
        }
    }

    @Override
    public void close() throws IOException {
        enumerator.close();
    }

    /** Tells each registered reader the least hold of the others, where it changed. */
    private void tell() {
        for (int reader : context.registeredReaders().keySet()) {
            long least = Long.MAX_VALUE;
            for (Map.Entry<Integer, Long> h : holds.entrySet()) {
                if (h.getKey() != reader) {
                    least = Math.min(least, h.getValue());
                }
            }
            Long before = told.put(reader, least);
            if (before == null ? least != Long.MAX_VALUE : before != least) {
                context.sendEventToSourceReader(reader, new OthersHold(least));
            }
        }
    }
}
