package dev.piper.pipeline.ops;

/**
 * The logit, {@code log(p / (1 - p))}, as {@code torch.logit(input, eps)} defines it: with an
 * {@code eps}, the input is first clamped to {@code [eps, 1 - eps]}; without one, values outside
 * {@code [0, 1]} give NaN and 0 and 1 give -inf and +inf. NaN stays NaN either way.
 */
public final class Logit {

    private final double eps;
    private final boolean clamped;

    private Logit(double eps, boolean clamped) {
        this.eps = eps;
        this.clamped = clamped;
    }

    /** {@code torch.logit(input)}: no clamping. */
    public static Logit unclamped() {
        return new Logit(0, false);
    }

    /**
     * {@code torch.logit(input, eps)}.
     *
     * @throws IllegalArgumentException if {@code eps} is not in {@code [0, 0.5]}
     */
    public static Logit clamped(double eps) {
        if (!(eps >= 0 && eps <= 0.5)) {
            throw new IllegalArgumentException("logit eps must be in [0, 0.5], not " + eps);
        }
        return new Logit(eps, true);
    }

    /** The logit of {@code p}. */
    public double logit(double p) {
        double z = p;
        if (clamped) {
            z = p < eps ? eps : p > 1 - eps ? 1 - eps : p; // NaN passes through
        }
        return Math.log(z / (1 - z));
    }

    /** {@code out[i] = logit(in[i])} for the first {@code n} values. */
    public void apply(double[] in, int n, double[] out) {
        for (int i = 0; i < n; i++) {
            out[i] = logit(in[i]);
        }
    }

    @Override
    public String toString() {
        return clamped ? "logit(eps=" + eps + ")" : "logit()";
    }
}
