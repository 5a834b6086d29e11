package dev.piper.connectors.text;

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
final class FileChunkEnumerator
        implements SplitEnumerator<FileChunkSplit, FileChunkEnumerator.State> {

    /**
     * What the enumerator checkpoints.
     *
     * @param path the file
     * @param fileLength its length in bytes; unused for a stream
     * @param rangeBytes bytes per range; 0 when the file is read as one stream
     * @param nextRange the index of the next range to hand out
     * @param pending splits to hand out before any new range
     */
    record State(
            String path,
            long fileLength,
            long rangeBytes,
            long nextRange,
            List<FileChunkSplit> pending) {

        static State ranges(String path, long fileLength, long rangeBytes) {
            return new State(path, fileLength, rangeBytes, 0, List.of());
        }

        static State stream(String path) {
            return new State(path, 0, 0, 0, List.of(FileChunkSplit.stream(path, 0, 0)));
        }

        long rangeCount() {
            return rangeBytes == 0 ? 0 : (fileLength + rangeBytes - 1) / rangeBytes;
        }
    }

    private final SplitEnumeratorContext<FileChunkSplit> context;
    private final State initial;
    private final int rangesPerSplit;
    private final Deque<FileChunkSplit> pending;
    private long nextRange;

    /**
     * @param rangesPerSplit consecutive ranges per split handed out (not state: a restored job may
     *     use another)
     */
    FileChunkEnumerator(
            SplitEnumeratorContext<FileChunkSplit> context, State state, int rangesPerSplit) {
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
    public State snapshotState(long checkpointId) {
        return new State(
                initial.path(),
                initial.fileLength(),
                initial.rangeBytes(),
                nextRange,
                new ArrayList<>(pending));
    }

    @Override
    public void close() {}
}
