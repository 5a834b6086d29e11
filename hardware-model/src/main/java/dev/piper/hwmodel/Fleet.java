package dev.piper.hwmodel;

/**
 * How many devices of one kind sustain a trainer's rows per second, and what they cost per million
 * rows (PreSto §IV-B and §V-C; COMBINING.md pitfalls 8 and 10): {@code N = ceil(T / P)} with {@code
 * P} one device's throughput; the fleet draws {@code N x W} while producing {@code T} rows/s; its
 * energy costs {@code dollarsPerKwh}, and its devices, when a price is given, are written off over
 * {@code years} at that rate (PreSto's cost-efficiency, Throughput x Duration / (CapEx + OpEx),
 * inverted).
 *
 * @param devices how many devices
 * @param watts the fleet's power ({@code NaN} when a device's is unknown)
 * @param joulesPerMillionRows the fleet's energy per million rows at the target rate
 * @param energyDollarsPerMillionRows that energy's price
 * @param capexDollarsPerMillionRows the devices' price per million rows over their years ({@code
 *     NaN} without a price)
 */
public record Fleet(
        long devices,
        double watts,
        double joulesPerMillionRows,
        double energyDollarsPerMillionRows,
        double capexDollarsPerMillionRows) {

    /** PreSto's electricity price, $/kWh (PS §V-C). */
    public static final double PRESTO_DOLLARS_PER_KWH = 0.0733;

    /** PreSto's duration for TCO, years (PS §V-C). */
    public static final double PRESTO_YEARS = 3;

    private static final double SECONDS_PER_YEAR = 365 * 24 * 3600.0;

    /**
     * The fleet of one kind of device for {@code targetRowsPerSecond}.
     *
     * @param perDeviceRowsPerSecond one device's throughput (positive)
     * @param wattsPerDevice one device's power, or {@code NaN} if unknown
     * @param pricePerDevice one device's price in dollars, or {@code NaN} if unknown
     */
    public static Fleet of(
            double targetRowsPerSecond,
            double perDeviceRowsPerSecond,
            double wattsPerDevice,
            double dollarsPerKwh,
            double pricePerDevice,
            double years) {
        if (!(targetRowsPerSecond > 0)) {
            throw new IllegalArgumentException(
                    "target rows per second: must be positive, not " + targetRowsPerSecond);
        }
        long n = Sizing.devices(targetRowsPerSecond, perDeviceRowsPerSecond);
        double watts = n * wattsPerDevice;
        double joules = watts / targetRowsPerSecond * 1e6;
        double energy = joules / 3.6e6 * dollarsPerKwh;
        double capex = n * pricePerDevice / (targetRowsPerSecond * years * SECONDS_PER_YEAR) * 1e6;
        return new Fleet(n, watts, joules, energy, capex);
    }
}
