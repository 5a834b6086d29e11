package dev.piper.job.launch;

import dev.piper.job.ReportOptions;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import dev.piper.job.args.JobOption;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;

/**
 * The options of the hardware cost report, shared by {@code preprocess}, {@code stream} and {@code
 * report}.
 */
public final class ReportArgs {

    static final String INTERVAL = "--report-interval";
    static final String INTERVAL_LINES = "--report-interval-lines";
    static final String FIELD_BYTES_EVERY = "--report-field-bytes-every";
    static final String FPGA_VOCABULARY_BYTES = "--fpga-vocabulary-bytes";
    static final String TARGET = "--target-rows-per-second";
    static final String CPU_WATTS = "--cpu-watts";
    static final String DOLLARS_PER_KWH = "--dollars-per-kwh";
    static final String FPGA_PRICE = "--fpga-price";
    static final String SMARTSSD_PRICE = "--smartssd-price";
    static final String CORE_PRICE = "--core-price";

    public static final List<JobOption> OPTIONS =
            List.of(
                    JobOption.value(
                            INTERVAL,
                            "DURATION",
                            "10s",
                            "Processing time between interval reports, e.g. 10s, 1min (default:"
                                    + " ${DEFAULT-VALUE})."),
                    JobOption.value(
                            INTERVAL_LINES,
                            "N",
                            "0",
                            "Also report after every N decoded lines; 0: by time only (default:"
                                    + " ${DEFAULT-VALUE})."),
                    JobOption.value(
                            FIELD_BYTES_EVERY,
                            "N",
                            "16",
                            "Count each field's bytes in every N-th block of a decoder; the"
                                    + " others are split by the shares counted so far; 1 counts"
                                    + " all, slower (default: ${DEFAULT-VALUE})."),
                    JobOption.value(
                            FPGA_VOCABULARY_BYTES,
                            "B",
                            "On-chip FPGA bytes for vocabularies (default: half of the U55C's 43"
                                    + " MB SRAM); tables are placed smallest first, the rest off"
                                    + " chip."),
                    JobOption.value(
                            TARGET,
                            "T",
                            "0",
                            "Size the fleet for a trainer's T rows/s: FPGAs, SmartSSDs and CPU"
                                    + " cores, ceil(T / one's rows/s), with their power and cost"
                                    + " per million rows (default: ${DEFAULT-VALUE}, no sizing)."),
                    JobOption.value(
                            CPU_WATTS,
                            "W",
                            "Power of this machine's CPU package (all its cores): the CPU's"
                                    + " energy, pro-rated to the core-seconds measured."),
                    JobOption.value(
                            DOLLARS_PER_KWH,
                            "P",
                            "0.0733",
                            "Electricity price for the fleet's energy cost (default:"
                                    + " ${DEFAULT-VALUE}, PreSto's)."),
                    JobOption.value(
                            FPGA_PRICE,
                            "D",
                            "One FPGA card's price in dollars, written off over 3 years (PreSto's"
                                    + " TCO duration); no paper gives one."),
                    JobOption.value(
                            SMARTSSD_PRICE, "D", "One SmartSSD's price in dollars, likewise."),
                    JobOption.value(
                            CORE_PRICE,
                            "D",
                            "One CPU core's share of its server's price in dollars, likewise."));

    private ReportArgs() {}

    /** Turns the report on in {@code conf} with these settings, after checking them. */
    public static void apply(JobArgs args, Configuration conf) {
        String interval = args.string(INTERVAL);
        Duration d;
        try {
            d = TimeUtils.parseDuration(interval);
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw JobArgumentException.of(
                    INTERVAL, "\"" + interval + "\" is not a duration (e.g. 10s)");
        }
        if (d.isZero() || d.isNegative()) {
            throw JobArgumentException.of(INTERVAL, "must be positive, not " + interval);
        }
        long intervalLines = args.longValue(INTERVAL_LINES);
        if (intervalLines < 0) {
            throw JobArgumentException.of(
                    INTERVAL_LINES, "must not be negative, not " + intervalLines);
        }
        Long fpgaVocabularyBytes = args.longValue(FPGA_VOCABULARY_BYTES);
        if (fpgaVocabularyBytes != null && fpgaVocabularyBytes < 0) {
            throw JobArgumentException.of(
                    FPGA_VOCABULARY_BYTES, "must not be negative, not " + fpgaVocabularyBytes);
        }
        int fieldBytesEvery = args.integer(FIELD_BYTES_EVERY);
        if (fieldBytesEvery < 1) {
            throw JobArgumentException.of(
                    FIELD_BYTES_EVERY, "must be at least 1, not " + fieldBytesEvery);
        }
        conf.set(ReportOptions.ENABLED, true);
        setNotNegative(args, TARGET, conf, ReportOptions.TARGET_ROWS_PER_SECOND);
        setNotNegative(args, DOLLARS_PER_KWH, conf, ReportOptions.DOLLARS_PER_KWH);
        setNotNegative(args, CPU_WATTS, conf, ReportOptions.CPU_WATTS);
        setNotNegative(args, FPGA_PRICE, conf, ReportOptions.FPGA_PRICE);
        setNotNegative(args, SMARTSSD_PRICE, conf, ReportOptions.SMARTSSD_PRICE);
        setNotNegative(args, CORE_PRICE, conf, ReportOptions.CORE_PRICE);
        conf.set(ReportOptions.FIELD_BYTES_EVERY, fieldBytesEvery);
        conf.set(ReportOptions.INTERVAL, d);
        conf.set(ReportOptions.INTERVAL_LINES, intervalLines);
        if (fpgaVocabularyBytes != null) {
            conf.set(ReportOptions.FPGA_VOCABULARY_BYTES, fpgaVocabularyBytes);
        }
    }

    /** Sets {@code key} to {@code option}'s value, if it has one, refusing one below 0. */
    private static void setNotNegative(
            JobArgs args, String option, Configuration conf, ConfigOption<Double> key) {
        Double value = args.decimal(option);
        if (value == null) {
            return;
        }
        if (value < 0 || Double.isNaN(value)) {
            throw JobArgumentException.of(option, "must not be negative, not " + value);
        }
        conf.set(key, value);
    }
}
