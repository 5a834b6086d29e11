package dev.piper.cli;

import dev.piper.job.ReportOptions;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The options of the hardware cost report, shared by {@code preprocess} and {@code report}. */
final class ReportCliOptions {

    @Option(
            names = "--report-interval",
            paramLabel = "DURATION",
            defaultValue = "10s",
            description =
                    "Processing time between interval reports, e.g. 10s, 1min (default:"
                            + " ${DEFAULT-VALUE}).")
    String interval;

    @Option(
            names = "--report-interval-lines",
            paramLabel = "N",
            defaultValue = "0",
            description =
                    "Also report after every N decoded lines; 0: by time only (default:"
                            + " ${DEFAULT-VALUE}).")
    long intervalLines;

    @Option(
            names = "--report-field-bytes-every",
            paramLabel = "N",
            defaultValue = "16",
            description =
                    "Count each field's bytes in every N-th block of a decoder; the others are"
                            + " split by the shares counted so far; 1 counts all, slower"
                            + " (default: ${DEFAULT-VALUE}).")
    int fieldBytesEvery;

    @Option(
            names = "--fpga-vocabulary-bytes",
            paramLabel = "B",
            description =
                    "On-chip FPGA bytes for vocabularies (default: half of the U55C's 43 MB"
                            + " SRAM); tables are placed smallest first, the rest off chip.")
    Long fpgaVocabularyBytes;

    @Option(
            names = "--target-rows-per-second",
            paramLabel = "T",
            defaultValue = "0",
            description =
                    "Size the fleet for a trainer's T rows/s: FPGAs, SmartSSDs and CPU cores,"
                            + " ceil(T / one's rows/s), with their power and cost per million rows"
                            + " (default: ${DEFAULT-VALUE}, no sizing).")
    double target;

    @Option(
            names = "--cpu-watts",
            paramLabel = "W",
            description =
                    "Power of this machine's CPU package (all its cores): the CPU's energy,"
                            + " pro-rated to the core-seconds measured.")
    Double cpuWatts;

    @Option(
            names = "--dollars-per-kwh",
            paramLabel = "P",
            defaultValue = "0.0733",
            description =
                    "Electricity price for the fleet's energy cost (default: ${DEFAULT-VALUE},"
                            + " PreSto's).")
    double dollarsPerKwh;

    @Option(
            names = "--fpga-price",
            paramLabel = "D",
            description =
                    "One FPGA card's price in dollars, written off over 3 years (PreSto's TCO"
                            + " duration); no paper gives one.")
    Double fpgaPrice;

    @Option(
            names = "--smartssd-price",
            paramLabel = "D",
            description = "One SmartSSD's price in dollars, likewise.")
    Double smartSsdPrice;

    @Option(
            names = "--core-price",
            paramLabel = "D",
            description = "One CPU core's share of its server's price in dollars, likewise.")
    Double corePrice;

    private static void notNegative(CommandLine cmd, String option, Double value) {
        if (value != null && (value < 0 || Double.isNaN(value))) {
            throw new ParameterException(cmd, option + ": must not be negative, not " + value);
        }
    }

    /** Turns the report on in {@code conf} with these settings. */
    void apply(CommandLine cmd, Configuration conf) {
        Duration d;
        try {
            d = TimeUtils.parseDuration(interval);
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new ParameterException(
                    cmd, "--report-interval: \"" + interval + "\" is not a duration (e.g. 10s)");
        }
        if (d.isZero() || d.isNegative()) {
            throw new ParameterException(
                    cmd, "--report-interval: must be positive, not " + interval);
        }
        if (intervalLines < 0) {
            throw new ParameterException(
                    cmd, "--report-interval-lines: must not be negative, not " + intervalLines);
        }
        if (fpgaVocabularyBytes != null && fpgaVocabularyBytes < 0) {
            throw new ParameterException(
                    cmd,
                    "--fpga-vocabulary-bytes: must not be negative, not " + fpgaVocabularyBytes);
        }
        if (fieldBytesEvery < 1) {
            throw new ParameterException(
                    cmd, "--report-field-bytes-every: must be at least 1, not " + fieldBytesEvery);
        }
        notNegative(cmd, "--target-rows-per-second", target);
        notNegative(cmd, "--cpu-watts", cpuWatts);
        notNegative(cmd, "--dollars-per-kwh", dollarsPerKwh);
        notNegative(cmd, "--fpga-price", fpgaPrice);
        notNegative(cmd, "--smartssd-price", smartSsdPrice);
        notNegative(cmd, "--core-price", corePrice);
        conf.set(ReportOptions.ENABLED, true);
        conf.set(ReportOptions.TARGET_ROWS_PER_SECOND, target);
        conf.set(ReportOptions.DOLLARS_PER_KWH, dollarsPerKwh);
        if (cpuWatts != null) {
            conf.set(ReportOptions.CPU_WATTS, cpuWatts);
        }
        if (fpgaPrice != null) {
            conf.set(ReportOptions.FPGA_PRICE, fpgaPrice);
        }
        if (smartSsdPrice != null) {
            conf.set(ReportOptions.SMARTSSD_PRICE, smartSsdPrice);
        }
        if (corePrice != null) {
            conf.set(ReportOptions.CORE_PRICE, corePrice);
        }
        conf.set(ReportOptions.FIELD_BYTES_EVERY, fieldBytesEvery);
        conf.set(ReportOptions.INTERVAL, d);
        conf.set(ReportOptions.INTERVAL_LINES, intervalLines);
        if (fpgaVocabularyBytes != null) {
            conf.set(ReportOptions.FPGA_VOCABULARY_BYTES, fpgaVocabularyBytes);
        }
    }
}
