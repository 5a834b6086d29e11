package dev.piper.hwmodel;

/**
 * Fleet sizing and energy (PreSto §IV-B, COMBINING.md pitfalls 8 and 10), and RAP's exposed
 * preprocessing latency on a GPU shared with training (RAP §5.3).
 */
public final class Sizing {

    private Sizing() {}

    /**
     * Devices needed to sustain {@code targetRowsPerSecond}: {@code ceil(T / P)} with {@code P} one
     * device's throughput (throughput, not a per-batch latency ratio).
     */
    public static long devices(double targetRowsPerSecond, double perDeviceRowsPerSecond) {
        if (perDeviceRowsPerSecond <= 0 || targetRowsPerSecond < 0) {
            throw new IllegalArgumentException(
                    "throughputs must be positive: target "
                            + targetRowsPerSecond
                            + ", per device "
                            + perDeviceRowsPerSecond);
        }
        // A hair below an integer ratio is that integer: rounding noise must not add a device.
        return (long) Math.ceil(targetRowsPerSecond / perDeviceRowsPerSecond - 1e-9);
    }

    /** Energy in joules of a device drawing {@code watts} for {@code seconds}. */
    public static double joules(double watts, double seconds) {
        return watts * seconds;
    }

    /**
     * The electricity cost in dollars of drawing {@code watts} continuously for {@code years} at
     * {@code dollarsPerKwh}: PreSto's OpEx (PS §V-C: OpEx = power x duration x electricity).
     */
    public static double energyDollars(double watts, double years, double dollarsPerKwh) {
        double hours = years * 365 * 24;
        return watts / 1000 * hours * dollarsPerKwh;
    }

    /**
     * RAP's exposed preprocessing latency: the kernels' summed standalone latencies minus the
     * training computation they overlap, never below zero.
     */
    public static double exposedLatency(double[] kernelLatencies, double overlappingCompute) {
        double sum = 0;
        for (double l : kernelLatencies) {
            sum += l;
        }
        return Math.max(0, sum - overlappingCompute);
    }
}
