package dev.piper.connectors.text.source.enumerator;

import dev.piper.connectors.source.SplitQueue;
import dev.piper.connectors.text.source.split.FileChunkSplit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Hands out splits in input order, one per request: first any split returned by a failed reader,
 * then the file's byte ranges from the lowest, {@code rangesPerSplit} consecutive ones per split
 * (made on demand, so a terabyte file costs no more state than a small one), or the single stream
 * split of a file that cannot be split. Readers ask for a split when they finish one, so the ranges
 * in progress are always the lowest ones not yet done: the reorder buffers of the order-sensitive
 * operators stay bounded by the number of readers times the ranges of a split, not by the input. A
 * split of several ranges costs one request and one assignment (each a remote call with Java
 * serialization in Flink's runtime) instead of one per range.
 */
public final class FileChunkEnumerator
        implements SplitEnumerator<FileChunkSplit, FileChunkEnumState> {

    private final SplitEnumeratorContext<FileChunkSplit> context;
    private final FileChunkEnumState initial;
    private final int rangesPerSplit;
    private final Deque<FileChunkSplit> pending;
    private long nextRange;

    /**
     * @param rangesPerSplit consecutive ranges per split handed out (not state: a restored job may
     *     use another)
     */
    public FileChunkEnumerator(
            SplitEnumeratorContext<FileChunkSplit> context,
            FileChunkEnumState state,
            int rangesPerSplit) {
        if (rangesPerSplit < 1) {
            throw new IllegalArgumentException(
                    "ranges per split must be positive: " + rangesPerSplit);
        }
        this.context = context;
        this.initial = state;
        this.rangesPerSplit = rangesPerSplit;
        this.pending = new ArrayDeque<>(state.pending());
        this.nextRange = state.nextRange();
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        FileChunkSplit split = pending.poll();
        if (split == null && nextRange < initial.rangeCount()) {
            long last = Math.min(nextRange + rangesPerSplit, initial.rangeCount());
            long start = nextRange * initial.rangeBytes();
            long end = Math.min(last * initial.rangeBytes(), initial.fileLength());
            split =
                    FileChunkSplit.ranges(
                            initial.path(), nextRange, start, end, initial.rangeBytes());
            nextRange = last;
        }
        if (split != null) {
            context.assignSplit(split, subtaskId);
        } else {
            context.signalNoMoreSplits(subtaskId);
        }
    }

    @Override
    public void addSplitsBack(List<FileChunkSplit> splits, int subtaskId) {
        SplitQueue.returnInOrder(pending, splits, FileChunkSplit::seq);
    }

    @Override
    public void addReader(int subtaskId) {}

    @Override
    public FileChunkEnumState snapshotState(long checkpointId) {
        return new FileChunkEnumState(
                initial.path(),
                initial.fileLength(),
                initial.rangeBytes(),
                nextRange,
                new ArrayList<>(pending));
    }

    @Override
    public void close() {}
}
