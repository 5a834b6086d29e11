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
        int[] sorted = new int[positive];
        int j = 0;
        for (int i = 0; i < n; i++) {
            if (counts[i] > 0) {
                sorted[j++] = counts[i];
            }
        }
        Arrays.sort(sorted);
        int threshold = sorted[positive - k];
        int above = positive - upperBound(sorted, threshold);
        long[] chosen = new long[k];
        long[] tied = new long[positive];
        int c = 0;
        int t = 0;
        for (int i = 0; i < n; i++) {
            if (counts[i] > threshold) {
                chosen[c++] = keys[i];
            } else if (counts[i] == threshold) {
                tied[t++] = keys[i];
            }
        }
        assert c == above;
        Arrays.sort(tied, 0, t);
        System.arraycopy(tied, 0, chosen, c, k - c);
        Arrays.sort(chosen);
        return chosen;
    }

    /** The index of the first element of sorted {@code a} greater than {@code v}. */
    private static int upperBound(int[] a, int v) {
        int lo = 0;
        int hi = a.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] <= v) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
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
