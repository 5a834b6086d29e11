package dev.piper.connectors.kafka;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/**
 * The coordinator's side of a split enumerator, for tests of one that only talks to its readers:
 * the readers registered, and each event sent to one handed to {@code sent} with its subtask.
 */
final class TestEnumeratorContext<S extends SourceSplit> implements SplitEnumeratorContext<S> {

    private final Map<Integer, ReaderInfo> readers = new TreeMap<>();
    private final BiConsumer<Integer, SourceEvent> sent;

    TestEnumeratorContext(BiConsumer<Integer, SourceEvent> sent) {
        this.sent = sent;
    }

    void register(int subtask) {
        readers.put(subtask, new ReaderInfo(subtask, "localhost"));
    }

    @Override
    public SplitEnumeratorMetricGroup metricGroup() {
        throw new UnsupportedOperationException("no metrics here");
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
        sent.accept(subtaskId, event);
    }

    @Override
    public int currentParallelism() {
        return readers.size();
    }

    @Override
    public Map<Integer, ReaderInfo> registeredReaders() {
        return readers;
    }

    @Override
    public void assignSplits(SplitsAssignment<S> assignment) {
        throw new UnsupportedOperationException("the enumerator under test assigns none");
    }

    @Override
    public void signalNoMoreSplits(int subtask) {
        throw new UnsupportedOperationException("unbounded");
    }

    @Override
    public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
        throw new UnsupportedOperationException("not asked");
    }

    @Override
    public <T> void callAsync(
            Callable<T> callable, BiConsumer<T, Throwable> handler, long delay, long period) {
        throw new UnsupportedOperationException("not asked");
    }

    @Override
    public void runInCoordinatorThread(Runnable runnable) {
        runnable.run();
    }
}
