package dev.piper.job;

import dev.piper.core.cost.ReportSettings;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;

/** Options of the hardware cost report ({@code docs/HARDWARE_MODEL.md}). */
public final class ReportOptions {

    private ReportOptions() {}

    public static final ConfigOption<Boolean> ENABLED =
            ConfigOptions.key("piper.report.enabled")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Measure each column's work and report what an FPGA (PIPER) or a"
                                    + " SmartSSD (PreSto) placement would give over it.");

    public static final ConfigOption<Duration> INTERVAL =
            ConfigOptions.key("piper.report.interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription("Processing time between two interval reports.");

    public static final ConfigOption<Long> INTERVAL_LINES =
            ConfigOptions.key("piper.report.interval-lines")
                    .longType()
                    .defaultValue(0L)
                    .withDescription(
                            "Also report whenever this many more input lines were decoded (0:"
                                    + " by time only).");

    public static final ConfigOption<Integer> FIELD_BYTES_EVERY =
            ConfigOptions.key("piper.report.field-bytes-every")
                    .intType()
                    .defaultValue(16)
                    .withDescription(
                            "Count each field's encoded bytes in every N-th block of a decoder"
                                    + " (and its first); the other blocks' bytes are split by the"
                                    + " shares counted so far. 1 counts every block, at about an"
                                    + " eighth of the decoding rate.");

    public static final ConfigOption<Long> FPGA_VOCABULARY_BYTES =
            ConfigOptions.key(ReportSettings.FPGA_VOCABULARY_BYTES_KEY)
                    .longType()
                    .noDefaultValue()
                    .withDescription(
                            "On-chip bytes of the FPGA given to vocabularies (default: 50% of the"
                                    + " U55C's 43 MB SRAM). Tables are assigned smallest first;"
                                    + " the others are off chip.");

    public static final ConfigOption<Long> WARMUP_LINES =
            ConfigOptions.key("piper.report.warmup-lines")
                    .longType()
                    .defaultValue(0L)
                    .withDescription(
                            "Lines a warm-up run over the input's prefix processed in this JVM"
                                    + " before the measured job (piper report sets it); the report"
                                    + " states whether its figures include the JIT's warm-up.");

    public static final ConfigOption<Double> TARGET_ROWS_PER_SECOND =
            ConfigOptions.key("piper.report.target-rows-per-second")
                    .doubleType()
                    .defaultValue(0.0)
                    .withDescription(
                            "A trainer's rows per second: the report sizes the fleet of FPGAs,"
                                    + " SmartSSDs and CPU cores that sustains it, ceil(T / P), with"
                                    + " its power and cost per million rows; 0: no sizing.");

    public static final ConfigOption<Double> CPU_WATTS =
            ConfigOptions.key("piper.report.cpu-watts")
                    .doubleType()
                    .noDefaultValue()
                    .withDescription(
                            "This machine's CPU package power, all its cores: the CPU's energy,"
                                    + " pro-rated to the core-seconds measured.");

    public static final ConfigOption<Double> DOLLARS_PER_KWH =
            ConfigOptions.key("piper.report.dollars-per-kwh")
                    .doubleType()
                    .defaultValue(ReportSettings.FleetTarget.NONE.dollarsPerKwh())
                    .withDescription("Electricity price for the fleet's energy cost (PreSto's).");

    public static final ConfigOption<Double> FPGA_PRICE =
            ConfigOptions.key("piper.report.price.fpga")
                    .doubleType()
                    .noDefaultValue()
                    .withDescription(
                            "One FPGA card's price in dollars, written off over 3 years (PreSto's"
                                    + " TCO duration); no paper gives one.");

    public static final ConfigOption<Double> SMARTSSD_PRICE =
            ConfigOptions.key("piper.report.price.smartssd")
                    .doubleType()
                    .noDefaultValue()
                    .withDescription("One SmartSSD's price in dollars, likewise.");

    public static final ConfigOption<Double> CORE_PRICE =
            ConfigOptions.key("piper.report.price.cpu-core")
                    .doubleType()
                    .noDefaultValue()
                    .withDescription("One CPU core's share of its server's price, likewise.");

    /** The report's settings from {@code conf}, or null if reporting is off. */
    public static ReportSettings settings(Configuration conf) {
        if (!conf.get(ENABLED)) {
            return null;
        }
        Duration interval = conf.get(INTERVAL);
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException(
                    INTERVAL.key() + ": must be positive, not " + interval);
        }
        long lines = conf.get(INTERVAL_LINES);
        if (lines < 0) {
            throw new IllegalArgumentException(
                    INTERVAL_LINES.key() + ": must not be negative, not " + lines);
        }
        long budget = conf.getOptional(FPGA_VOCABULARY_BYTES).orElse(-1L);
        if (conf.getOptional(FPGA_VOCABULARY_BYTES).isPresent() && budget < 0) {
            throw new IllegalArgumentException(
                    FPGA_VOCABULARY_BYTES.key() + ": must not be negative, not " + budget);
        }
        int every = conf.get(FIELD_BYTES_EVERY);
        if (every < 1) {
            throw new IllegalArgumentException(
                    FIELD_BYTES_EVERY.key() + ": must be at least 1, not " + every);
        }
        long warmup = conf.get(WARMUP_LINES);
        if (warmup < 0) {
            throw new IllegalArgumentException(
                    WARMUP_LINES.key() + ": must not be negative, not " + warmup);
        }
        ReportSettings.FleetTarget fleet =
                new ReportSettings.FleetTarget(
                        nonNegative(conf, TARGET_ROWS_PER_SECOND, 0),
                        nonNegative(conf, CPU_WATTS, Double.NaN),
                        nonNegative(
                                conf,
                                DOLLARS_PER_KWH,
                                ReportSettings.FleetTarget.NONE.dollarsPerKwh()),
                        nonNegative(conf, FPGA_PRICE, Double.NaN),
                        nonNegative(conf, SMARTSSD_PRICE, Double.NaN),
                        nonNegative(conf, CORE_PRICE, Double.NaN));
        return new ReportSettings(interval.toMillis(), lines, budget, every, warmup, fleet);
    }

    private static double nonNegative(Configuration conf, ConfigOption<Double> o, double absent) {
        double v = conf.getOptional(o).orElse(absent);
        if (v < 0) {
            throw new IllegalArgumentException(o.key() + ": must not be negative, not " + v);
        }
        return v;
    }
}
