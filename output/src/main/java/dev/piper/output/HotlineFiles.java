package dev.piper.output;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.pipeline.hotline.HotSet;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.hotline.Split;
import dev.piper.pipeline.hotline.SrripTracker;
import dev.piper.pipeline.layout.CriteoLayout;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes Hotline's split of an output's rows ({@code docs/HOTLINE.md}): {@code
 * hotline/popular.bin}, one byte per row (1 popular), and {@code hotline/hot-sets.jsonl}, one
 * object per window ({@code window}, {@code first_row}, {@code rows}, {@code entries}, {@code
 * tracker_capture}, {@code hot}: per sparse column its hot indices, ascending; {@code start_ms} for
 * a window in event time), and the {@code hotline} section of {@code metadata.json}. It checks as
 * it goes that the rows' flags and windows follow each other without gaps.
 */
public final class HotlineFiles implements Closeable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HotlineSettings settings;
    private final OutputStream popular;
    private final OutputStream hotSets;

    private long rows;
    private long popularRows;
    private int windows;
    private Split.Window open; // the window whose line waits for its row count
    private int largestHotSet;
    private double captureSum;
    private int captureWindows;

    /** Writes into {@code dir}/hotline. */
    public HotlineFiles(Path dir, HotlineSettings settings) throws IOException {
        this.settings = settings;
        Files.createDirectories(dir.resolve(OutputLayout.HOTLINE_DIR));
        popular =
                new BufferedOutputStream(
                        NamedOutput.open(dir.resolve(OutputLayout.HOTLINE_POPULAR)), 1 << 16);
        hotSets =
                new BufferedOutputStream(
                        NamedOutput.open(dir.resolve(OutputLayout.HOTLINE_HOT_SETS)), 1 << 16);
    }

    /**
     * Appends the split of the next {@code blockRows} rows.
     *
     * @param where the block, for messages
     */
    public void write(Split split, int blockRows, String where) throws IOException {
        if (split == null) {
            throw new IllegalStateException(where + ": no Hotline split for its rows");
        }
        if (split.firstRow() != rows || split.rows() != blockRows) {
            throw new IllegalStateException(
                    where
                            + ": a split of rows "
                            + split.firstRow()
                            + ".."
                            + (split.firstRow() + split.rows())
                            + " where rows "
                            + rows
                            + ".."
                            + (rows + blockRows)
                            + " follow");
        }
        for (Split.Window w : split.windows()) {
            if (w.number() != windows || (open == null ? 0 : open.firstRow()) > w.firstRow()) {
                throw new IllegalStateException(
                        where + ": window " + w.number() + " where " + windows + " follows");
            }
            closeWindow(w.firstRow());
            open = w;
            windows++;
            largestHotSet = Math.max(largestHotSet, w.hot().size());
            if (!Double.isNaN(w.capture())) {
                captureSum += w.capture();
                captureWindows++;
            }
        }
        popular.write(split.popular());
        rows += split.rows();
        popularRows += split.popularRows();
    }

    /** Writes the open window's line, now that its rows end before {@code end}. */
    private void closeWindow(long end) throws IOException {
        if (open == null) {
            return;
        }
        hotSets.write(line(open, end - open.firstRow()).getBytes(StandardCharsets.UTF_8));
        hotSets.write('\n');
        open = null;
    }

    /** A window's line of {@code hot-sets.jsonl}. */
    public static String line(Split.Window w, long rows) {
        return json(w, rows).toString();
    }

    /**
     * A window as announced when it starts (the stream's hot-set record): its line without {@code
     * rows}, which only its end tells.
     */
    public static String announcement(Split.Window w) {
        return json(w, -1).toString();
    }

    /** The line of an {@link #announcement} whose window turned out to have {@code rows} rows. */
    public static String line(String announcement, long rows) throws IOException {
        ObjectNode a = (ObjectNode) JSON.readTree(announcement);
        ObjectNode o = JSON.createObjectNode();
        o.set("window", a.get("window"));
        o.set("first_row", a.get("first_row"));
        o.put("rows", rows);
        a.fields()
                .forEachRemaining(
                        e -> {
                            if (!o.has(e.getKey())) {
                                o.set(e.getKey(), e.getValue());
                            }
                        });
        return o.toString();
    }

    private static ObjectNode json(Split.Window w, long rows) {
        ObjectNode o = JSON.createObjectNode();
        o.put("window", w.number());
        o.put("first_row", w.firstRow());
        if (rows >= 0) {
            o.put("rows", rows);
        }
        if (w.inEventTime()) {
            o.put("start_ms", w.startMs());
        }
        o.put("entries", w.hot().size());
        if (Double.isNaN(w.capture())) {
            o.putNull("tracker_capture");
        } else {
            o.put("tracker_capture", w.capture());
        }
        ObjectNode hot = o.putObject("hot");
        HotSet h = w.hot();
        for (int c = 0; c < h.columns(); c++) {
            var indices = hot.putArray(CriteoLayout.sparseName(c));
            for (int i : h.indices(c)) {
                indices.add(i);
            }
        }
        return o;
    }

    /** Completes both files: the last window's line gets its row count. */
    public void finish() throws IOException {
        closeWindow(rows);
        popular.flush();
        hotSets.flush();
    }

    /** The {@code hotline} section of {@code metadata.json}, into {@code root}. */
    public void describe(ObjectNode root) {
        ObjectNode h = root.putObject("hotline");
        h.put("budget_bytes", settings.budgetBytes());
        h.put("dim", settings.dim());
        h.put("budget_entries", settings.entries());
        h.put("window_rows", settings.windowRows());
        if (settings.inEventTime()) {
            h.put("window_ms", settings.windowMs());
        }
        h.put("sample_rate", settings.sampleRate());
        h.put("sample_rows", settings.sampleRows());
        h.put("tracker", settings.tracker().id());
        h.put("tracker_entries", settings.trackerEntries());
        h.put("tracker_bytes", (long) settings.trackerEntries() * SrripTracker.ENTRY_BYTES);
        h.put("decay", settings.decay());
        h.put("windows", windows);
        h.put("rows", rows);
        h.put("popular_rows", popularRows);
        h.put("popular_fraction", rows == 0 ? 0 : (double) popularRows / rows);
        h.put("hot_entries_max", largestHotSet);
        if (captureWindows == 0) {
            h.putNull("tracker_capture");
        } else {
            h.put("tracker_capture", captureSum / captureWindows);
        }
        h.put(
                "files",
                "hotline/popular.bin: one byte per row of the rows file, 1 popular (every sparse"
                        + " index in its window's hot set); hotline/hot-sets.jsonl: one object"
                        + " per window");
    }

    @Override
    public void close() throws IOException {
        Closeables.closeAll(java.util.List.of(popular, hotSets));
    }
}
