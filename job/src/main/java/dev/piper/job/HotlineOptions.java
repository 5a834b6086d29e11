package dev.piper.job;

import dev.piper.pipeline.hotline.HotlineSettings;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;

/** Options of Hotline's popular / non-popular split ({@code docs/HOTLINE.md}). */
public final class HotlineOptions {

    private HotlineOptions() {}

    public static final ConfigOption<Long> BUDGET =
            ConfigOptions.key("piper.hotline.budget")
                    .longType()
                    .noDefaultValue()
                    .withDescription(
                            "Bytes of GPU memory for popular embedding rows, shared by every"
                                    + " sparse column. Set: every row gets a popular flag (all its"
                                    + " indices in its window's hot set). Unset: no split.");

    public static final ConfigOption<Integer> DIM =
            ConfigOptions.key("piper.hotline.dim")
                    .intType()
                    .defaultValue(HotlineSettings.DEFAULT_DIM)
                    .withDescription("Embedding dimension: an entry costs dim x 4 bytes.");

    public static final ConfigOption<Long> WINDOW =
            ConfigOptions.key("piper.hotline.window")
                    .longType()
                    .defaultValue(HotlineSettings.DEFAULT_WINDOW_ROWS)
                    .withDescription(
                            "Rows per window: the hot set is chosen anew at each window's first"
                                    + " row from what the rows before taught; the first window's"
                                    + " rows are all non-popular.");

    public static final ConfigOption<Double> SAMPLE =
            ConfigOptions.key("piper.hotline.sample")
                    .doubleType()
                    .defaultValue(HotlineSettings.DEFAULT_SAMPLE_RATE)
                    .withDescription(
                            "Fraction of mini-batches whose accesses are counted (Hotline: 5%),"
                                    + " drawn by mini-batch number.");

    public static final ConfigOption<Integer> SAMPLE_ROWS =
            ConfigOptions.key("piper.hotline.sample-rows")
                    .intType()
                    .defaultValue(HotlineSettings.DEFAULT_SAMPLE_ROWS)
                    .withDescription("Rows per mini-batch, the unit of sampling.");

    public static final ConfigOption<String> TRACKER =
            ConfigOptions.key("piper.hotline.tracker")
                    .stringType()
                    .defaultValue(HotlineSettings.Tracker.EXACT.id())
                    .withDescription(
                            "Whose counts choose the hot set: exact (every sampled entry counted)"
                                    + " or srrip (Hotline's bounded logger). Both run; the output"
                                    + " says how much of the exact top set srrip captures.");

    public static final ConfigOption<Integer> TRACKER_ENTRIES =
            ConfigOptions.key("piper.hotline.tracker-entries")
                    .intType()
                    .defaultValue(HotlineSettings.AUTO_TRACKER_ENTRIES)
                    .withDescription(
                            "Capacity of the SRRIP logger in entries, a power of two; 0: the one"
                                    + " at or above 4 per hot entry of the budget (13 bytes an"
                                    + " entry).");

    public static final ConfigOption<Double> DECAY =
            ConfigOptions.key("piper.hotline.decay")
                    .doubleType()
                    .defaultValue(HotlineSettings.DEFAULT_DECAY)
                    .withDescription(
                            "Factor applied to every count at each window's start: 1 weighs all"
                                    + " windows alike, less follows drifting popularity faster.");

    /** The split's settings from {@code conf}, or null if it has no budget (no split). */
    public static HotlineSettings settings(Configuration conf) {
        if (conf.getOptional(BUDGET).isEmpty()) {
            return null;
        }
        String trackerId = conf.get(TRACKER);
        HotlineSettings.Tracker tracker =
                HotlineSettings.Tracker.of(trackerId)
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                TRACKER.key()
                                                        + ": \""
                                                        + trackerId
                                                        + "\" is not exact or srrip"));
        try {
            return new HotlineSettings(
                    conf.get(BUDGET),
                    conf.get(DIM),
                    conf.get(WINDOW),
                    0,
                    conf.get(SAMPLE),
                    conf.get(SAMPLE_ROWS),
                    tracker,
                    conf.get(TRACKER_ENTRIES),
                    conf.get(DECAY));
        } catch (IllegalArgumentException e) { // HotlineSettings.problem's, naming the setting
            throw new IllegalArgumentException(optionNamed(e.getMessage(), "piper.hotline."), e);
        }
    }

    /**
     * A {@link HotlineSettings#problem} message ({@code sample_rows: ...}) with its setting named
     * as an option: {@code prefix} and the name in dashes ({@code piper.hotline.sample-rows: ...}).
     */
    public static String optionNamed(String problem, String prefix) {
        int colon = problem.indexOf(':');
        return prefix + problem.substring(0, colon).replace('_', '-') + problem.substring(colon);
    }
}
