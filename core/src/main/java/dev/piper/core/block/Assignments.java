package dev.piper.core.block;

/**
 * What an evicting vocabulary assigned while applying one block of its column: the first {@code
 * fresh} gave out indices no key held before, each later one reused the index of the key it
 * evicted. Each takes effect at its row of the block: from that row on, the index names the new key
 * (a row before it that uses the index means the evicted one).
 *
 * @param first the column's number of the first assignment: the assignments its vocabulary (this
 *     epoch's) made before this block, so the assignments of all blocks order without gaps
 * @param fresh how many of the first assignments took an index no key held before
 * @param indices the indices, as the rows hold them (the OOV buckets before them counted)
 * @param keys the key given each index
 * @param rows the row of the block (of its valid rows, from 0) where each takes effect
 * @param evicted for assignments {@code fresh..}, the key each evicted
 */
public record Assignments(
        long first, int fresh, int[] indices, long[] keys, int[] rows, long[] evicted) {

    public Assignments {
        int n = indices.length;
        if (first < 0
                || fresh < 0
                || fresh > n
                || keys.length != n
                || rows.length != n
                || evicted.length != n - fresh) {
            throw new IllegalArgumentException(
                    "assignments: first "
                            + first
                            + ", "
                            + fresh
                            + " fresh, "
                            + n
                            + " indices, "
                            + keys.length
                            + " keys, "
                            + rows.length
                            + " rows, "
                            + evicted.length
                            + " evicted");
        }
        for (int i = 1; i < n; i++) {
            if (rows[i] < rows[i - 1]) {
                throw new IllegalArgumentException(
                        "assignments out of row order: " + rows[i - 1] + " then " + rows[i]);
            }
        }
    }

    /** The number of assignments. */
    public int size() {
        return indices.length;
    }

    /** Whether assignment {@code i} reused an evicted key's index. */
    public boolean reused(int i) {
        return i >= fresh;
    }

    /** The key assignment {@code i} evicted; only for {@link #reused reused} ones. */
    public long evictedBy(int i) {
        return evicted[i - fresh];
    }
}
