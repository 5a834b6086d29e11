package dev.piper.pipeline.ops;

/**
 * Clamp a column into {@code [lo, hi]} ({@code torch.clamp}, RAP's Clamp): values below {@code lo}
 * become {@code lo}, above {@code hi} become {@code hi}; NaN stays NaN, as in PyTorch. {@code lo <=
 * hi} is enforced, and neither bound may be NaN.
 */
public final class Clamp {

    private final double lo;
    private final double hi;

    /**
     * @throws IllegalArgumentException if a bound is NaN or {@code lo > hi}
     */
    public Clamp(double lo, double hi) {
        if (Double.isNaN(lo) || Double.isNaN(hi)) {
            throw new IllegalArgumentException("clamp bounds must be numbers: " + lo + ", " + hi);
        }
        if (lo > hi) {
            throw new IllegalArgumentException(
                    "clamp needs lo <= hi, not lo " + lo + " > hi " + hi);
        }
        this.lo = lo;
        this.hi = hi;
    }

    /** The clamped value. */
    public double clamp(double v) {
        return v < lo ? lo : v > hi ? hi : v; // NaN fails both tests and stays NaN
    }

    /** {@code out[i] = clamp(in[i])} for the first {@code n} values. */
    public void apply(double[] in, int n, double[] out) {
        for (int i = 0; i < n; i++) {
            out[i] = clamp(in[i]);
        }
    }

    /**
     * Clamps integer values into the integers of {@code [lo, hi]}: {@code [ceil(lo), floor(hi)]},
     * saturated to the long range.
     *
     * @throws IllegalArgumentException if that range holds no integer
     */
    public void apply(long[] in, int n, long[] out) {
        long low = saturate(Math.ceil(lo));
        long high = saturate(Math.floor(hi));
        if (low > high) {
            throw new IllegalArgumentException(
                    "clamp(" + lo + ", " + hi + ") holds no integer for an integer column");
        }
        for (int i = 0; i < n; i++) {
            long v = in[i];
            out[i] = v < low ? low : v > high ? high : v;
        }
    }

    private static long saturate(double v) {
        return (long) v; // Java's cast saturates at Long.MIN_VALUE and Long.MAX_VALUE
    }

    @Override
    public String toString() {
        return "clamp(" + lo + ", " + hi + ")";
    }
}
