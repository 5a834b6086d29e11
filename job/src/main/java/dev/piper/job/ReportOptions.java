package dev.piper.job;

import dev.piper.operators.cost.ReportSettings;
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
        return new ReportSettings(interval.toMillis(), lines, budget, every);
    }
}
