package dev.piper.job.source;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Hands the file's single split to the first reader that asks, and "no more splits" to every other
 * request. A split returned by a failed reader is handed out again.
 */
final class FileChunkEnumerator implements SplitEnumerator<FileChunkSplit, List<FileChunkSplit>> {

    private final SplitEnumeratorContext<FileChunkSplit> context;
    private final Deque<FileChunkSplit> unassigned;

    FileChunkEnumerator(
            SplitEnumeratorContext<FileChunkSplit> context, List<FileChunkSplit> unassigned) {
        this.context = context;
        this.unassigned = new ArrayDeque<>(unassigned);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        FileChunkSplit split = unassigned.poll();
        if (split != null) {
            context.assignSplit(split, subtaskId);
        } else {
            context.signalNoMoreSplits(subtaskId);
        }
    }

    @Override
    public void addSplitsBack(List<FileChunkSplit> splits, int subtaskId) {
        splits.forEach(unassigned::addFirst);
    }

    @Override
    public void addReader(int subtaskId) {}

    @Override
    public List<FileChunkSplit> snapshotState(long checkpointId) {
        return new ArrayList<>(unassigned);
    }

    @Override
    public void close() {}
}
