package dev.piper.job.launch;

import dev.piper.job.HotlineOptions;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import dev.piper.job.args.JobOption;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.spec.Sizes;
import java.util.List;
import org.apache.flink.configuration.Configuration;

/**
 * Hotline's popular / non-popular split, shared by {@code preprocess}, {@code stream} and {@code
 * hotline}.
 */
public final class HotlineArgs {

    static final String BUDGET = "--hotline-budget";
    static final String DIM = "--hotline-dim";
    static final String WINDOW = "--hotline-window";
    static final String SAMPLE = "--hotline-sample";
    static final String SAMPLE_ROWS = "--hotline-sample-rows";
    static final String TRACKER = "--hotline-tracker";
    static final String TRACKER_ENTRIES = "--hotline-tracker-entries";
    static final String DECAY = "--hotline-decay";

    public static final List<JobOption> OPTIONS =
            List.of(
                    JobOption.value(
                            BUDGET,
                            "BYTES",
                            "Split the rows as Hotline does: GPU memory for popular embedding"
                                    + " rows, shared by every sparse column, in bytes or with a"
                                    + " binary unit (1280000, 512m, 2g). Every row gets a popular"
                                    + " flag: all its indices in its window's hot set"
                                    + " (docs/HOTLINE.md). Default: no split."),
                    JobOption.value(
                            DIM,
                            "D",
                            "16",
                            "Embedding dimension: an entry costs D x 4 bytes (default:"
                                    + " ${DEFAULT-VALUE})."),
                    JobOption.value(
                            WINDOW,
                            "ROWS",
                            "1000000",
                            "Rows per window: the hot set is chosen anew at each window's first"
                                    + " row from what the rows before taught; the first window's"
                                    + " rows are all non-popular (default: ${DEFAULT-VALUE})."),
                    JobOption.value(
                            SAMPLE,
                            "FRACTION",
                            "0.05",
                            "Fraction of mini-batches whose accesses are counted, drawn by"
                                    + " mini-batch number (default: ${DEFAULT-VALUE}, Hotline's"
                                    + " 5%)."),
                    JobOption.value(
                            SAMPLE_ROWS,
                            "ROWS",
                            "1024",
                            "Rows per mini-batch, the unit of sampling (default:"
                                    + " ${DEFAULT-VALUE})."),
                    JobOption.value(
                            TRACKER,
                            "T",
                            "exact",
                            "Whose counts choose the hot set: exact or srrip (Hotline's bounded"
                                    + " logger); both run, and the output says how much of the"
                                    + " exact top set srrip captures (default: ${DEFAULT-VALUE})."),
                    JobOption.value(
                            TRACKER_ENTRIES,
                            "N",
                            "0",
                            "Capacity of the SRRIP logger, a power of two; 0 (the default): the"
                                    + " one at or above 4 per hot entry of the budget (13 bytes an"
                                    + " entry)."),
                    JobOption.value(
                            DECAY,
                            "F",
                            "1",
                            "Factor applied to every count at each window's start: 1 weighs all"
                                    + " windows alike, less follows drifting popularity faster"
                                    + " (default: ${DEFAULT-VALUE})."));

    private HotlineArgs() {}

    /** Whether the split was asked for. */
    public static boolean enabled(JobArgs args) {
        return args.given(BUDGET);
    }

    /** Sets the split's options in {@code conf}, if it was asked for, after checking them. */
    public static void apply(JobArgs args, Configuration conf) {
        if (!enabled(args)) {
            return;
        }
        String budget = args.string(BUDGET);
        long bytes;
        try {
            bytes = Sizes.bytes(budget);
        } catch (IllegalArgumentException e) {
            throw JobArgumentException.of(
                    BUDGET, "\"" + budget + "\" is not a size in bytes (e.g. 512m)");
        }
        apply(args, bytes, conf);
    }

    /**
     * Sets the split's options in {@code conf} with a budget of {@code bytes} in place of {@code
     * --hotline-budget} (a study of several budgets), after checking them.
     */
    public static void apply(JobArgs args, long bytes, Configuration conf) {
        String tracker = args.string(TRACKER);
        if (HotlineSettings.Tracker.of(tracker).isEmpty()) {
            throw JobArgumentException.of(
                    TRACKER, "unknown tracker \"" + tracker + "\" (known: exact, srrip)");
        }
        int dim = args.integer(DIM);
        long window = args.longValue(WINDOW);
        double sample = args.decimal(SAMPLE);
        int sampleRows = args.integer(SAMPLE_ROWS);
        int trackerEntries = args.integer(TRACKER_ENTRIES);
        double decay = args.decimal(DECAY);
        HotlineSettings.problem(bytes, dim, window, 0, sample, sampleRows, trackerEntries, decay)
                .ifPresent(
                        why -> {
                            throw new JobArgumentException(
                                    HotlineOptions.optionNamed(why, "--hotline-"));
                        });
        conf.set(HotlineOptions.BUDGET, bytes);
        conf.set(HotlineOptions.DIM, dim);
        conf.set(HotlineOptions.WINDOW, window);
        conf.set(HotlineOptions.SAMPLE, sample);
        conf.set(HotlineOptions.SAMPLE_ROWS, sampleRows);
        conf.set(HotlineOptions.TRACKER, tracker);
        conf.set(HotlineOptions.TRACKER_ENTRIES, trackerEntries);
        conf.set(HotlineOptions.DECAY, decay);
    }
}
