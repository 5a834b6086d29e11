package dev.piper.pipeline.hotline;

import java.io.Serializable;
import java.util.Locale;
import java.util.Optional;

/**
 * How Hotline's popular / non-popular split is learned and applied ({@code docs/HOTLINE.md}).
 *
 * @param budgetBytes GPU memory for popular embedding rows, shared by every sparse column
 * @param dim embedding dimension: an entry costs {@code dim} x 4 bytes
 * @param windowRows rows per window: the hot set is chosen anew at the first row of each window,
 *     from what the sampled rows before it taught; 0 for windows in event time
 * @param windowMs the windows' length in event time, in milliseconds: a window starts at the first
 *     row whose event time reaches the end of the current one ({@link Hotline}); 0 for windows of
 *     rows. Exactly one of {@code windowRows} and {@code windowMs} is positive
 * @param sampleRate the fraction of mini-batches whose accesses are counted (Hotline: 5%)
 * @param sampleRows rows per mini-batch, the unit of sampling: mini-batch {@code b} holds rows
 *     {@code b * sampleRows} to {@code (b + 1) * sampleRows - 1}
 * @param tracker which tracker's counts choose the hot set (both always run; the report says how
 *     much of the exact top set the bounded one captures)
 * @param trackerEntries the bounded tracker's capacity in entries, a power of two; 0 (auto): the
 *     one at or above 4 times the budget's entries ({@link #autoTrackerEntries})
 * @param decay the factor every count is multiplied by at each window's start (1: counts from the
 *     start weigh alike; less: recent windows weigh more, so the hot set follows drifting
 *     popularity)
 */
public record HotlineSettings(
        long budgetBytes,
        int dim,
        long windowRows,
        long windowMs,
        double sampleRate,
        int sampleRows,
        Tracker tracker,
        int trackerEntries,
        double decay)
        implements Serializable {

    /** The counts that choose a window's hot set. */
    public enum Tracker {
        /** Exact access counts of every sampled entry (memory grows with the distinct entries). */
        EXACT,
        /** Hotline's bounded logger: set-associative, SRRIP replacement with 2-bit RRPVs. */
        SRRIP;

        /** The name used on the command line and in files. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The tracker named {@code id}, if there is one. */
        public static Optional<Tracker> of(String id) {
            for (Tracker t : values()) {
                if (t.id().equals(id)) {
                    return Optional.of(t);
                }
            }
            return Optional.empty();
        }
    }

    public static final int DEFAULT_DIM = 16;
    public static final long DEFAULT_WINDOW_ROWS = 1_000_000;
    public static final double DEFAULT_SAMPLE_RATE = 0.05;
    public static final int DEFAULT_SAMPLE_ROWS = 1024;

    /** The bounded tracker's capacity chosen from the budget ({@link #autoTrackerEntries}). */
    public static final int AUTO_TRACKER_ENTRIES = 0;

    /** The largest bounded tracker: 64M entries, 832 MiB. */
    public static final int MAX_TRACKER_ENTRIES = 1 << 26;

    public static final double DEFAULT_DECAY = 1.0;

    /** The most hot entries a window may have: they are listed in every window's record. */
    public static final int MAX_ENTRIES = 1 << 24;

    public HotlineSettings {
        if (trackerEntries == AUTO_TRACKER_ENTRIES && dim > 0 && budgetBytes > 0) {
            trackerEntries = autoTrackerEntries(budgetBytes / ((long) dim * Float.BYTES));
        }
        problem(
                        budgetBytes,
                        dim,
                        windowRows,
                        windowMs,
                        sampleRate,
                        sampleRows,
                        trackerEntries,
                        decay)
                .ifPresent(
                        why -> {
                            throw new IllegalArgumentException(why);
                        });
        if (tracker == null) {
            throw new IllegalArgumentException("tracker: missing");
        }
    }

    /** The defaults with a budget of {@code budgetBytes}. */
    public static HotlineSettings withBudget(long budgetBytes) {
        return new HotlineSettings(
                budgetBytes,
                DEFAULT_DIM,
                DEFAULT_WINDOW_ROWS,
                0,
                DEFAULT_SAMPLE_RATE,
                DEFAULT_SAMPLE_ROWS,
                Tracker.EXACT,
                AUTO_TRACKER_ENTRIES,
                DEFAULT_DECAY);
    }

    /**
     * The bounded tracker's capacity for a hot set of {@code entries}: the power of two at or above
     * four entries per hot entry, at least {@link SrripTracker#WAYS} (Hotline sizes its 4 MB
     * logger, 2 million blocks, for about 2 million popular entries of 512 MB; four per entry leave
     * room for the entries competing for the set's last places: measured, 1.6 per entry captured
     * 92% of the exact top set, 0.4 per entry 38%, docs/HOTLINE.md).
     */
    public static int autoTrackerEntries(long entries) {
        long want = Math.max(SrripTracker.WAYS, 4 * entries);
        return (int) Math.min(MAX_TRACKER_ENTRIES, Long.highestOneBit(want - 1) << 1);
    }

    /**
     * What is wrong with these values, if anything, naming the setting ({@code budget}, {@code
     * dim}, {@code window}, {@code sample}, {@code sample_rows}, {@code tracker_entries}, {@code
     * decay}) and the cause.
     */
    public static Optional<String> problem(
            long budgetBytes,
            int dim,
            long windowRows,
            long windowMs,
            double sampleRate,
            int sampleRows,
            int trackerEntries,
            double decay) {
        if (dim < 1 || dim > 1 << 16) {
            return Optional.of("dim: must be between 1 and 65536, not " + dim);
        }
        if (budgetBytes < (long) dim * Float.BYTES) {
            return Optional.of(
                    "budget: "
                            + budgetBytes
                            + " bytes hold no entry of dim "
                            + dim
                            + " ("
                            + (long) dim * Float.BYTES
                            + " bytes each)");
        }
        if (budgetBytes / ((long) dim * Float.BYTES) > MAX_ENTRIES) {
            return Optional.of(
                    "budget: "
                            + budgetBytes
                            + " bytes are "
                            + budgetBytes / ((long) dim * Float.BYTES)
                            + " entries of dim "
                            + dim
                            + ", more than the "
                            + MAX_ENTRIES
                            + " a hot set may list");
        }
        if (windowMs < 0) {
            return Optional.of(
                    "window: must be a positive span of event time, not " + windowMs + " ms");
        }
        if (windowMs == 0 && windowRows < 1) {
            return Optional.of("window: must be a positive number of rows, not " + windowRows);
        }
        if (windowMs > 0 && windowRows != 0) {
            return Optional.of(
                    "window: rows or a span of event time, not both ("
                            + windowRows
                            + " rows and "
                            + windowMs
                            + " ms)");
        }
        if (!(sampleRate > 0 && sampleRate <= 1)) {
            return Optional.of("sample: must be a fraction in (0, 1], not " + sampleRate);
        }
        if (sampleRows < 1) {
            return Optional.of("sample_rows: must be a positive number of rows, not " + sampleRows);
        }
        if (trackerEntries != AUTO_TRACKER_ENTRIES
                && (trackerEntries < SrripTracker.WAYS
                        || trackerEntries > MAX_TRACKER_ENTRIES
                        || Integer.bitCount(trackerEntries) != 1)) {
            return Optional.of(
                    "tracker_entries: must be a power of two from "
                            + SrripTracker.WAYS
                            + " to "
                            + MAX_TRACKER_ENTRIES
                            + " (or 0 for 4 per hot entry), not "
                            + trackerEntries);
        }
        if (!(decay > 0 && decay <= 1)) {
            return Optional.of("decay: must be a factor in (0, 1], not " + decay);
        }
        return Optional.empty();
    }

    /** How many entries the budget holds: the hot set's largest size. */
    public int entries() {
        return (int) (budgetBytes / ((long) dim * Float.BYTES));
    }

    /**
     * Whether row {@code row} (from 0, in output order) is counted: its mini-batch is drawn by a
     * hash of the mini-batch's number, so the sample is the same on every run, at every parallelism
     * and however the rows are cut into blocks.
     */
    public boolean sampled(long row) {
        long batch = row / sampleRows;
        return (mix(batch) >>> 11) * 0x1.0p-53 < sampleRate;
    }

    /** Whether windows are spans of event time ({@link #windowMs}) rather than counts of rows. */
    public boolean inEventTime() {
        return windowMs > 0;
    }

    /** The window's length as specs write it: {@code "100000 rows"}, {@code "1h"}. */
    public String window() {
        if (windowMs == 0) {
            return windowRows + " rows";
        }
        long[] sizes = {604_800_000L, 86_400_000L, 3_600_000L, 60_000L, 1_000L};
        String[] units = {"w", "d", "h", "m", "s"};
        for (int i = 0; i < sizes.length; i++) {
            if (windowMs % sizes[i] == 0) {
                return windowMs / sizes[i] + units[i];
            }
        }
        return windowMs + "ms";
    }

    /** A 64-bit finalizer (SplitMix64's): consecutive numbers give unrelated values. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
