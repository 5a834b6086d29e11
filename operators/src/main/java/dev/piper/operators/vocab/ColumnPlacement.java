package dev.piper.operators.vocab;

import java.io.Serializable;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Which key each categorical column's vocabulary uses, chosen so that the columns' work is balanced
 * over the vocabulary subtasks (RAP's workload-balanced placement).
 *
 * <p>Flink sends a key to key group {@code murmur(hash(key)) mod maxParallelism} and gives each
 * subtask a contiguous range of key groups. Keyed by the bare column index, the 26 Criteo columns
 * land unevenly: at parallelism 2, one subtask gets 16 columns including all five with the largest
 * vocabularies. Here each column gets its own key group: the column of cost rank {@code r} (0 for
 * the most expensive) goes to position {@code v(r)} of the key-group range, where {@code v} is the
 * base-2 van der Corput sequence (0, 1/2, 1/4, 3/4, 1/8, ...). The 2^k most expensive columns thus
 * fall into 2^k different parts of the range, so at a power-of-two parallelism no two of them share
 * a subtask, and the low-discrepancy sequence keeps other parallelisms near-even too. The key is
 * the smallest integer that hashes to that key group.
 *
 * <p>Keys depend only on the costs and the maximum parallelism, never on the parallelism, so a
 * vocabulary keeps its key when a savepoint is restored at another parallelism (the maximum
 * parallelism is fixed by the savepoint).
 */
public final class ColumnPlacement implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int[] keys;

    private ColumnPlacement(int[] keys) {
        this.keys = keys;
    }

    /**
     * A placement for columns of the given relative costs.
     *
     * @param costs expected cost per column, positive
     * @param maxParallelism the job's maximum parallelism (number of key groups); at least the
     *     number of columns
     */
    public static ColumnPlacement balanced(double[] costs, int maxParallelism) {
        int n = costs.length;
        if (maxParallelism < n) {
            throw new IllegalArgumentException(
                    "max parallelism " + maxParallelism + " is below the " + n + " columns");
        }
        Integer[] byCost =
                IntStream.range(0, n)
                        .boxed()
                        .sorted(
                                Comparator.comparingDouble((Integer c) -> -costs[c])
                                        .thenComparing(c -> c))
                        .toArray(Integer[]::new);
        boolean[] taken = new boolean[maxParallelism];
        int[] keys = new int[n];
        for (int rank = 0; rank < n; rank++) {
            int group = (int) Math.floor(radicalInverse(rank) * maxParallelism);
            while (taken[group]) {
                group = (group + 1) % maxParallelism;
            }
            taken[group] = true;
            keys[byCost[rank]] = smallestKeyIn(group, maxParallelism);
        }
        return new ColumnPlacement(keys);
    }

    /** The base-2 van der Corput sequence: 0, 1/2, 1/4, 3/4, 1/8, 5/8, ... */
    static double radicalInverse(int i) {
        return Integer.reverse(i) / 0x1p32 + (Integer.reverse(i) < 0 ? 1 : 0);
    }

    private static int smallestKeyIn(int keyGroup, int maxParallelism) {
        for (int k = 0; ; k++) {
            if (KeyGroupRangeAssignment.assignToKeyGroup(k, maxParallelism) == keyGroup) {
                return k;
            }
        }
    }

    /** The key of column {@code column}'s vocabulary. */
    public int keyOf(int column) {
        return keys[column];
    }
}
