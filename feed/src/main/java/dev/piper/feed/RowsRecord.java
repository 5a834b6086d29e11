package dev.piper.feed;

import dev.piper.pipeline.layout.CriteoLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * One record of a stream's rows topic, read and checked against its headers ({@code
 * docs/SEMANTICS.md}, "Rows topic"): its rows, the row's columns, and for a layout with list
 * columns each list column's lengths and values. A record without {@link RowsRecord#RECORD_VERSION}
 * is format 1: Criteo's 40 columns, no lists.
 *
 * @param where the record's topic, partition and offset, for messages
 * @param inputTopic the topic its lines came from
 * @param inputPartition their partition
 * @param block the block's number in that partition
 * @param rows its row count
 * @param rowBytes bytes of one row
 * @param sparseColumns per scalar sparse column of the row, in row order: its column number (0 for
 *     C1) and its slot in the row
 * @param epochs per sparse column (list columns included), its vocabulary epoch
 * @param buckets per sparse column, its OOV buckets in that epoch
 * @param listColumns the column numbers of the list columns, in value order
 * @param listLengths per list column, its rows' lengths
 * @param listValues per list column, its values
 * @param pipeline the {@code name/version} header, or empty
 * @param shape the rows' shape as its headers state it: the row's columns, the float32 columns and
 *     the list columns, for comparing records
 * @param hotlineFirstRow with Hotline's split (record format 3), the number of its first row in the
 *     split's order; else -1
 * @param popular with the split, one byte per row, 1 popular; else null
 * @param working with the split, per sparse column its working parameters; else null
 * @param assignmentsBefore when a column evicts ({@link #ASSIGNMENTS}), per sparse column the
 *     assignments its vocabulary made before this block; else null
 * @param evicts with {@code assignmentsBefore}, per sparse column whether its vocabulary evicts
 *     ({@link StreamFormat#EVICT}); else null
 * @param inputOffsets the first and last input offset of the block's records ({@link
 *     RowsRecord#INPUT_OFFSETS}), or null where the record states none
 * @param eventTimes per row, its event time in milliseconds since the epoch ({@link
 *     RowsRecord#EVENT_TIMES}), or null where the rows carry none
 * @param vocabPosition per sparse column, its vocabulary's position once this block was applied
 *     ({@link #VOCAB_POSITION}), or null where the record states none
 */
public record RowsRecord(
        String where,
        String inputTopic,
        int inputPartition,
        long block,
        int rows,
        int rowBytes,
        int[][] sparseColumns,
        int[] epochs,
        int[] buckets,
        int[] listColumns,
        int[][] listLengths,
        int[][] listValues,
        String pipeline,
        String shape,
        byte[] value,
        long hotlineFirstRow,
        byte[] popular,
        int[][] working,
        long[] assignmentsBefore,
        boolean[] evicts,
        long[] inputOffsets,
        long[] eventTimes,
        long[] vocabPosition) {

    // The headers' names; formats/rows-record.json says what each holds and when it is there.

    /** The output format's name, as in the batch {@code metadata.json}. */
    public static final String FORMAT = "piper.format";

    /** The output format's version. */
    public static final String FORMAT_VERSION = "piper.format.version";

    /** The record format; a record without it is format 1, Criteo's 40 columns only. */
    public static final String RECORD_VERSION = "piper.record.version";

    /** The record format this build writes: 3 with Hotline's split, else 2. */
    public static final int CURRENT_RECORD_VERSION = 3;

    /** The record format of rows without Hotline's split. */
    public static final int RECORD_VERSION_WITHOUT_SPLIT = 2;

    /** With Hotline's split: how many of the rows are popular. */
    public static final String HOTLINE_POPULAR = "piper.hotline.popular";

    /** With Hotline's split: per sparse column, its working parameters in the value. */
    public static final String HOTLINE_WORKING = "piper.hotline.working";

    /** The names of a row's int32 slots, in order, joined by {@code ,}. */
    public static final String ROW_COLUMNS = "piper.row.columns";

    /** The names of the row's slots that hold float32 bits. */
    public static final String FLOAT32_COLUMNS = "piper.float32.columns";

    /** The row's columns that hold bucket numbers (bucketize ends their chains). */
    public static final String BUCKETIZED_COLUMNS = "piper.bucketized.columns";

    /** Per bucketized column, its number of buckets (its embedding table's rows). */
    public static final String BUCKETIZED_BUCKETS = "piper.bucketized.buckets";

    /** The list columns' names; their lengths and values follow the rows in the value. */
    public static final String LIST_COLUMNS = "piper.list.columns";

    /** Per list column, its number of values. */
    public static final String LIST_VALUES = "piper.list.values";

    /** The pipeline that made the rows, {@code name/version}. */
    public static final String PIPELINE = "piper.pipeline";

    /** The parameters of the spec the job started with, {@code key=value} joined by {@code ;}. */
    public static final String PIPELINE_PARAMS = "piper.pipeline.params";

    /** Per sparse column, the vocabulary epoch its indices belong to. */
    public static final String EPOCHS = "piper.epochs";

    /** The rows in the value. */
    public static final String ROWS = "piper.rows";

    /** The block's input lines: rows + dead letters. */
    public static final String LINES = "piper.lines";

    /** The block's lines that became dead letters. */
    public static final String DEAD_LETTERS = "piper.dead.letters";

    /** The first and last input offset of the block, {@code first-last}, inclusive. */
    public static final String INPUT_OFFSETS = "piper.input.offsets";

    /** The timestamps (ms) of the block's first and last input record, {@code a-b}. */
    public static final String INPUT_TIMESTAMPS = "piper.input.timestamps";

    /** A stream's records: the commit stamp ({@code StreamFormat.withCheckpoint}). */
    public static final String CHECKPOINT = "piper.checkpoint";

    /** Rows with event times, a little-endian int64 each after everything else in the value. */
    public static final String EVENT_TIMES = "piper.event.times";

    /** The value of {@link #EVENT_TIMES}: milliseconds since the epoch. */
    public static final String EVENT_TIMES_UNIT = "ms";

    /** When a column evicts: per sparse column, the assignments made before the block. */
    public static final String ASSIGNMENTS = "piper.assignments";

    /** When a column evicts: per sparse column, the assignments made for this block. */
    public static final String BLOCK_ASSIGNMENTS = "piper.block.assignments";

    /** Per sparse column, its vocabulary's position once this block was applied. */
    public static final String VOCAB_POSITION = "piper.vocab.position";

    /** Reads {@code r}, a record of a rows topic. */
    public static RowsRecord of(ConsumerRecord<byte[], byte[]> r) {
        String where = r.topic() + "/" + r.partition() + "@" + r.offset();
        int version = version(r, where);
        RowsRecordFormat.DESCRIBED.check(headers(r), version, where);
        int rows = intHeader(r, ROWS, -1, where); // present: the check says so
        List<String> columns = criteoColumns();
        if (version >= 2) {
            columns = List.of(required(r, ROW_COLUMNS, where).split(",", -1));
        }
        List<int[]> sparse = sparseSlots(columns);
        String listText = header(r, LIST_COLUMNS);
        String[] listNames = listText == null ? new String[0] : listText.split(",", -1);
        int[] lists = listColumns(listNames, where);
        int[] valueCounts =
                lists.length == 0
                        ? new int[0]
                        : ints(required(r, LIST_VALUES, where), lists.length, where);
        int sparseCount = sparse.size() + lists.length;
        int[] epochs = countsOrZeros(r, EPOCHS, sparseCount, where);
        int[] buckets = countsOrZeros(r, StreamFormat.OOV_BUCKETS, sparseCount, where);

        checkOnceEach(sparse, lists, sparseCount, where, columns, listText);
        int rowBytes = columns.size() * Integer.BYTES;
        String workingText = header(r, HOTLINE_WORKING);
        int[] workingCounts = workingText == null ? null : ints(workingText, sparseCount, where);
        byte[] value = r.value() == null ? new byte[0] : r.value();
        boolean timed = eventTimesUnit(r, where);
        checkLength(
                value,
                rows,
                rowBytes,
                valueCounts,
                workingCounts,
                timed,
                where,
                listText,
                workingText);
        ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        b.position(rows * rowBytes);
        int[][] lengths = new int[lists.length][];
        int[][] values = new int[lists.length][];
        for (int l = 0; l < lists.length; l++) {
            lengths[l] = listLengths(b, rows, listNames[l], valueCounts[l], where);
            values[l] = ints(b, valueCounts[l]);
        }
        Tail tail = tail(r, b, rows, workingCounts, timed, where);
        String pipeline = header(r, PIPELINE);
        RowsRecord record =
                new RowsRecord(
                        where,
                        required(r, StreamFormat.INPUT_TOPIC, where),
                        intHeader(r, StreamFormat.INPUT_PARTITION, -1, where),
                        Long.parseLong(required(r, StreamFormat.BLOCK, where)),
                        rows,
                        rowBytes,
                        sparse.toArray(int[][]::new),
                        epochs,
                        buckets,
                        lists,
                        lengths,
                        values,
                        pipeline == null ? "" : pipeline,
                        shape(columns, List.of(listNames)),
                        value,
                        tail.hotlineFirstRow(),
                        tail.popular(),
                        tail.working(),
                        numbersPerColumn(r, ASSIGNMENTS, sparseCount),
                        evicts(r, sparseCount),
                        inputOffsets(r),
                        tail.eventTimes(),
                        numbersPerColumn(r, VOCAB_POSITION, sparseCount));
        record.checkIndices();
        return record;
    }

    /** What follows the rows and lists: Hotline's split, the event times; each or none. */
    private record Tail(long hotlineFirstRow, byte[] popular, int[][] working, long[] eventTimes) {}

    /** Reads the value's {@link Tail} from {@code b}, positioned after the lists. */
    private static Tail tail(
            ConsumerRecord<byte[], byte[]> r,
            ByteBuffer b,
            int rows,
            int[] workingCounts,
            boolean timed,
            String where) {
        long hotlineFirstRow = -1;
        byte[] popular = null;
        int[][] working = null;
        if (workingCounts != null) {
            hotlineFirstRow = Long.parseLong(required(r, StreamFormat.HOTLINE_FIRST_ROW, where));
            working = new int[workingCounts.length][];
            for (int c = 0; c < working.length; c++) {
                working[c] = ints(b, workingCounts[c]);
            }
            popular = new byte[rows];
            b.get(popular);
        }
        long[] eventTimes = null;
        if (timed) {
            eventTimes = new long[rows];
            b.asLongBuffer().get(eventTimes);
        }
        return new Tail(hotlineFirstRow, popular, working, eventTimes);
    }

    /** Per sparse column of {@code columns}, in row order: its column number and its slot. */
    private static List<int[]> sparseSlots(List<String> columns) {
        List<int[]> sparse = new ArrayList<>();
        for (int slot = 0; slot < columns.size(); slot++) {
            int c = sparseColumn(columns.get(slot));
            if (c >= 0) {
                sparse.add(new int[] {c, slot});
            }
        }
        return sparse;
    }

    /** The column numbers of the list columns {@code names}, which must be sparse columns. */
    private static int[] listColumns(String[] names, String where) {
        int[] lists = new int[names.length];
        for (int l = 0; l < lists.length; l++) {
            lists[l] = sparseColumn(names[l]);
            if (lists[l] < 0) {
                throw new IllegalStateException(
                        where + ": list column " + names[l] + " is not a sparse column");
            }
        }
        return lists;
    }

    /** Refuses sparse and list columns that are not C1..C{@code sparseCount} once each. */
    private static void checkOnceEach(
            List<int[]> sparse,
            int[] lists,
            int sparseCount,
            String where,
            List<String> columns,
            String listText) {
        boolean[] seen = new boolean[sparseCount];
        for (int c : columnNumbers(sparse, lists)) {
            if (c >= sparseCount || seen[c]) {
                throw new IllegalStateException(
                        where
                                + ": sparse columns "
                                + columns
                                + (listText == null ? "" : " and lists " + listText)
                                + " are not C1..C"
                                + sparseCount
                                + " once each");
            }
            seen[c] = true;
        }
    }

    /**
     * Header {@code name}'s numbers, one per sparse column ({@link #ASSIGNMENTS}, {@link
     * #VOCAB_POSITION}), or null where the record has no such header; the description's check made
     * them numbers, one per sparse column.
     */
    private static long[] numbersPerColumn(
            ConsumerRecord<byte[], byte[]> r, String name, int sparseCount) {
        String text = header(r, name);
        if (text == null) {
            return null;
        }
        String[] parts = text.split(",", -1);
        long[] numbers = new long[sparseCount];
        for (int c = 0; c < sparseCount; c++) {
            numbers[c] = Long.parseLong(parts[c]);
        }
        return numbers;
    }

    /** Per sparse column, whether its vocabulary evicts, or null where none does. */
    private static boolean[] evicts(ConsumerRecord<byte[], byte[]> r, int sparseCount) {
        String text = header(r, StreamFormat.EVICT);
        if (text == null) {
            return null;
        }
        String[] kinds = text.split(",", -1);
        boolean[] evicts = new boolean[sparseCount];
        for (int c = 0; c < sparseCount; c++) {
            evicts[c] = !kinds[c].isEmpty();
        }
        return evicts;
    }

    /**
     * Refuses a value whose length is not what its headers state: {@code rows} rows of {@code
     * rowBytes}, each list column's lengths and values, and Hotline's working parameters and flags.
     */
    private static void checkLength(
            byte[] value,
            int rows,
            int rowBytes,
            int[] valueCounts,
            int[] workingCounts,
            boolean timed,
            String where,
            String listText,
            String workingText) {
        long expected = (long) rows * rowBytes + (timed ? (long) rows * Long.BYTES : 0);
        for (int count : valueCounts) {
            expected += (long) (rows + count) * Integer.BYTES;
        }
        if (workingCounts != null) {
            expected += rows;
            for (int count : workingCounts) {
                expected += (long) count * Integer.BYTES;
            }
        }
        if (value.length != expected) {
            throw new IllegalStateException(
                    where
                            + ": "
                            + rows
                            + " rows of "
                            + rowBytes
                            + " bytes"
                            + (valueCounts.length > 0 ? " with list values " + listText : "")
                            + (workingText != null ? " and their Hotline split " + workingText : "")
                            + (timed ? " and their event times" : "")
                            + " take "
                            + expected
                            + " bytes, the value has "
                            + value.length);
        }
    }

    /** Whether the rows carry event times; refuses a unit other than milliseconds. */
    private static boolean eventTimesUnit(ConsumerRecord<byte[], byte[]> r, String where) {
        String unit = header(r, EVENT_TIMES);
        if (unit != null && !unit.equals(EVENT_TIMES_UNIT)) {
            throw new IllegalStateException(
                    where
                            + ": header "
                            + EVENT_TIMES
                            + " \""
                            + unit
                            + "\": event times in "
                            + EVENT_TIMES_UNIT
                            + " are read, no other unit");
        }
        return unit != null;
    }

    /** The record format {@code r} states (1 without the header), which this build must read. */
    private static int version(ConsumerRecord<byte[], byte[]> r, String where) {
        int version = intHeader(r, RECORD_VERSION, 1, where);
        if (version < 1 || version > CURRENT_RECORD_VERSION) {
            throw new IllegalStateException(
                    where
                            + ": record format "
                            + version
                            + ", this build reads 1 to "
                            + CURRENT_RECORD_VERSION);
        }
        return version;
    }

    /** Header {@code name}'s {@code n} counts, or {@code n} zeros where the record has none. */
    private static int[] countsOrZeros(
            ConsumerRecord<byte[], byte[]> r, String name, int n, String where) {
        String text = header(r, name);
        return text == null ? new int[n] : ints(text, n, where);
    }

    /** The next {@code count} little-endian int32 of {@code b}. */
    private static int[] ints(ByteBuffer b, int count) {
        int[] out = new int[count];
        b.asIntBuffer().get(out);
        b.position(b.position() + count * Integer.BYTES);
        return out;
    }

    /** The block's first and last input offset, or null; the description checked the range. */
    private static long[] inputOffsets(ConsumerRecord<byte[], byte[]> r) {
        String text = header(r, INPUT_OFFSETS);
        if (text == null) {
            return null;
        }
        int dash = text.indexOf('-');
        return new long[] {
            Long.parseLong(text.substring(0, dash)), Long.parseLong(text.substring(dash + 1))
        };
    }

    /**
     * The lengths of list column {@code name}'s {@code rows} rows, read from {@code b}, which must
     * add up to the {@code count} values its header states.
     */
    private static int[] listLengths(ByteBuffer b, int rows, String name, int count, String where) {
        int[] lengths = new int[rows];
        long sum = 0;
        for (int i = 0; i < rows; i++) {
            lengths[i] = b.getInt();
            if (lengths[i] < 0) {
                throw new IllegalStateException(
                        where + ": " + name + " row " + i + " has a negative length");
            }
            sum += lengths[i];
        }
        if (sum != count) {
            throw new IllegalStateException(
                    where
                            + ": "
                            + name
                            + "'s lengths add up to "
                            + sum
                            + ", its header says "
                            + count
                            + " values");
        }
        return lengths;
    }

    /**
     * Refuses a record holding a negative vocabulary index (the writer's indices start at 0, and a
     * trainer's embedding lookup fails on one), naming the column and the row.
     */
    private void checkIndices() {
        ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        for (int[] column : sparseColumns) {
            for (int row = 0; row < rows; row++) {
                int index = b.getInt(row * rowBytes + column[1] * Integer.BYTES);
                if (index < 0) {
                    throw negative(column[0], "row " + row, index);
                }
            }
        }
        for (int l = 0; l < listColumns.length; l++) {
            for (int i = 0; i < listValues[l].length; i++) {
                if (listValues[l][i] < 0) {
                    throw negative(listColumns[l], "list value " + i, listValues[l][i]);
                }
            }
        }
    }

    private IllegalStateException negative(int column, String at, int index) {
        return new IllegalStateException(
                where
                        + ": column C"
                        + (column + 1)
                        + ", "
                        + at
                        + " of block "
                        + block
                        + " of "
                        + inputTopic
                        + "/"
                        + inputPartition
                        + ": vocabulary index "
                        + index
                        + " is negative (indices start at 0)");
    }

    /**
     * The {@link #shape()} of rows with the slots {@code columns} and the list columns {@code
     * lists}.
     */
    public static String shape(List<String> columns, List<String> lists) {
        return "columns "
                + String.join(",", columns)
                + (lists.isEmpty() ? "" : ", lists " + String.join(",", lists));
    }

    /** The number of sparse columns, list columns included. */
    public int sparseCount() {
        return epochs.length;
    }

    /** The largest index of each sparse column in this record (-1 where it has none). */
    public int[] maxIndices() {
        int[] max = new int[sparseCount()];
        java.util.Arrays.fill(max, -1);
        ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        for (int[] column : sparseColumns) {
            int m = -1;
            for (int row = 0; row < rows; row++) {
                m = Math.max(m, b.getInt(row * rowBytes + column[1] * Integer.BYTES));
            }
            max[column[0]] = m;
        }
        for (int l = 0; l < listColumns.length; l++) {
            int m = -1;
            for (int v : listValues[l]) {
                m = Math.max(m, v);
            }
            max[listColumns[l]] = m;
        }
        return max;
    }

    private static int[] columnNumbers(List<int[]> sparse, int[] lists) {
        int[] all = new int[sparse.size() + lists.length];
        for (int i = 0; i < sparse.size(); i++) {
            all[i] = sparse.get(i)[0];
        }
        System.arraycopy(lists, 0, all, sparse.size(), lists.length);
        return all;
    }

    /**
     * The column number of {@code C<n>}, or -1 for any other name; a number past any layout's
     * ({@code C99999999999}) is {@link Integer#MAX_VALUE}, which the callers refuse by name.
     */
    static int sparseColumn(String name) {
        if (name.length() < 2 || name.charAt(0) != 'C') {
            return -1;
        }
        for (int i = 1; i < name.length(); i++) {
            if (name.charAt(i) < '0' || name.charAt(i) > '9') {
                return -1;
            }
        }
        if (name.length() > 11) {
            return Integer.MAX_VALUE; // more digits than an int holds
        }
        return (int) Math.min(Long.parseLong(name.substring(1)) - 1, Integer.MAX_VALUE);
    }

    private static List<String> criteoColumns() {
        List<String> names = new ArrayList<>(CriteoLayout.FIELDS);
        for (int f = 0; f < CriteoLayout.FIELDS; f++) {
            names.add(CriteoLayout.fieldName(f));
        }
        return names;
    }

    /** Every header of {@code r} as text, the last value of each name. */
    static java.util.Map<String, String> headers(ConsumerRecord<byte[], byte[]> r) {
        java.util.Map<String, String> all = new java.util.LinkedHashMap<>();
        for (Header h : r.headers()) {
            all.put(
                    h.key(),
                    h.value() == null ? "" : new String(h.value(), StandardCharsets.US_ASCII));
        }
        return all;
    }

    /** Header {@code key} of {@code r} as text, or null if it has none. */
    static String header(ConsumerRecord<byte[], byte[]> r, String key) {
        Header h = r.headers().lastHeader(key);
        return h == null ? null : new String(h.value(), StandardCharsets.US_ASCII);
    }

    private static String required(ConsumerRecord<byte[], byte[]> r, String key, String where) {
        String v = header(r, key);
        if (v == null) {
            throw new IllegalStateException(where + ": no " + key + " header");
        }
        return v;
    }

    private static int intHeader(
            ConsumerRecord<byte[], byte[]> r, String key, int absent, String where) {
        String v = header(r, key);
        if (v == null) {
            return absent;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(where + ": " + key + " is not an integer: " + v);
        }
    }

    /** The comma-separated fields of a header, which must be {@code expected} of them. */
    private static String[] fields(String text, int expected, String where) {
        String[] parts = text.split(",", -1);
        if (parts.length != expected) {
            throw new IllegalStateException(
                    where
                            + ": "
                            + parts.length
                            + " entries in \""
                            + text
                            + "\", expected "
                            + expected);
        }
        return parts;
    }

    private static int[] ints(String text, int expected, String where) {
        String[] parts = fields(text, expected, where);
        int[] out = new int[expected];
        for (int i = 0; i < expected; i++) {
            try {
                out[i] = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                throw new IllegalStateException(where + ": not an integer in \"" + text + "\"");
            }
        }
        return out;
    }
}
