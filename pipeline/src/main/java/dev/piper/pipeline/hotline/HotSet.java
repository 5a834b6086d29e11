package dev.piper.pipeline.hotline;

import java.util.Arrays;

/**
 * The popular entries of a window: per sparse column, the sorted indices whose embedding rows sit
 * in GPU memory. Membership is a bit test (or a binary search for a column whose hot indices are
 * spread over a range too wide for a bitmap).
 */
public final class HotSet {

    /** The widest index range a column's bitmap covers (8 MiB of bits). */
    private static final int MAX_BITMAP_INDEX = 1 << 26;

    private final int[][] indices;
    private final long[][] bits; // per column, or null: binary search
    private final int size;

    /**
     * @param indices per sparse column, its hot indices, sorted ascending without repeats
     */
    public HotSet(int[][] indices) {
        this.indices = indices;
        this.bits = new long[indices.length][];
        int n = 0;
        for (int c = 0; c < indices.length; c++) {
            int[] hot = indices[c];
            for (int i = 0; i < hot.length; i++) {
                if (hot[i] < 0 || (i > 0 && hot[i] <= hot[i - 1])) {
                    throw new IllegalArgumentException(
                            "hot indices of C" + (c + 1) + " are not ascending non-negative");
                }
            }
            n += hot.length;
            if (hot.length == 0) {
                bits[c] = new long[0];
            } else if (hot[hot.length - 1] < MAX_BITMAP_INDEX) {
                long[] b = new long[(hot[hot.length - 1] >>> 6) + 1];
                for (int i : hot) {
                    b[i >>> 6] |= 1L << i;
                }
                bits[c] = b;
            }
        }
        this.size = n;
    }

    /** An empty hot set over {@code columns} sparse columns: every row is non-popular. */
    public static HotSet empty(int columns) {
        return new HotSet(new int[columns][0]);
    }

    /**
     * The hot set of the entry keys {@code sorted} (column, index packed, ascending: {@link
     * ExactCounter#top}, {@link SrripTracker#top}).
     */
    public static HotSet ofKeys(long[] sorted, int columns) {
        int[] perColumn = new int[columns];
        for (long k : sorted) {
            perColumn[TopEntries.column(k)]++;
        }
        int[][] indices = new int[columns][];
        for (int c = 0; c < columns; c++) {
            indices[c] = new int[perColumn[c]];
        }
        int[] fill = new int[columns];
        for (long k : sorted) {
            int c = TopEntries.column(k);
            indices[c][fill[c]++] = TopEntries.index(k);
        }
        return new HotSet(indices);
    }

    /** Whether {@code index} of sparse column {@code column} is hot. */
    public boolean contains(int column, int index) {
        long[] b = bits[column];
        if (b != null) {
            int w = index >>> 6;
            return w < b.length && (b[w] & (1L << index)) != 0;
        }
        return Arrays.binarySearch(indices[column], index) >= 0;
    }

    /** Number of sparse columns. */
    public int columns() {
        return indices.length;
    }

    /** Hot entries over all columns. */
    public int size() {
        return size;
    }

    /** Column {@code c}'s hot indices, sorted (not to be modified). */
    public int[] indices(int c) {
        return indices[c];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HotSet h && Arrays.deepEquals(indices, h.indices);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(indices);
    }

    @Override
    public String toString() {
        return size + " hot entries over " + indices.length + " columns";
    }
}
