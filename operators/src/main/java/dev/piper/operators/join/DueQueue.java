package dev.piper.operators.join;

import java.util.Arrays;
import java.util.NoSuchElementException;

/**
 * The label join's keys by the time each is next due: a binary min-heap over two parallel arrays
 * (times and keys), so that a step of a sift compares two longs in one array rather than following
 * a reference to an object per entry. A {@code java.util.PriorityQueue} of (time, key) records in
 * its place took 58 of the join threads' 368 profile samples in its polls on 600,000 impressions
 * ({@code docs/PERFORMANCE.md}, "The label join"). A key may be queued more than once; the join
 * skips the entries its state no longer agrees with. Not thread-safe.
 */
final class DueQueue {

    private long[] at = new long[64];
    private String[] keys = new String[64];
    private int size;

    /** Queues {@code key} at {@code time}. */
    void add(long time, String key) {
        if (size == at.length) {
            at = Arrays.copyOf(at, size * 2);
            keys = Arrays.copyOf(keys, size * 2);
        }
        int i = size++;
        while (i > 0) { // sift up
            int parent = (i - 1) >>> 1;
            if (at[parent] <= time) {
                break;
            }
            at[i] = at[parent];
            keys[i] = keys[parent];
            i = parent;
        }
        at[i] = time;
        keys[i] = key;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** The earliest time queued; the queue is not empty. */
    long firstTime() {
        if (size == 0) {
            throw new NoSuchElementException("no key is queued");
        }
        return at[0];
    }

    /** The key of the earliest time queued; the queue is not empty. */
    String firstKey() {
        if (size == 0) {
            throw new NoSuchElementException("no key is queued");
        }
        return keys[0];
    }

    /** Takes away the earliest entry; the queue is not empty. */
    void removeFirst() {
        if (size == 0) {
            throw new NoSuchElementException("no key is queued");
        }
        int last = --size;
        long time = at[last];
        String key = keys[last];
        keys[last] = null;
        if (last == 0) {
            return;
        }
        int i = 0;
        int half = last >>> 1;
        while (i < half) { // sift down
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < last && at[right] < at[child]) {
                child = right;
            }
            if (time <= at[child]) {
                break;
            }
            at[i] = at[child];
            keys[i] = keys[child];
            i = child;
        }
        at[i] = time;
        keys[i] = key;
    }
}
