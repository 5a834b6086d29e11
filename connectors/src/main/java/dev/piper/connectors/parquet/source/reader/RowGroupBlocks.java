package dev.piper.connectors.parquet.source.reader;

import dev.piper.connectors.parquet.ParquetLayout;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.decode.ColumnarDecoder;
import dev.piper.pipeline.layout.HexIds;
import dev.piper.pipeline.layout.Reason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.schema.MessageType;

/**
 * Decodes one row group of a Parquet file into {@link ColumnBlock}s of consecutive rows: each
 * field's column is read for the block's rows straight into the block's arrays ({@link
 * ColumnCursor}), its nulls into the field's missing set; a row with a value the layout cannot hold
 * becomes a dead letter whose raw bytes are the row as the file holds it, written as a Criteo text
 * line; then the pipeline's column program runs over the arrays in place ({@link ColumnarDecoder}),
 * as the text decoder runs it while parsing.
 *
 * <p>Not thread-safe; one per reader.
 */
public final class RowGroupBlocks implements RowGroupDecoder {

    private final ParquetLayout layout;
    private final ColumnarDecoder decoder;
    private final ColumnCursor[] cursors;

    /** The layout's dense columns, sparse columns, fields, and label + dense per row. */
    private final int denseColumns;

    private final int sparseColumns;
    private final int fieldCount;
    private final int rowWidth;

    /**
     * The fields read as the file holds them and decoded after the bad rows are out: those whose
     * values can be bad (INT64 label or dense, hex ids, lists) and the sources of generated fields;
     * read first.
     */
    private final int[] fallible;

    /** The generated fields and, for each, the dense field it decodes again. */
    private final int[] generatedFields;

    private final int[] generatedSources;

    /** Per field, whether it is a generated field's source (then read as the file holds it). */
    private final boolean[] raw;

    /** Every field, {@link #fallible} first. */
    private final int[] readOrder;

    private final int maxRawBytes;

    /** Where the row group is: its file, number and rows, for messages. */
    private final String where;

    /**
     * Why every row of the row group (from the block it was found in) is a dead letter, or null.
     */
    private String damaged;

    private long nextRow; // in the file
    private long rowsLeft;

    private static final long[] NONE_MISSING = new long[0];

    // Per block: the first bad field of each row (or -1; null while no row is bad), its reason and
    // detail, and the file's text of the bad rows' values (row * fields + field), for their dead
    // letters.
    private int[] badField;
    private int blockLines;
    private final Map<Integer, String> badReason = new HashMap<>();
    private final Map<Integer, String> badDetail = new HashMap<>();
    private final Map<Long, String> badText = new HashMap<>();

    /**
     * @param file an open file whose requested schema includes every column of {@code layout}
     * @param decoder the pipeline's column program, run over each block
     * @param rowGroup the row group's index in the file
     * @param firstRow index in the file of the row group's first row
     * @param maxRawBytes how many bytes of a rejected row's text its dead letter keeps
     */
    public RowGroupBlocks(
            ParquetFileReader file,
            ParquetLayout layout,
            ColumnarDecoder decoder,
            int rowGroup,
            long firstRow,
            int maxRawBytes)
            throws IOException {
        this.layout = layout;
        this.denseColumns = layout.layout().dense();
        this.sparseColumns = layout.layout().sparse();
        this.fieldCount = layout.layout().fields();
        this.rowWidth = layout.layout().labelDenseWidth();
        this.cursors = new ColumnCursor[fieldCount];
        this.decoder = decoder;
        this.maxRawBytes = maxRawBytes;
        long groupRows = DamagedRows.rowsOf(file, rowGroup);
        this.where = DamagedRows.where(file, rowGroup, firstRow, groupRows);
        try {
            PageReadStore store = file.readRowGroup(rowGroup);
            for (int f = 0; f < fieldCount; f++) {
                ParquetLayout.Binding b = layout.binding(f);
                if (b != null) {
                    cursors[f] =
                            new ColumnCursor(b.descriptor(), store.getPageReader(b.descriptor()));
                }
            }
        } catch (RuntimeException e) {
            // The pages are checked against their CRC-32 as they are read (ParquetFiles, a
            // ParquetDecodingException); a damaged page header or column chunk fails parquet-java
            // in other ways (found by ParquetReaderFuzzTest). The row group's rows become dead
            // letters.
            damaged =
                    where
                            + damagedColumn(file, rowGroup)
                            + ": "
                            + (e instanceof ParquetDecodingException
                                    ? e.getMessage()
                                    : e.toString());
        }
        int generated = layout.layout().generated();
        generatedFields = new int[generated];
        generatedSources = new int[generated];
        boolean[] source = new boolean[fieldCount];
        raw = source;
        for (int g = 0; g < generated; g++) {
            generatedFields[g] = denseColumns + 1 + g;
            generatedSources[g] = layout.layout().generatedFrom().get(g) + 1;
            source[generatedSources[g]] = true;
        }
        fallible =
                IntStream.range(0, fieldCount)
                        .filter(f -> source[f] || canBeBad(layout.binding(f)))
                        .toArray();
        readOrder =
                IntStream.concat(
                                IntStream.of(fallible),
                                IntStream.range(0, fieldCount)
                                        .filter(
                                                f ->
                                                        layout.binding(f) != null
                                                                && !source[f]
                                                                && !canBeBad(layout.binding(f))))
                        .toArray();
        this.nextRow = firstRow;
        this.rowsLeft = groupRows;
    }

    /**
     * {@code ", column C"} for the first column of the row group whose pages fail their checks
     * (found by reading the columns one at a time), or nothing if none can be named.
     */
    private String damagedColumn(ParquetFileReader file, int rowGroup) {
        MessageType schema = file.getFileMetaData().getSchema();
        try {
            for (ColumnDescriptor d : layout.projection().getColumns()) {
                file.setRequestedSchema(
                        new MessageType(schema.getName(), schema.getType(d.getPath()[0])));
                try {
                    file.readRowGroup(rowGroup);
                } catch (RuntimeException bad) {
                    return ", column " + String.join(".", d.getPath());
                }
            }
        } catch (IOException | RuntimeException unknown) {
            return ""; // the column stays unnamed; the row group is damaged all the same
        } finally {
            file.setRequestedSchema(layout.projection());
        }
        return "";
    }

    /** Whether a value of the column can make its row bad: INT64 values, hex text, any list. */
    private static boolean canBeBad(ParquetLayout.Binding b) {
        return b != null && b.isList()
                || b != null
                        && (b.kind() == ParquetLayout.Kind.INT64
                                || b.kind() == ParquetLayout.Kind.ID_HEX);
    }

    /** Rows of the row group not read yet. */
    public long rowsLeft() {
        return rowsLeft;
    }

    /**
     * Reads the next {@code min(maxRows, rowsLeft())} rows as block {@code seq} of {@code lane};
     * null when none is left.
     *
     * <p>The fields whose values can be bad (INT64 label or dense values, hex ids) are read first,
     * as the file holds them; so the bad rows are known when the others are read, and those are
     * decoded as they are read (fill, neg2zero, modulus), keeping the file's text of the bad rows'
     * values for their dead letters. The first fields get their operators after the bad rows are
     * taken out; then the column passes run.
     */
    @Override
    public ColumnBlock next(int lane, long seq, int maxRows) throws IOException {
        if (rowsLeft == 0) {
            return null;
        }
        int lines = (int) Math.min(maxRows, rowsLeft);
        if (damaged != null) {
            return damagedBlock(lane, seq, lines);
        }
        int[] labelDense = new int[lines * rowWidth];
        long[][] keys = new long[sparseColumns][lines];
        int[][] offsets = new int[sparseColumns][];
        long[][] missing = new long[fieldCount][];
        badField = null;
        blockLines = lines;
        for (int f : readOrder) {
            try {
                missing[f] =
                        layout.binding(f).isList()
                                ? readList(f, lines, keys, offsets)
                                : read(f, lines, labelDense, keys);
            } catch (RuntimeException e) {
                // A page whose values cannot be decoded (a damaged file without checksums): this
                // block and the rest of the row group are dead letters, and the job goes on.
                damaged =
                        where
                                + ", column "
                                + layout.binding(f).column()
                                + ": its pages cannot be decoded ("
                                + e
                                + ")";
                return damagedBlock(lane, seq, lines);
            }
        }
        for (int g = 0; g < generatedFields.length; g++) {
            // a generated field decodes its source's value as the file holds it
            int to = generatedFields[g];
            int from = generatedSources[g];
            for (int r = 0; r < lines; r++) {
                labelDense[r * rowWidth + to] = labelDense[r * rowWidth + from];
            }
            missing[to] = missing[from];
        }
        long firstRow = nextRow;
        nextRow += lines;
        rowsLeft -= lines;
        int rows = lines;
        DeadLetter[] dead = new DeadLetter[0];
        if (badField != null) {
            dead = deadLetters(labelDense, keys, offsets, missing);
            rows = lines - dead.length;
            labelDense = GoodRows.of(labelDense, rowWidth, badField, blockLines, rows);
            dropBadRows(keys, offsets, missing, rows);
        }
        for (int g : generatedFields) {
            decoder.apply(g, labelDense, keys, missing[g], rows);
        }
        for (int f : fallible) {
            if (layout.binding(f).isList()) {
                int c = f - rowWidth;
                offsets[c] = decoder.applyList(c, keys, offsets[c], missing[f], rows);
            } else {
                decoder.apply(f, labelDense, keys, missing[f], rows);
            }
        }
        decoder.runPasses(labelDense, keys, offsets, rows);
        return new ColumnBlock(lane, seq, firstRow, lines, rows, labelDense, keys, dead, offsets);
    }

    /**
     * The next {@code lines} rows of a damaged row group, all dead letters ({@link DamagedRows}).
     */
    private ColumnBlock damagedBlock(int lane, long seq, int lines) {
        long firstRow = nextRow;
        nextRow += lines;
        rowsLeft -= lines;
        return DamagedRows.block(layout.layout(), lane, seq, firstRow, lines, damaged);
    }

    /**
     * Reads field {@code f} of the next {@code lines} rows. A field that cannot be bad is decoded
     * as it is read (returns an empty set); any other is read as the file holds it (returns its
     * missing set).
     */
    private long[] read(int f, int lines, int[] labelDense, long[][] keys) throws IOException {
        ColumnCursor cursor = cursors[f];
        ParquetLayout.Kind kind = layout.binding(f).kind();
        long[] missing = null;
        int c = f - rowWidth;
        long[] ids = f >= rowWidth ? keys[c] : null;
        int line = 0;
        while (line < lines) {
            int n = cursor.available(lines - line);
            int end = line + n;
            // a generated field's source is read as the file holds it, as an INT64 column is
            switch (raw[f] ? ParquetLayout.Kind.INT64 : kind) {
                case INT32 -> {
                    int fill = decoder.fill(f);
                    boolean clip = decoder.neg2zero(f);
                    for (int r = line; r < end; r++) {
                        boolean present = cursor.present();
                        int v = present ? cursor.readInt() : fill;
                        if (badField != null && badField[r] >= 0) {
                            keepText(r, f, present ? Integer.toString(v) : "");
                        }
                        labelDense[r * rowWidth + f] = clip && v < 0 ? 0 : v;
                    }
                }
                case ID_INT32, ID_INT64 -> {
                    long fill = decoder.fillId(c);
                    long m = decoder.modulus(c);
                    boolean int32 = kind == ParquetLayout.Kind.ID_INT32;
                    for (int r = line; r < end; r++) {
                        boolean present = cursor.present();
                        long v =
                                !present
                                        ? fill
                                        : int32
                                                ? Integer.toUnsignedLong(cursor.readInt())
                                                : cursor.readLong();
                        if (badField != null && badField[r] >= 0) {
                            keepText(r, f, present ? hex8(v) : "");
                        }
                        ids[r] = m > 0 ? Long.remainderUnsigned(v, m) : v;
                    }
                }
                case INT64 -> {
                    boolean int32 = kind == ParquetLayout.Kind.INT32;
                    for (int r = line; r < end; r++) {
                        if (cursor.present()) {
                            long v = int32 ? cursor.readInt() : cursor.readLong();
                            if (v != (int) v) {
                                bad(
                                        r,
                                        f,
                                        f == 0 ? Reason.LABEL_NOT_INT32 : Reason.DENSE_NOT_INT32,
                                        Long.toString(v),
                                        " is not a 32-bit integer");
                            }
                            labelDense[r * rowWidth + f] = (int) v;
                        } else {
                            missing = mark(missing, lines, r);
                        }
                    }
                }
                case ID_HEX -> {
                    for (int r = line; r < end; r++) {
                        if (cursor.present()) {
                            byte[] text = cursor.readBinary().getBytes();
                            if (text.length == 0) {
                                missing = mark(missing, lines, r);
                            } else {
                                ids[r] = hex(text, r, f);
                            }
                        } else {
                            missing = mark(missing, lines, r);
                        }
                    }
                }
            }
            cursor.consumed(n);
            line = end;
        }
        return missing == null ? NONE_MISSING : missing;
    }

    private static long[] mark(long[] missing, int lines, int r) {
        long[] set = missing == null ? new long[ColumnBlock.words(lines)] : missing;
        set[r >>> 6] |= 1L << r;
        return set;
    }

    /**
     * Reads list field {@code f} of the next {@code lines} rows as the file holds it: its ids
     * (before any operator) into {@code keys[c]} and its offsets into {@code offsets[c]}; returns
     * the set of rows whose list is null or empty. A null id, an empty or bad hex id makes the row
     * bad (as the text decoder rejects an empty or bad id of a list).
     */
    /** Drops the rejected rows from the columns' keys, lists and missing bits. */
    private void dropBadRows(long[][] keys, int[][] offsets, long[][] missing, int rows) {
        for (int c = 0; c < sparseColumns; c++) {
            if (offsets[c] == null) {
                keys[c] = GoodRows.of(keys[c], badField, blockLines, rows);
            } else {
                dropBadLists(keys, offsets, c, rows);
            }
        }
        for (int f : fallible) {
            if (missing[f].length != 0) {
                missing[f] = GoodRows.bits(missing[f], badField, blockLines, rows);
            }
        }
        for (int g : generatedFields) {
            if (missing[g].length != 0) {
                missing[g] = GoodRows.bits(missing[g], badField, blockLines, rows);
            }
        }
    }

    private long[] readList(int f, int lines, long[][] keys, int[][] offsets) throws IOException {
        ColumnCursor cursor = cursors[f];
        ParquetLayout.Binding b = layout.binding(f);
        ParquetLayout.Kind kind = b.kind();
        int slotLevel = b.slotLevel();
        int max = cursor.maxDefinition();
        int c = f - rowWidth;
        char separator = layout.layout().listSeparator();
        int[] o = new int[lines + 1];
        long[] ids = keys[c];
        int n = 0;
        long[] missing = null;
        List<String> texts = null; // the current row's ids as text, once one of them is bad
        for (int r = 0; r < lines; r++) {
            if (!cursor.hasSlot() || !cursor.slotStartsRow()) {
                throw new IOException(
                        "column "
                                + b.column()
                                + " ends before its row group does, or a row does not start"
                                + " where one should");
            }
            int element = 0;
            boolean rowBad = badField != null && badField[r] >= 0;
            texts = rowBad ? new ArrayList<>() : null;
            do {
                int def = cursor.slotDefinition();
                if (def >= slotLevel) {
                    element++;
                    String problem = null; // what makes the id bad, as the detail words it
                    Reason reason = Reason.CATEGORICAL_NOT_HEX; // null ids and empty text
                    String text = null;
                    long v = 0;
                    if (def < max) {
                        problem = " is null";
                        text = "";
                    } else if (kind == ParquetLayout.Kind.ID_HEX) {
                        byte[] bytes = cursor.readBinary().getBytes();
                        text = new String(bytes, StandardCharsets.UTF_8);
                        int status =
                                bytes.length == 0
                                        ? HexIds.NOT_HEX
                                        : HexIds.status(bytes, 0, bytes.length);
                        if (status == HexIds.OK) {
                            v = HexIds.value(bytes, 0, bytes.length);
                        } else {
                            problem =
                                    ", \""
                                            + quoted(text)
                                            + "\", "
                                            + (bytes.length == 0
                                                    ? "is empty"
                                                    : HexIds.problem(status));
                            reason = HexIds.reason(status);
                        }
                    } else {
                        v =
                                kind == ParquetLayout.Kind.ID_INT32
                                        ? Integer.toUnsignedLong(cursor.readInt())
                                        : cursor.readLong();
                    }
                    if (problem != null && texts == null) {
                        texts = new ArrayList<>(); // the row's ids before this one, as text
                        for (int i = o[r]; i < n; i++) {
                            texts.add(hex8(ids[i]));
                        }
                    }
                    if (texts != null) {
                        texts.add(text != null ? text : hex8(v));
                    }
                    if (problem != null) {
                        reject(
                                r,
                                f,
                                reason,
                                text,
                                layout.layout().fieldName(f)
                                        + ": id "
                                        + element
                                        + " of the list"
                                        + problem);
                    } else {
                        if (n == ids.length) {
                            ids = Arrays.copyOf(ids, Math.max(16, n + (n >> 1)));
                        }
                        ids[n++] = v;
                    }
                }
                cursor.nextSlot();
            } while (cursor.hasSlot() && !cursor.slotStartsRow());
            if (element == 0) {
                missing = mark(missing, lines, r);
            }
            o[r + 1] = n;
            if (texts != null) {
                keepText(r, f, String.join(String.valueOf(separator), texts));
            }
        }
        keys[c] = ids;
        offsets[c] = o;
        return missing == null ? NONE_MISSING : missing;
    }

    /** A value cut at 40 characters for a message. */
    private static String quoted(String value) {
        return value.length() > 40 ? value.substring(0, 40) + "..." : value;
    }

    /** Drops the bad rows' lists of list column {@code c}. */
    private void dropBadLists(long[][] keys, int[][] offsets, int c, int rows) {
        int[] from = offsets[c];
        int[] to = new int[rows + 1];
        long[] ids = new long[Math.max(1, from[blockLines])];
        int row = 0;
        int n = 0;
        for (int r = 0; r < blockLines; r++) {
            if (badField[r] < 0) {
                int len = from[r + 1] - from[r];
                System.arraycopy(keys[c], from[r], ids, n, len);
                n += len;
                to[++row] = n;
            }
        }
        keys[c] = ids;
        offsets[c] = to;
    }

    /** The id of a hexadecimal text ({@link HexIds}); anything else marks the row bad, gives 0. */
    private long hex(byte[] text, int r, int f) {
        int status = HexIds.status(text, 0, text.length);
        if (status == HexIds.OK) {
            return HexIds.value(text, 0, text.length);
        }
        bad(
                r,
                f,
                HexIds.reason(status),
                new String(text, StandardCharsets.UTF_8),
                " " + HexIds.problem(status));
        return 0;
    }

    /** Records that field {@code f} of row {@code r} holds {@code value}, which is bad. */
    private void bad(int r, int f, Reason reason, String value, String why) {
        reject(
                r,
                f,
                reason,
                value,
                layout.layout().fieldName(f) + ": \"" + quoted(value) + "\"" + why);
    }

    /**
     * Records that field {@code f} of row {@code r}, holding {@code value}, makes the row bad; the
     * first bad field of a row gives its reason and {@code detail}.
     */
    private void reject(int r, int f, Reason reason, String value, String detail) {
        if (badField == null) {
            badField = new int[blockLines];
            Arrays.fill(badField, -1);
            badReason.clear();
            badDetail.clear();
            badText.clear();
        }
        badText.put((long) r * fieldCount + f, value);
        if (badField[r] < 0) { // fields are read in order: the first bad one names the row
            badField[r] = f;
            badReason.put(r, reason.code());
            badDetail.put(r, detail);
        }
    }

    /** The dead letters of the block's bad rows, in row order. */
    private DeadLetter[] deadLetters(
            int[] labelDense, long[][] keys, int[][] offsets, long[][] missing) {
        List<DeadLetter> dead = new ArrayList<>();
        for (int r = 0; r < blockLines; r++) {
            if (badField[r] >= 0) {
                byte[] raw = render(r, labelDense, keys, offsets, missing);
                int keep = Math.min(raw.length, maxRawBytes);
                dead.add(
                        new DeadLetter(
                                r,
                                -1,
                                badReason.get(r),
                                badDetail.get(r),
                                Arrays.copyOf(raw, keep),
                                keep < raw.length));
            }
        }
        return dead.toArray(new DeadLetter[0]);
    }

    /** Keeps the file's text of a bad row's value, for its dead letter. */
    private void keepText(int r, int f, String text) {
        badText.put((long) r * fieldCount + f, text);
    }

    /** An id as Criteo's text writes it: lowercase hex, at least 8 digits. */
    private static String hex8(long id) {
        String hex = Long.toHexString(id);
        return hex.length() >= 8 ? hex : "0".repeat(8 - hex.length()) + hex;
    }

    /** Row {@code r} as a Criteo text line: what the dead letter shows of it. */
    private byte[] render(
            int r, int[] labelDense, long[][] keys, int[][] offsets, long[][] missing) {
        StringBuilder line = new StringBuilder(256);
        for (int f = 0; f < fieldCount; f++) {
            if (layout.binding(f) == null) {
                continue; // a generated field: not in the file's row
            }
            if (f > 0) {
                line.append('\t');
            }
            String text = badText.get((long) r * fieldCount + f);
            if (text != null) {
                line.append(text);
            } else if (missing[f].length != 0 && (missing[f][r >>> 6] >>> r & 1) != 0) {
                continue;
            } else if (f < rowWidth) {
                line.append(labelDense[r * rowWidth + f]);
            } else if (offsets[f - rowWidth] != null) {
                int[] o = offsets[f - rowWidth];
                for (int i = o[r]; i < o[r + 1]; i++) {
                    if (i > o[r]) {
                        line.append(layout.layout().listSeparator());
                    }
                    line.append(hex8(keys[f - rowWidth][i]));
                }
            } else {
                line.append(hex8(keys[f - rowWidth][r]));
            }
        }
        return line.toString().getBytes(StandardCharsets.UTF_8);
    }
}
