package dev.piper.pipeline.hotline;

import it.unimi.dsi.fastutil.longs.Long2IntMap;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.objects.ObjectIterator;
import java.util.Arrays;

/**
 * Exact access counts of every entry (sparse column, index) a sampled row touched: the oracle the
 * bounded tracker is measured against, and by default what chooses the hot set.
 *
 * <p>Vocabulary indices are dense and popular ids get the small ones (an index is the rank of an
 * id's first appearance), so a column's counts are an array indexed by the index: the accesses of a
 * skewed column fall on a few cache lines, where a hash table would scatter them (measured: the
 * hash table made counting the largest cost of the split). Indices from {@link #DENSE_LIMIT} on (a
 * column without a vocabulary, whose values are hashed ids) are counted in a hash table. Memory: 4
 * bytes per index up to the largest counted (below the limit), 16 MiB a column at most, plus the
 * hash table's entries.
 */
public final class ExactCounter {

    /** Indices below this are counted in a column's array. */
    static final int DENSE_LIMIT = 1 << 22;

    private int[][] dense = new int[0][];
    private final Long2IntOpenHashMap sparse = new Long2IntOpenHashMap();
    private int counted; // entries with a count > 0

    /** Counts one access of {@code index} of sparse column {@code column}. */
    public void access(int column, int index) {
        if (index >= 0 && index < DENSE_LIMIT) {
            int[] c = column < dense.length ? dense[column] : null;
            if (c == null || index >= c.length) {
                c = grow(column, index);
            }
            if (c[index]++ == 0) {
                counted++;
            }
            if (c[index] < 0) {
                c[index] = Integer.MAX_VALUE; // saturated
            }
            return;
        }
        if (sparse.addTo(TopEntries.key(column, index), 1) == 0) {
            counted++;
        }
    }

    private int[] grow(int column, int index) {
        if (column >= dense.length) {
            dense = Arrays.copyOf(dense, Math.max(column + 1, dense.length * 2));
        }
        int[] c = dense[column];
        int size = Math.max(64, c == null ? 0 : c.length);
        while (size <= index) {
            size = (int) Math.min(DENSE_LIMIT, 2L * size);
        }
        dense[column] = c == null ? new int[size] : Arrays.copyOf(c, size);
        return dense[column];
    }

    /** Sets an entry's count (restoring a snapshot). */
    public void put(long key, int count) {
        if (count <= 0) {
            return;
        }
        int column = TopEntries.column(key);
        int index = TopEntries.index(key);
        if (index >= 0 && index < DENSE_LIMIT) {
            int[] c = column < dense.length ? dense[column] : null;
            if (c == null || index >= c.length) {
                c = grow(column, index);
            }
            if (c[index] == 0) {
                counted++;
            }
            c[index] = count;
        } else if (sparse.put(key, count) == 0) {
            counted++;
        }
    }

    /** The count of {@code index} of {@code column}. */
    public int count(int column, int index) {
        if (index >= 0 && index < DENSE_LIMIT) {
            int[] c = column < dense.length ? dense[column] : null;
            return c == null || index >= c.length ? 0 : c[index];
        }
        return sparse.get(TopEntries.key(column, index));
    }

    /** Number of entries with a count. */
    public int size() {
        return counted;
    }

    /** Multiplies every count by {@code factor}, rounding down, and forgets the ones now 0. */
    public void decay(double factor) {
        if (factor >= 1) {
            return;
        }
        for (int[] c : dense) {
            if (c == null) {
                continue;
            }
            for (int i = 0; i < c.length; i++) {
                if (c[i] > 0) {
                    c[i] = (int) (c[i] * factor);
                    if (c[i] == 0) {
                        counted--;
                    }
                }
            }
        }
        ObjectIterator<Long2IntMap.Entry> it = sparse.long2IntEntrySet().fastIterator();
        while (it.hasNext()) {
            Long2IntMap.Entry e = it.next();
            int v = (int) (e.getIntValue() * factor);
            if (v == 0) {
                it.remove();
                counted--;
            } else {
                e.setValue(v);
            }
        }
    }

    /** The {@code k} most counted entries' keys, sorted ({@link TopEntries#select}). */
    public long[] top(int k) {
        long[] pairs = entries();
        int n = pairs.length / 2;
        long[] keys = new long[n];
        int[] values = new int[n];
        for (int i = 0; i < n; i++) {
            keys[i] = pairs[2 * i];
            values[i] = (int) pairs[2 * i + 1];
        }
        return TopEntries.select(keys, values, n, k);
    }

    /** Every entry as {@code key, count} pairs, by key: the snapshot's content. */
    public long[] entries() {
        long[] pairs = new long[2 * counted];
        int j = 0;
        long[] large = sparse.keySet().toLongArray();
        Arrays.sort(large);
        int next = 0; // the next hash-table key, in key order
        for (int column = 0; column < dense.length; column++) {
            int[] c = dense[column];
            if (c != null) {
                for (int i = 0; i < c.length; i++) {
                    if (c[i] > 0) {
                        pairs[j++] = TopEntries.key(column, i);
                        pairs[j++] = c[i];
                    }
                }
            }
            // this column's indices from DENSE_LIMIT on, and columns' before it that have none
            while (next < large.length && TopEntries.column(large[next]) <= column) {
                pairs[j++] = large[next];
                pairs[j++] = sparse.get(large[next++]);
            }
        }
        while (next < large.length) {
            pairs[j++] = large[next];
            pairs[j++] = sparse.get(large[next++]);
        }
        if (j != pairs.length) {
            throw new IllegalStateException(j / 2 + " counted entries, " + counted + " expected");
        }
        return pairs;
    }
}
