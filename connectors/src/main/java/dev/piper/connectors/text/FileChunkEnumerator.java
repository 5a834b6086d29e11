package dev.piper.connectors.text;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Hands out splits in input order, one per request: first any split returned by a failed reader,
 * then the file's byte ranges from the lowest (ranges are made on demand, so a terabyte file costs
 * no more state than a small one), or the single stream split of a file that cannot be split.
 * Readers ask for a split when they finish one, so the ranges in progress are always the lowest
 * ones not yet done: the reorder buffers of the order-sensitive operators stay bounded by the
 * number of readers, not by the input.
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
    private final Deque<FileChunkSplit> pending;
    private long nextRange;

    FileChunkEnumerator(SplitEnumeratorContext<FileChunkSplit> context, State state) {
        this.context = context;
        this.initial = state;
        this.pending = new ArrayDeque<>(state.pending());
        this.nextRange = state.nextRange();
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        FileChunkSplit split = pending.poll();
        if (split == null && nextRange < initial.rangeCount()) {
            long start = nextRange * initial.rangeBytes();
            long end = Math.min(start + initial.rangeBytes(), initial.fileLength());
            split = FileChunkSplit.range(initial.path(), nextRange, start, end);
            nextRange++;
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
