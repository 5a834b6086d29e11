package dev.piper.connectors.source;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToLongFunction;
import org.apache.flink.core.io.InputStatus;

/**
 * The splits a source reader has been given and not started, and the availability future Flink
 * polls: what the file readers (text and Parquet) share.
 */
public final class SplitQueue<S> {

    private final Deque<S> queued = new ArrayDeque<>();
    private boolean noMoreSplits;
    private CompletableFuture<Void> available = new CompletableFuture<>();

    /** Takes splits assigned to the reader ({@code SourceReader.addSplits}). */
    public void add(List<S> splits) {
        queued.addAll(splits);
        available.complete(null);
    }

    /** The enumerator has no more splits ({@code SourceReader.notifyNoMoreSplits}). */
    public void noMoreSplits() {
        noMoreSplits = true;
        available.complete(null);
    }

    /** The next split, or null. */
    public S poll() {
        return queued.poll();
    }

    /**
     * What a reader without a split reports: the end of its input once the enumerator has no more
     * splits, otherwise that nothing is available until {@link #available()} completes.
     */
    public InputStatus idle() {
        if (noMoreSplits) {
            return InputStatus.END_OF_INPUT;
        }
        if (available.isDone()) {
            available = new CompletableFuture<>();
        }
        return InputStatus.NOTHING_AVAILABLE;
    }

    /** Completes when a split arrives or the enumerator has no more ({@code isAvailable}). */
    public CompletableFuture<Void> available() {
        return available;
    }

    /** The splits not started, in order, for a checkpoint. */
    public List<S> queued() {
        return new ArrayList<>(queued);
    }

    /**
     * Puts splits a failed reader held back at the front of an enumerator's {@code pending}, lowest
     * {@code order} first, so that the lowest unfinished ones are handed out next.
     */
    public static <S> void returnInOrder(Deque<S> pending, List<S> back, ToLongFunction<S> order) {
        List<S> sorted = new ArrayList<>(back);
        sorted.sort(Comparator.comparingLong(order).reversed());
        sorted.forEach(pending::addFirst);
    }
}
