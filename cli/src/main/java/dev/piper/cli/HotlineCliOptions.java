package dev.piper.cli;

import dev.piper.job.HotlineOptions;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.spec.Sizes;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** Hotline's popular / non-popular split, shared by {@code preprocess} and {@code stream}. */
final class HotlineCliOptions {

    @Option(
            names = "--hotline-budget",
            paramLabel = "BYTES",
            description =
                    "Split the rows as Hotline does: GPU memory for popular embedding rows, shared"
                            + " by every sparse column, in bytes or with a binary unit"
                            + " (1280000, 512m, 2g). Every row gets a popular flag: all its indices in"
                            + " its window's hot set (docs/HOTLINE.md). Default: no split.")
    String budget;

    @Option(
            names = "--hotline-dim",
            paramLabel = "D",
            defaultValue = "16",
            description =
                    "Embedding dimension: an entry costs D x 4 bytes (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(
            names = "--hotline-window",
            paramLabel = "ROWS",
            defaultValue = "1000000",
            description =
                    "Rows per window: the hot set is chosen anew at each window's first row from"
                            + " what the rows before taught; the first window's rows are all"
                            + " non-popular (default: ${DEFAULT-VALUE}).")
    long window;

    @Option(
            names = "--hotline-sample",
            paramLabel = "FRACTION",
            defaultValue = "0.05",
            description =
                    "Fraction of mini-batches whose accesses are counted, drawn by mini-batch"
                            + " number (default: ${DEFAULT-VALUE}, Hotline's 5%%).")
    double sample;

    @Option(
            names = "--hotline-sample-rows",
            paramLabel = "ROWS",
            defaultValue = "1024",
            description = "Rows per mini-batch, the unit of sampling (default: ${DEFAULT-VALUE}).")
    int sampleRows;

    @Option(
            names = "--hotline-tracker",
            paramLabel = "T",
            defaultValue = "exact",
            description =
                    "Whose counts choose the hot set: exact or srrip (Hotline's bounded logger);"
                            + " both run, and the output says how much of the exact top set"
                            + " srrip captures (default: ${DEFAULT-VALUE}).")
    String tracker;

    @Option(
            names = "--hotline-tracker-entries",
            paramLabel = "N",
            defaultValue = "0",
            description =
                    "Capacity of the SRRIP logger, a power of two; 0 (the default): the one at or"
                            + " above 4 per hot entry of the budget (13 bytes an entry).")
    int trackerEntries;

    @Option(
            names = "--hotline-decay",
            paramLabel = "F",
            defaultValue = "1",
            description =
                    "Factor applied to every count at each window's start: 1 weighs all windows"
                            + " alike, less follows drifting popularity faster (default:"
                            + " ${DEFAULT-VALUE}).")
    double decay;

    /** Whether the split was asked for. */
    boolean enabled() {
        return budget != null;
    }

    /** Sets the split's options in {@code conf}, if it was asked for, after checking them. */
    void apply(CommandLine cmd, Configuration conf) {
        if (budget == null) {
            return;
        }
        long bytes;
        try {
            bytes = Sizes.bytes(budget);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    cmd, "--hotline-budget: \"" + budget + "\" is not a size in bytes (e.g. 512m)");
        }
        if (HotlineSettings.Tracker.of(tracker).isEmpty()) {
            throw new ParameterException(
                    cmd,
                    "--hotline-tracker: unknown tracker \"" + tracker + "\" (known: exact, srrip)");
        }
        HotlineSettings.problem(bytes, dim, window, sample, sampleRows, trackerEntries, decay)
                .ifPresent(
                        why -> {
                            throw new ParameterException(
                                    cmd, HotlineOptions.optionNamed(why, "--hotline-"));
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
