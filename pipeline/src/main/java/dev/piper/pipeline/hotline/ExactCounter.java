package dev.piper.pipeline.hotline;

import it.unimi.dsi.fastutil.longs.Long2IntMap;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.objects.ObjectIterator;

/**
 * Exact access counts of every entry (sparse column, index) a sampled row touched: the oracle the
 * bounded tracker is measured against. Its memory grows with the distinct entries counted; {@link
 * #decay} drops the ones whose count falls to 0.
 */
public final class ExactCounter {

    private final Long2IntOpenHashMap counts = new Long2IntOpenHashMap();

    /** Counts one access of {@code index} of sparse column {@code column}. */
    public void access(int column, int index) {
        counts.addTo(TopEntries.key(column, index), 1);
    }

    /** Sets an entry's count (restoring a snapshot). */
    public void put(long key, int count) {
        if (count > 0) {
            counts.put(key, count);
        }
    }

    /** The count of {@code index} of {@code column}. */
    public int count(int column, int index) {
        return counts.get(TopEntries.key(column, index));
    }

    /** Number of entries with a count. */
    public int size() {
        return counts.size();
    }

    /** Multiplies every count by {@code factor}, rounding down, and forgets the ones now 0. */
    public void decay(double factor) {
        if (factor >= 1) {
            return;
        }
        ObjectIterator<Long2IntMap.Entry> it = counts.long2IntEntrySet().fastIterator();
        while (it.hasNext()) {
            Long2IntMap.Entry e = it.next();
            int v = (int) (e.getIntValue() * factor);
            if (v == 0) {
                it.remove();
            } else {
                e.setValue(v);
            }
        }
    }

    /** The {@code k} most counted entries' keys, sorted ({@link TopEntries#select}). */
    public long[] top(int k) {
        int n = counts.size();
        long[] keys = new long[n];
        int[] values = new int[n];
        int i = 0;
        for (Long2IntMap.Entry e : counts.long2IntEntrySet()) {
            keys[i] = e.getLongKey();
            values[i] = e.getIntValue();
            i++;
        }
        return TopEntries.select(keys, values, n, k);
    }

    /** Every entry as {@code key, count} pairs, by key: the snapshot's content. */
    public long[] entries() {
        long[] keys = counts.keySet().toLongArray();
        java.util.Arrays.sort(keys);
        long[] pairs = new long[keys.length * 2];
        for (int i = 0; i < keys.length; i++) {
            pairs[2 * i] = keys[i];
            pairs[2 * i + 1] = counts.get(keys[i]);
        }
        return pairs;
    }
}
