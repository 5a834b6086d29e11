package dev.piper.pipeline.ops;

import java.util.Arrays;

/**
 * Bucketize: a value's bucket among sorted borders. Two conventions, named after numpy's {@code
 * right} flag:
 *
 * <ul>
 *   <li>{@code right = true} (the default, TorchRec's and TorchArrow's, {@code
 *       torch.bucketize(right=False)}, {@code numpy.digitize(right=True)}): the number of borders
 *       strictly below the value, so a value equal to a border falls in the bucket the border
 *       closes;
 *   <li>{@code right = false} ({@code numpy.digitize(right=False)}, {@code
 *       torch.bucketize(right=True)}): the number of borders at or below the value.
 * </ul>
 *
 * Buckets run from 0 to {@code borders.length}. NaN goes to the last bucket, {@code
 * borders.length}, as in numpy (NaN sorts after every number).
 */
public final class Bucketize {

    private final double[] borders;
    private final boolean right;

    /**
     * @param borders non-decreasing, at least one, no NaN
     * @param right the convention (above)
     * @throws IllegalArgumentException naming the first bad border
     */
    public Bucketize(double[] borders, boolean right) {
        if (borders.length == 0) {
            throw new IllegalArgumentException("bucketize needs at least one border");
        }
        for (int i = 0; i < borders.length; i++) {
            if (Double.isNaN(borders[i])) {
                throw new IllegalArgumentException("bucketize border " + i + " is NaN");
            }
            if (i > 0 && borders[i] < borders[i - 1]) {
                throw new IllegalArgumentException(
                        "bucketize borders must not decrease: border "
                                + i
                                + " ("
                                + borders[i]
                                + ") is below border "
                                + (i - 1)
                                + " ("
                                + borders[i - 1]
                                + ")");
            }
        }
        this.borders = borders.clone();
        this.right = right;
    }

    /** The default convention: the number of borders strictly below the value. */
    public static Bucketize of(double... borders) {
        return new Bucketize(borders, true);
    }

    /** How many buckets there are: {@code borders + 1}. */
    public int buckets() {
        return borders.length + 1;
    }

    /** The bucket of {@code v}. */
    public int bucket(double v) {
        if (Double.isNaN(v)) {
            return borders.length;
        }
        // First border that is >= v (right) or > v (left): its index is the count below.
        int lo = 0;
        int hi = borders.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            boolean below = right ? borders[mid] < v : borders[mid] <= v;
            if (below) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** {@code out[i] = bucket(in[i])} for the first {@code n} values. */
    public void apply(double[] in, int n, int[] out) {
        for (int i = 0; i < n; i++) {
            out[i] = bucket(in[i]);
        }
    }

    /** {@code out[i] = bucket(in[i])} for the first {@code n} integer values. */
    public void apply(long[] in, int n, int[] out) {
        for (int i = 0; i < n; i++) {
            out[i] = bucket((double) in[i]);
        }
    }

    /** The buckets of the integers {@code 0..n-1}: {@code table[v] == bucket(v)}. */
    public int[] smallIntegers(int n) {
        int[] table = new int[n];
        for (int v = 0; v < n; v++) {
            table[v] = bucket(v);
        }
        return table;
    }

    /** Equal when the borders and the convention are: the same function of every value. */
    @Override
    public boolean equals(Object o) {
        return o instanceof Bucketize b && right == b.right && Arrays.equals(borders, b.borders);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(borders) + Boolean.hashCode(right);
    }

    @Override
    public String toString() {
        return "bucketize(" + Arrays.toString(borders) + (right ? ")" : ", right=false)");
    }
}
