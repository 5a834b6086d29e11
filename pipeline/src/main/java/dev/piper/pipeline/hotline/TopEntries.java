package dev.piper.pipeline.hotline;

import java.util.Arrays;

/** Chooses the most counted entries of a tracker, the same way for both trackers. */
final class TopEntries {

    private TopEntries() {}

    /**
     * The (at most) {@code k} entries with the highest counts among the first {@code n}, ties going
     * to the smaller key (column, then index), so the choice is the same on every run; entries
     * counted 0 are never chosen.
     *
     * @return the chosen keys, sorted
     */
    static long[] select(long[] keys, int[] counts, int n, int k) {
        if (k <= 0) {
            return new long[0];
        }
        int positive = 0;
        for (int i = 0; i < n; i++) {
            if (counts[i] > 0) {
                positive++;
            }
        }
        if (positive <= k) {
            long[] all = new long[positive];
            int j = 0;
            for (int i = 0; i < n; i++) {
                if (counts[i] > 0) {
                    all[j++] = keys[i];
                }
            }
            Arrays.sort(all);
            return all;
        }
        // the k-th highest count: every entry above it is chosen, and from the ones at it the
        // smallest keys until k
        int threshold = kthHighest(counts, n, positive, k);
        long[] chosen = new long[k];
        int c = 0;
        int t = 0;
        for (int i = 0; i < n; i++) {
            if (counts[i] > threshold) {
                chosen[c++] = keys[i];
            } else if (counts[i] == threshold) {
                t++;
            }
        }
        long[] tied = new long[t];
        t = 0;
        for (int i = 0; i < n; i++) {
            if (counts[i] == threshold) {
                tied[t++] = keys[i];
            }
        }
        Arrays.sort(tied);
        System.arraycopy(tied, 0, chosen, c, k - c);
        Arrays.sort(chosen);
        return chosen;
    }

    /** Counts up to this are ranked by a histogram; a larger one by sorting. */
    private static final int HISTOGRAM_LIMIT = 1 << 20;

    /**
     * The {@code k}-th highest of the positive values among {@code counts[0..n)} ({@code positive}
     * of them, more than {@code k}): by a histogram of the values (linear; sampled access counts
     * are small numbers), or by sorting when one exceeds {@link #HISTOGRAM_LIMIT}.
     */
    private static int kthHighest(int[] counts, int n, int positive, int k) {
        int max = 0;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, counts[i]);
        }
        if (max <= HISTOGRAM_LIMIT) {
            int[] histogram = new int[max + 1];
            for (int i = 0; i < n; i++) {
                if (counts[i] > 0) {
                    histogram[counts[i]]++;
                }
            }
            int seen = 0;
            for (int v = max; v > 0; v--) {
                seen += histogram[v];
                if (seen >= k) {
                    return v;
                }
            }
            throw new IllegalStateException("fewer than " + k + " positive counts");
        }
        int[] sorted = new int[positive];
        int j = 0;
        for (int i = 0; i < n; i++) {
            if (counts[i] > 0) {
                sorted[j++] = counts[i];
            }
        }
        Arrays.sort(sorted);
        return sorted[positive - k];
    }

    /** The entry key of index {@code index} of sparse column {@code column}. */
    static long key(int column, int index) {
        return ((long) column << 32) | (index & 0xffffffffL);
    }

    static int column(long key) {
        return (int) (key >>> 32);
    }

    static int index(long key) {
        return (int) key;
    }
}
