package dev.piper.pipeline.ops;

/**
 * The Box-Cox transform ({@code scipy.special.boxcox}, RAP's BoxCox): {@code (x^lambda - 1) /
 * lambda}, and {@code log(x)} at {@code lambda == 0}. As in SciPy, {@code x < 0} gives NaN, and
 * {@code x == 0} gives {@code -1/lambda} (or {@code -inf} at {@code lambda == 0}); NaN stays NaN.
 */
public final class BoxCox {

    private final double lambda;

    /**
     * @throws IllegalArgumentException if {@code lambda} is not a finite number
     */
    public BoxCox(double lambda) {
        if (!Double.isFinite(lambda)) {
            throw new IllegalArgumentException("boxcox lambda must be finite, not " + lambda);
        }
        this.lambda = lambda;
    }

    /** The transformed value. */
    public double transform(double x) {
        if (x < 0) {
            return Double.NaN;
        }
        return lambda == 0 ? Math.log(x) : (Math.pow(x, lambda) - 1) / lambda;
    }

    /** {@code out[i] = transform(in[i])} for the first {@code n} values. */
    public void apply(double[] in, int n, double[] out) {
        for (int i = 0; i < n; i++) {
            out[i] = transform(in[i]);
        }
    }

    @Override
    public String toString() {
        return "boxcox(" + lambda + ")";
    }
}
