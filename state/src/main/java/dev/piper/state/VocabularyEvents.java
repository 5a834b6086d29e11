package dev.piper.state;

import java.util.Arrays;

/**
 * What an evicting {@link Vocabulary} did while applying one block: its assignments, in order. An
 * assignment gives an index to a key, from the row (of the block) where the key first used it: the
 * first {@link #fresh()} took indices no key held before, each later one reused the index of the
 * key it evicted. A reader replaying them in order, each at its row, knows at every row which key
 * each index names.
 *
 * <p>A buffer, reused block after block ({@link #clear()}); not thread-safe.
 */
public final class VocabularyEvents {

    private int size;
    private int fresh;
    private int[] indices = new int[16];
    private long[] keys = new long[16];
    private long[] evicted = new long[16];
    private int[] rows = new int[16];

    /** Forgets the events, for the next block. */
    public void clear() {
        size = 0;
        fresh = 0;
    }

    void assignFresh(int index, long key, int row) {
        if (fresh != size) {
            throw new IllegalStateException("a fresh index after a reused one");
        }
        add(index, key, 0, row);
        fresh++;
    }

    void reuse(int index, long key, long evictedKey, int row) {
        add(index, key, evictedKey, row);
    }

    private void add(int index, long key, long evictedKey, int row) {
        if (size == indices.length) {
            int grown = size * 2;
            indices = Arrays.copyOf(indices, grown);
            keys = Arrays.copyOf(keys, grown);
            evicted = Arrays.copyOf(evicted, grown);
            rows = Arrays.copyOf(rows, grown);
        }
        indices[size] = index;
        keys[size] = key;
        evicted[size] = evictedKey;
        rows[size] = row;
        size++;
    }

    /** The number of assignments. */
    public int size() {
        return size;
    }

    /** How many of the first assignments took indices no key held before. */
    public int fresh() {
        return fresh;
    }

    /** The indices assigned (entry indices, from 0: before the OOV buckets are added). */
    public int[] indices() {
        return Arrays.copyOf(indices, size);
    }

    /** The keys given an index. */
    public long[] keys() {
        return Arrays.copyOf(keys, size);
    }

    /** For assignments {@code fresh()..size()}: the key each evicted. */
    public long[] evicted() {
        return Arrays.copyOfRange(evicted, fresh, size);
    }

    /** The row of the block where each assignment's key first used its index. */
    public int[] rows() {
        return Arrays.copyOf(rows, size);
    }
}
