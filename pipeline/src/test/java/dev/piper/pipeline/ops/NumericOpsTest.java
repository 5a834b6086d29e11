package dev.piper.pipeline.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Clamp, BoxCox and Logit against their reference definitions (PyTorch, SciPy). */
class NumericOpsTest {

    private static double[] apply(
            java.util.function.BiConsumer<double[], double[]> op, double... in) {
        double[] out = new double[in.length];
        op.accept(in, out);
        return out;
    }

    @Test
    void clampKeepsNaNAndRefusesBadBounds() {
        Clamp c = new Clamp(-1, 2.5);
        double[] out =
                apply(
                        (in, o) -> c.apply(in, in.length, o),
                        -3,
                        -1,
                        0,
                        2.5,
                        7,
                        Double.NaN,
                        Double.NEGATIVE_INFINITY,
                        Double.POSITIVE_INFINITY);
        assertThat(out[5]).isNaN(); // torch.clamp(nan) is nan
        assertThat(java.util.Arrays.copyOf(out, 5)).containsExactly(-1, -1, 0, 2.5, 2.5);
        assertThat(new double[] {out[6], out[7]}).containsExactly(-1, 2.5);
        assertThatThrownBy(() -> new Clamp(3, 2)).hasMessageContaining("lo 3.0 > hi 2.0");
        assertThatThrownBy(() -> new Clamp(Double.NaN, 2)).hasMessageContaining("must be numbers");
    }

    @Test
    void clampOnIntegersUsesTheIntegersInside() {
        long[] out = new long[5];
        new Clamp(-1.5, 2.5).apply(new long[] {-9, -1, 0, 3, Long.MAX_VALUE}, 5, out);
        assertThat(out).containsExactly(-1, -1, 0, 2, 2);
        new Clamp(Double.NEGATIVE_INFINITY, 0).apply(new long[] {Long.MIN_VALUE, 5}, 2, out);
        assertThat(new long[] {out[0], out[1]}).containsExactly(Long.MIN_VALUE, 0);
        assertThatThrownBy(() -> new Clamp(0.2, 0.8).apply(new long[] {1}, 1, new long[1]))
                .hasMessageContaining("holds no integer");
    }

    /** scipy.special.boxcox documentation: boxcox([1, 4, 10], 2.5) = [0, 12.4, 126.09110641]. */
    @Test
    void boxCoxMatchesSciPy() {
        BoxCox b = new BoxCox(2.5);
        double[] out = apply((in, o) -> b.apply(in, in.length, o), 1, 4, 10);
        assertThat(out[0]).isEqualTo(0.0);
        assertThat(out[1]).isCloseTo(12.4, within(1e-12));
        assertThat(out[2]).isCloseTo(126.09110641, within(1e-8));
        // lambda 0 is log; x < 0 is NaN; x == 0 is -1/lambda, or -inf at lambda 0; NaN stays.
        assertThat(new BoxCox(0).transform(Math.E)).isCloseTo(1.0, within(1e-15));
        assertThat(new BoxCox(0).transform(0)).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(new BoxCox(2).transform(0)).isEqualTo(-0.5);
        assertThat(new BoxCox(2).transform(-1)).isNaN();
        assertThat(new BoxCox(2).transform(Double.NaN)).isNaN();
        assertThat(new BoxCox(2).transform(1e200)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThatThrownBy(() -> new BoxCox(Double.NaN)).hasMessageContaining("finite");
    }

    /** torch.logit: log(p / (1 - p)), the input clamped to [eps, 1 - eps] when eps is given. */
    @Test
    void logitMatchesPyTorch() {
        Logit plain = Logit.unclamped();
        assertThat(plain.logit(0.5)).isEqualTo(0.0);
        assertThat(plain.logit(0.25)).isCloseTo(Math.log(1.0 / 3), within(1e-15));
        assertThat(plain.logit(0)).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(plain.logit(1)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(plain.logit(1.5)).isNaN();
        assertThat(plain.logit(-0.5)).isNaN();
        Logit eps = Logit.clamped(0.1);
        double[] out = apply((in, o) -> eps.apply(in, in.length, o), 0, 1, 1.5, 0.5, Double.NaN);
        assertThat(out[0]).isCloseTo(Math.log(0.1 / 0.9), within(1e-15));
        assertThat(out[1]).isCloseTo(Math.log(0.9 / 0.1), within(1e-12));
        assertThat(out[2]).isEqualTo(out[1]);
        assertThat(out[3]).isEqualTo(0.0);
        assertThat(out[4]).isNaN();
        assertThatThrownBy(() -> Logit.clamped(0.6)).hasMessageContaining("[0, 0.5]");
        assertThatThrownBy(() -> Logit.clamped(Double.NaN)).hasMessageContaining("[0, 0.5]");
    }
}
