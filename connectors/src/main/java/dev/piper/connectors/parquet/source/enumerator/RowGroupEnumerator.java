package dev.piper.connectors.parquet.source.enumerator;

import dev.piper.connectors.parquet.source.split.RowGroupSplit;
import dev.piper.connectors.source.SplitQueue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Hands out row groups in file order, one per request, a returned one first: the row groups in
 * progress are always the lowest ones not done.
 */
public final class RowGroupEnumerator
        implements SplitEnumerator<RowGroupSplit, List<RowGroupSplit>> {
    private final SplitEnumeratorContext<RowGroupSplit> context;
    private final Deque<RowGroupSplit> pending;

    public RowGroupEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context, List<RowGroupSplit> splits) {
        this.context = context;
        this.pending = new ArrayDeque<>(splits);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        RowGroupSplit split = pending.poll();
        if (split != null) {
            context.assignSplit(split, subtaskId);
        } else {
            context.signalNoMoreSplits(subtaskId);
        }
    }

    @Override
    public void addSplitsBack(List<RowGroupSplit> splits, int subtaskId) {
        SplitQueue.returnInOrder(pending, splits, RowGroupSplit::firstSeq);
    }

    @Override
    public void addReader(int subtaskId) {}

    @Override
    public List<RowGroupSplit> snapshotState(long checkpointId) {
        return new ArrayList<>(pending);
    }

    @Override
    public void close() {}
}
