package dev.piper.output;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.pipeline.hotline.ExactCounter;
import dev.piper.pipeline.hotline.HotSet;
import dev.piper.pipeline.hotline.Hotline;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.hotline.Split;
import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Hotline over a finished output directory ({@code rows.bin}, {@code lists/} for list columns and
 * {@code event_times.bin} for windows in event time): the same {@link Hotline} the job runs,
 * replayed over the rows in order, and the static oracle it is measured against (every access of
 * every row counted, then one global top set for all rows). {@code piper hotline} characterizes a
 * dataset with it ({@code docs/HOTLINE.md}).
 */
public final class HotlineReplay {

    private static final int CHUNK_ROWS = 4096;

    private final Path dir;
    private final int rowInts;
    private final int sparse;
    private final int[] scalarColumns;
    private final int[] listColumns;
    private final long rows;

    /** Reads {@code dir}'s {@code metadata.json}; its rows must be in {@code rows.bin}. */
    public HotlineReplay(Path dir) throws IOException {
        this.dir = dir;
        Path metadata = dir.resolve(OutputLayout.METADATA);
        if (!Files.isRegularFile(metadata)) {
            throw new IOException(
                    dir + " has no " + OutputLayout.METADATA + ": not a piper output");
        }
        JsonNode meta = new ObjectMapper().readTree(metadata.toFile());
        if (!Files.isRegularFile(dir.resolve(OutputLayout.ROWS)) || !meta.has("row_bytes")) {
            throw new IOException(
                    dir + " has no " + OutputLayout.ROWS + " (Hotline reads the dlrm-rows format)");
        }
        rowInts = meta.get("row_bytes").asInt() / Integer.BYTES;
        sparse = meta.get("sparse_columns").asInt();
        rows = meta.get("rows_written").asLong();
        List<Integer> lists = new ArrayList<>();
        for (JsonNode l : meta.path("list_columns")) {
            lists.add(Integer.parseInt(l.asText().substring(1)) - 1);
        }
        listColumns = lists.stream().mapToInt(Integer::intValue).toArray();
        int[] scalar = new int[sparse - listColumns.length];
        int j = 0;
        for (int c = 0; c < sparse; c++) {
            if (!lists.contains(c)) {
                scalar[j++] = c;
            }
        }
        scalarColumns = scalar;
    }

    public long rows() {
        return rows;
    }

    public int sparseColumns() {
        return sparse;
    }

    /**
     * The split under {@code settings}, block by block of {@value #CHUNK_ROWS} rows.
     *
     * @throws IOException also when the settings' windows are in event time and the output has no
     *     {@code event_times.bin}
     */
    public void online(HotlineSettings settings, Consumer<Split> each) throws IOException {
        if (settings.inEventTime() && !Files.isRegularFile(dir.resolve(OutputLayout.EVENT_TIMES))) {
            throw new IOException(
                    dir
                            + " has no "
                            + OutputLayout.EVENT_TIMES
                            + ", and windows of "
                            + settings.window()
                            + " of event time need each row's time");
        }
        Hotline h = new Hotline(settings, sparse);
        forEachChunk(
                c ->
                        each.accept(
                                h.apply(
                                        c.rows,
                                        c.bytes,
                                        rowInts,
                                        scalarColumns,
                                        listColumns,
                                        c.offsets,
                                        c.ids,
                                        c.times,
                                        true)));
    }

    /**
     * The static oracle: for each size in {@code entries}, the most accessed entries over all rows
     * (ties to the smaller column, then index), and how many rows have all their indices among
     * them, in all and per window of {@code windowRows}.
     */
    public Oracle oracle(int[] entries, long windowRows) throws IOException {
        ExactCounter all = new ExactCounter();
        forEachChunk(c -> c.forEachIndex((r, col, index) -> all.access(col, index)));
        HotSet[] sets = new HotSet[entries.length];
        for (int i = 0; i < entries.length; i++) {
            sets[i] = HotSet.ofKeys(all.top(entries[i]), sparse);
        }
        int windows = (int) ((rows + windowRows - 1) / windowRows);
        long[][] popular = new long[entries.length][windows];
        long[] first = {0};
        forEachChunk(
                c -> {
                    boolean[][] miss = new boolean[sets.length][c.rows];
                    c.forEachIndex(
                            (r, col, index) -> {
                                for (int i = 0; i < sets.length; i++) {
                                    if (!miss[i][r] && !sets[i].contains(col, index)) {
                                        miss[i][r] = true;
                                    }
                                }
                            });
                    for (int i = 0; i < sets.length; i++) {
                        for (int r = 0; r < c.rows; r++) {
                            if (!miss[i][r]) {
                                popular[i][(int) ((first[0] + r) / windowRows)]++;
                            }
                        }
                    }
                    first[0] += c.rows;
                });
        return new Oracle(entries.clone(), popular, rows, windowRows, all.size());
    }

    /**
     * The oracle's answer.
     *
     * @param entries the hot set sizes asked for
     * @param popularRows per size and window, the rows whose indices are all in the global top set
     * @param rows all rows
     * @param windowRows rows per window
     * @param distinct the distinct entries accessed
     */
    public record Oracle(
            int[] entries, long[][] popularRows, long rows, long windowRows, int distinct) {

        /** The popular share of all rows with hot set size {@code entries[i]}. */
        public double fraction(int i) {
            return rows == 0 ? 0 : (double) Arrays.stream(popularRows[i]).sum() / rows;
        }

        /** The popular share of window {@code w}'s rows with hot set size {@code entries[i]}. */
        public double fraction(int i, int w) {
            long inWindow = Math.min(windowRows, rows - w * windowRows);
            return (double) popularRows[i][w] / inWindow;
        }
    }

    /** A chunk of rows and their lists. */
    private final class Chunk {
        int rows;
        byte[] bytes;
        int[][] offsets;
        int[][] ids;
        long[] times; // null without event_times.bin

        interface IndexVisitor {
            void visit(int row, int column, int index);
        }

        void forEachIndex(IndexVisitor v) {
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            int start = rowInts - scalarColumns.length;
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < scalarColumns.length; j++) {
                    v.visit(r, scalarColumns[j], b.getInt((r * rowInts + start + j) * 4));
                }
                for (int l = 0; l < listColumns.length; l++) {
                    for (int i = offsets[l][r]; i < offsets[l][r + 1]; i++) {
                        v.visit(r, listColumns[l], ids[l][i]);
                    }
                }
            }
        }
    }

    private interface ChunkConsumer {
        void accept(Chunk c) throws IOException;
    }

    private void forEachChunk(ChunkConsumer each) throws IOException {
        List<Closeable> open = new ArrayList<>();
        try {
            DataInputStream in = stream(dir.resolve(OutputLayout.ROWS), open);
            Path timesFile = dir.resolve(OutputLayout.EVENT_TIMES);
            DataInputStream times = Files.isRegularFile(timesFile) ? stream(timesFile, open) : null;
            DataInputStream[] lengths = new DataInputStream[listColumns.length];
            DataInputStream[] values = new DataInputStream[listColumns.length];
            for (int l = 0; l < listColumns.length; l++) {
                lengths[l] =
                        stream(dir.resolve(OutputLayout.listLengthsFile(listColumns[l])), open);
                values[l] = stream(dir.resolve(OutputLayout.listValuesFile(listColumns[l])), open);
            }
            for (long done = 0; done < rows; ) {
                Chunk c = new Chunk();
                c.rows = (int) Math.min(CHUNK_ROWS, rows - done);
                c.bytes = new byte[c.rows * rowInts * Integer.BYTES];
                readFully(in, c.bytes, OutputLayout.ROWS, done);
                c.offsets = new int[listColumns.length][c.rows + 1];
                c.ids = new int[listColumns.length][];
                for (int l = 0; l < listColumns.length; l++) {
                    byte[] len = new byte[c.rows * Integer.BYTES];
                    readFully(lengths[l], len, OutputLayout.listLengthsFile(listColumns[l]), done);
                    ByteBuffer lb = ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN);
                    for (int r = 0; r < c.rows; r++) {
                        c.offsets[l][r + 1] = c.offsets[l][r] + lb.getInt();
                    }
                    byte[] v = new byte[c.offsets[l][c.rows] * Integer.BYTES];
                    readFully(values[l], v, OutputLayout.listValuesFile(listColumns[l]), done);
                    c.ids[l] = new int[v.length / Integer.BYTES];
                    ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(c.ids[l]);
                }
                if (times != null) {
                    byte[] t = new byte[c.rows * Long.BYTES];
                    readFully(times, t, OutputLayout.EVENT_TIMES, done);
                    c.times = new long[c.rows];
                    ByteBuffer.wrap(t).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(c.times);
                }
                each.accept(c);
                done += c.rows;
            }
        } finally {
            Closeables.closeAll(open);
        }
    }

    private static DataInputStream stream(Path file, List<Closeable> open) throws IOException {
        InputStream in = Files.newInputStream(file);
        DataInputStream d = new DataInputStream(new BufferedInputStream(in, 1 << 20));
        open.add(d);
        return d;
    }

    private static void readFully(DataInputStream in, byte[] b, String file, long row)
            throws IOException {
        try {
            in.readFully(b);
        } catch (EOFException e) {
            throw new IOException(
                    file + " ends before row " + row + " of the metadata's rows: truncated", e);
        }
    }
}
