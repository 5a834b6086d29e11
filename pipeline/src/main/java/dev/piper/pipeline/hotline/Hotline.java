package dev.piper.pipeline.hotline;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Hotline's popularity tracking and popular / non-popular split, over the rows of one pipeline in
 * output order ({@code docs/HOTLINE.md}).
 *
 * <p>Rows are numbered from 0 as they come. The rows of sampled mini-batches ({@link
 * HotlineSettings#sampled}) count every sparse index they use in two trackers: exact counts ({@link
 * ExactCounter}) and Hotline's bounded SRRIP logger ({@link SrripTracker}). Rows are cut into
 * windows of {@link HotlineSettings#windowRows()} rows, or of {@link HotlineSettings#windowMs()} of
 * event time: at the first row of each window the hot set is chosen anew, the entries with the
 * highest counts so far, across all columns, as many as the budget holds; then every count decays.
 * Window 0 has nothing learned yet: its hot set is empty and its rows are non-popular (a trainer
 * gathers their embeddings from CPU memory, as without Hotline). A row is popular when every sparse
 * index it uses (every id of a list column) is in the hot set of its window. Everything depends
 * only on the rows and their order, never on how they are cut into blocks, so the file job and the
 * stream give the same split.
 *
 * <p>Windows in event time are aligned to the epoch: a window ends at the next multiple of its
 * length after the event time of its first row, and the next starts at the first row whose event
 * time reaches that end, at the multiple at or below its time. A late row (earlier than its
 * window's start) belongs to the window in force, as the rows' order decides everything else; a
 * span of time without rows starts no window of its own, but the counts decay once for every window
 * length that passed (so a quiet night forgets as much as a busy one).
 *
 * <p>An instance is the state of one pipeline: mutable, checkpointed whole by its serializer.
 */
public final class Hotline {

    private HotlineSettings settings;
    private final int columns;
    private final ExactCounter exact;
    private SrripTracker tracker;

    private long rows;
    private int window = -1;
    private long nextWindow;
    private HotSet hot;

    private long popularRows;
    private double captureSum;
    private int captureWindows;
    private int largestHotSet;

    /** A tracker that has seen no row. */
    public Hotline(HotlineSettings settings, int columns) {
        this(
                settings,
                columns,
                new ExactCounter(),
                new SrripTracker(settings.trackerEntries()),
                new Progress(0, -1, 0, 0, 0, 0, 0),
                HotSet.empty(columns));
    }

    /**
     * Where a tracker is, beside its counts and hot set (its snapshot's scalars).
     *
     * @param rows rows seen
     * @param window the current window's number, -1 before the first row
     * @param nextWindow the first row of the next window; for windows in event time, the event time
     *     (ms) at which it starts, or {@code Long.MIN_VALUE} when the next row starts one (a
     *     tracker that changed from windows of rows)
     * @param popularRows popular rows so far
     * @param captureSum the sum of the windows' captures
     * @param captureWindows the windows with a capture
     * @param largestHotSet the most entries a window's hot set had
     */
    public record Progress(
            long rows,
            int window,
            long nextWindow,
            long popularRows,
            double captureSum,
            int captureWindows,
            int largestHotSet) {}

    /** A tracker restored from its parts. */
    public Hotline(
            HotlineSettings settings,
            int columns,
            ExactCounter exact,
            SrripTracker tracker,
            Progress progress,
            HotSet hot) {
        if (columns < 1 || hot.columns() != columns) {
            throw new IllegalArgumentException(
                    "a hot set of " + hot.columns() + " columns for " + columns);
        }
        this.settings = settings;
        this.columns = columns;
        this.exact = exact;
        this.tracker = tracker;
        this.rows = progress.rows();
        this.window = progress.window();
        this.nextWindow = progress.nextWindow();
        this.popularRows = progress.popularRows();
        this.captureSum = progress.captureSum();
        this.captureWindows = progress.captureWindows();
        this.largestHotSet = progress.largestHotSet();
        this.hot = hot;
    }

    /**
     * Continues under {@code next} settings (a restore with other options): a new budget, window
     * length or sample applies from the next window on; a tracker of another size starts empty; a
     * change between windows of rows and of event time starts a window at the next row.
     */
    public void reconfigure(HotlineSettings next) {
        if (next.trackerEntries() != tracker.capacity()) {
            tracker = new SrripTracker(next.trackerEntries());
        }
        if (window >= 0 && next.inEventTime() != settings.inEventTime()) {
            nextWindow = next.inEventTime() ? Long.MIN_VALUE : rows;
        }
        settings = next;
    }

    /**
     * Splits a block of {@code rows} rows and learns from its sampled rows.
     *
     * @param rowBytes the rows, little-endian int32 each: the scalar sparse columns' indices are a
     *     row's last {@code scalarColumns.length} slots
     * @param rowInts int32 slots per row
     * @param scalarColumns the sparse column of each of those slots, in row order
     * @param listColumns the sparse column of each list, in order
     * @param listOffsets per list: where each row's indices start ({@code rows + 1} entries)
     * @param listIndices per list: the indices
     */
    public Split apply(
            int rows,
            byte[] rowBytes,
            int rowInts,
            int[] scalarColumns,
            int[] listColumns,
            int[][] listOffsets,
            int[][] listIndices) {
        return apply(
                rows,
                rowBytes,
                rowInts,
                scalarColumns,
                listColumns,
                listOffsets,
                listIndices,
                null,
                true);
    }

    /**
     * As above, with the rows' event times; without {@code working}, the split has no working
     * parameters ({@link Split#working()} has no columns): the batch output does not write them,
     * and collecting them is most of the split's cost.
     *
     * @param eventTimes per row, its event time in milliseconds since the epoch; needed for windows
     *     in event time, else not read (may be null)
     */
    public Split apply(
            int rows,
            byte[] rowBytes,
            int rowInts,
            int[] scalarColumns,
            int[] listColumns,
            int[][] listOffsets,
            int[][] listIndices,
            long[] eventTimes,
            boolean withWorking) {
        int scalarStart = rowInts - scalarColumns.length;
        check(rows, rowBytes, rowInts, scalarStart, eventTimes);
        boolean timed = settings.inEventTime();
        ByteBuffer buf = ByteBuffer.wrap(rowBytes).order(ByteOrder.LITTLE_ENDIAN);
        byte[] popular = new byte[rows];
        int popularHere = 0;
        long first = this.rows;
        List<Split.Window> windows = new ArrayList<>(1);
        Working working = withWorking ? new Working(columns) : null;
        for (int r = 0; r < rows; r++) {
            long row = first + r;
            if (window < 0 || (timed ? eventTimes[r] >= nextWindow : row == nextWindow)) {
                windows.add(startWindow(row, timed ? eventTimes[r] : 0));
            }
            int base = (r * rowInts + scalarStart) * Integer.BYTES;
            boolean all = true;
            for (int j = 0; j < scalarColumns.length && all; j++) {
                all = hot.contains(scalarColumns[j], buf.getInt(base + j * Integer.BYTES));
            }
            for (int l = 0; l < listColumns.length && all; l++) {
                int c = listColumns[l];
                int[] ids = listIndices[l];
                for (int i = listOffsets[l][r]; i < listOffsets[l][r + 1] && all; i++) {
                    all = hot.contains(c, ids[i]);
                }
            }
            if (all) {
                popular[r] = 1;
                popularHere++;
            } else if (working != null) {
                for (int j = 0; j < scalarColumns.length; j++) {
                    int c = scalarColumns[j];
                    int index = buf.getInt(base + j * Integer.BYTES);
                    if (!hot.contains(c, index)) {
                        working.add(c, index);
                    }
                }
                for (int l = 0; l < listColumns.length; l++) {
                    int c = listColumns[l];
                    int[] ids = listIndices[l];
                    for (int i = listOffsets[l][r]; i < listOffsets[l][r + 1]; i++) {
                        if (!hot.contains(c, ids[i])) {
                            working.add(c, ids[i]);
                        }
                    }
                }
            }
            if (settings.sampled(row)) {
                for (int j = 0; j < scalarColumns.length; j++) {
                    count(scalarColumns[j], buf.getInt(base + j * Integer.BYTES));
                }
                for (int l = 0; l < listColumns.length; l++) {
                    int[] ids = listIndices[l];
                    for (int i = listOffsets[l][r]; i < listOffsets[l][r + 1]; i++) {
                        count(listColumns[l], ids[i]);
                    }
                }
            }
        }
        this.rows += rows;
        popularRows += popularHere;
        return new Split(
                first,
                popular,
                popularHere,
                working == null ? new int[0][] : working.distinct(),
                List.copyOf(windows));
    }

    /** The block's rows fill its bytes, and windows in event time have each row's time. */
    private void check(int rows, byte[] rowBytes, int rowInts, int scalarStart, long[] times) {
        if (scalarStart < 0 || (long) rows * rowInts * Integer.BYTES > rowBytes.length) {
            throw new IllegalArgumentException(
                    rows + " rows of " + rowInts + " slots in " + rowBytes.length + " bytes");
        }
        if (settings.inEventTime() && rows > 0 && (times == null || times.length < rows)) {
            throw new IllegalArgumentException(
                    "windows of "
                            + settings.window()
                            + " of event time need each row's event time (input.timestamp),"
                            + " and a block of "
                            + rows
                            + " rows has "
                            + (times == null ? "none" : times.length));
        }
    }

    private void count(int column, int index) {
        exact.access(column, index);
        tracker.access(column, index);
    }

    /**
     * Chooses the hot set of the window starting at {@code row} (at event time {@code time} for
     * windows in event time), then decays the counts, once per window length that passed.
     */
    private Split.Window startWindow(long row, long time) {
        window++;
        long startMs = Split.Window.NO_TIME;
        long lengths = 1;
        if (settings.inEventTime()) {
            long w = settings.windowMs();
            startMs = Math.floorDiv(time, w) * w;
            if (window > 0 && nextWindow != Long.MIN_VALUE) {
                lengths = Math.max(1, (startMs - nextWindow) / w + 1);
            }
            nextWindow = startMs + w;
        } else {
            nextWindow = row + settings.windowRows();
        }
        double capture = Double.NaN;
        if (window > 0) {
            int k = settings.entries();
            long[] exactTop = exact.top(k);
            long[] trackerTop = tracker.top(k);
            if (exactTop.length > 0) {
                capture = (double) commonSorted(exactTop, trackerTop) / exactTop.length;
                captureSum += capture;
                captureWindows++;
            }
            long[] chosen =
                    settings.tracker() == HotlineSettings.Tracker.EXACT ? exactTop : trackerTop;
            hot = HotSet.ofKeys(chosen, columns);
            largestHotSet = Math.max(largestHotSet, hot.size());
            double factor = lengths == 1 ? settings.decay() : Math.pow(settings.decay(), lengths);
            exact.decay(factor);
            tracker.decay(factor);
        }
        return new Split.Window(window, row, startMs, hot, capture);
    }

    /** How many values two sorted arrays share. */
    public static int commonSorted(long[] a, long[] b) {
        int i = 0;
        int j = 0;
        int n = 0;
        while (i < a.length && j < b.length) {
            if (a[i] == b[j]) {
                n++;
                i++;
                j++;
            } else if (a[i] < b[j]) {
                i++;
            } else {
                j++;
            }
        }
        return n;
    }

    /** Per column, the non-hot indices of a block's non-popular rows, made distinct at the end. */
    private static final class Working {
        private final int[][] values;
        private final int[] sizes;

        Working(int columns) {
            values = new int[columns][];
            sizes = new int[columns];
        }

        void add(int c, int index) {
            int[] v = values[c];
            if (v == null) {
                v = values[c] = new int[16];
            } else if (sizes[c] == v.length) {
                v = values[c] = Arrays.copyOf(v, v.length * 2);
            }
            v[sizes[c]++] = index;
        }

        int[][] distinct() {
            int[][] out = new int[values.length][];
            for (int c = 0; c < values.length; c++) {
                if (values[c] == null) {
                    out[c] = new int[0];
                    continue;
                }
                int[] v = values[c];
                Arrays.sort(v, 0, sizes[c]);
                int n = 0;
                for (int i = 0; i < sizes[c]; i++) {
                    if (n == 0 || v[i] != v[n - 1]) {
                        v[n++] = v[i];
                    }
                }
                out[c] = Arrays.copyOf(v, n);
            }
            return out;
        }
    }

    public HotlineSettings settings() {
        return settings;
    }

    public int columns() {
        return columns;
    }

    public ExactCounter exact() {
        return exact;
    }

    public SrripTracker tracker() {
        return tracker;
    }

    /** The hot set in force for the next row. */
    public HotSet hot() {
        return hot;
    }

    public Progress progress() {
        return new Progress(
                rows, window, nextWindow, popularRows, captureSum, captureWindows, largestHotSet);
    }
}
