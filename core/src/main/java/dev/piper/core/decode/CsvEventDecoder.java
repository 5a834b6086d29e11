package dev.piper.core.decode;

import dev.piper.core.block.BlockNames;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.input.CsvOptions;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.input.StringIds;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decodes lines of CSV (RFC 4180 quoting; {@link CsvOptions} names the columns, the delimiter and
 * whether a file starts with a header): each line is split into its fields, the fields the layout
 * reads are rewritten as a line of Criteo's text in the layout's order (quotes removed, a string id
 * of a hash64 column as its 64-bit key in hexadecimal), and the block of such lines is decoded by
 * the text decoder ({@link CriteoDecoder}). A CSV value therefore means exactly what the same text
 * means in a Criteo line: decimal dense values, hexadecimal ids (hash64: any text), empty for a
 * missing value, ids of a list separated by the layout's list separator; the same reasons reject
 * it, and the text decoder's speed carries over.
 *
 * <p>Dead letters keep their CSV line: its bytes and offset, its line in the block, and details
 * that name the CSV column beside the layout's ({@code C3 (item_id): "zz" is not hexadecimal}).
 * Lines that are no CSV of the columns are rejected before that: {@code invalid_csv} (bad quoting),
 * {@code wrong_field_count} (not one field per column), {@code invalid_utf8}, {@code
 * line_too_long}. A header line (the first line of a file, with {@code input.header}) is skipped:
 * not a row, not a dead letter, and not counted among the lines.
 *
 * <p>Not thread-safe; one per decoding subtask.
 */
public final class CsvEventDecoder implements BlockDecoder {

    private final DecodeOptions options;
    private final CsvOptions csv;
    private final RowLayout layout;
    private final CriteoDecoder text;
    private final byte delimiter;
    private final byte listSeparator;

    /** Per field of a text line (label, dense, sparse: no generated ones), its CSV column. */
    private final int[] source;

    /** Per field of a text line, whether it is a hash64 column's: its text becomes a key. */
    private final boolean[] hashed;

    /** Per field of a text line, whether it is a list column's. */
    private final boolean[] list;

    /** Per layout field, its name as details give it: {@code C3 (item_id)}, or {@code C3}. */
    private final String[] detailName;

    // The fields of the line being split: where each CSV field's value starts and ends, and
    // whether it holds doubled quotes.
    private final int[] valueStart;
    private final int[] valueEnd;
    private final boolean[] escaped;

    /** The block as Criteo text; grows as needed. */
    private byte[] out = new byte[1 << 16];

    private int outLength;

    /** Bytes of a value with its doubled quotes undone. */
    private byte[] unescaped = new byte[256];

    /**
     * The original strings of hash64 columns, or null: noted after the text decoder has said which
     * lines are rows (a line it rejects gives no names).
     */
    private final NameCollector names;

    /** Per input field, the sparse column it is, or -1. */
    private final int[] sparseOf;

    // The block's hashed strings as transcoded: line, column, hash, bytes in nameText up to end;
    // or that the line has no value in the column (the fill id).
    private boolean[] nameFill = new boolean[64];
    private int[] nameLine = new int[64];
    private int[] nameColumn = new int[64];
    private long[] nameHash = new long[64];
    private int[] nameEnd = new int[64];
    private byte[] nameText = new byte[1024];
    private int nameCount;

    /** The line being transcoded, for {@link #nameLine}. */
    private int line;

    /** Each event's time, read from CSV column {@link #timeColumn}; null (and -1) for none. */
    private final EventTime time;

    private final int timeColumn;

    /** The event time as details name it: {@code the event time (ts)}. */
    private final String timeName;

    /** Per line of the block, its event's time. */
    private long[] lineTimes = new long[64];

    /** Why the current line is rejected, once it is. */
    private Reason failReason;

    private String failDetail;

    public CsvEventDecoder(DecodeOptions options, boolean measure) {
        EventFields events = options.events();
        if (events == null || events.csv() == null) {
            throw new IllegalArgumentException("options without CSV columns");
        }
        this.options = options;
        this.csv = events.csv();
        ColumnProgram program = options.program();
        this.layout = program.layout();
        // a text line holds hashed ids as 16 hex digits: longer than the CSV's text can be
        this.text =
                new CriteoDecoder(
                        new DecodeOptions(
                                program,
                                options.padMissingFields(),
                                Integer.MAX_VALUE / 2,
                                options.maxRawBytes()),
                        measure);
        this.delimiter = (byte) csv.delimiter();
        this.listSeparator = (byte) layout.listSeparator();
        int width = layout.labelDenseWidth();
        int dense = layout.dense();
        int inputFields = 1 + dense + layout.sparse();
        this.source = new int[inputFields];
        this.hashed = new boolean[inputFields];
        this.list = new boolean[inputFields];
        this.sparseOf = new int[inputFields];
        for (int i = 0; i < inputFields; i++) {
            int f = i <= dense ? i : i + width - dense - 1; // past the generated fields
            source[i] = csv.indexOf(events.path(f).text());
            sparseOf[i] = f >= width ? f - width : -1;
            if (f >= width) {
                hashed[i] = program.hashesIds(f - width);
                list[i] = layout.isList(f - width);
            }
        }
        this.names = NameCollector.of(program);
        this.detailName = new String[layout.fields()];
        for (int f = 0; f < layout.fields(); f++) {
            String name = layout.fieldName(f);
            String column = events.path(f).text();
            detailName[f] = column.equals(name) ? name : name + " (" + column + ")";
        }
        this.time = events.time();
        this.timeColumn = time == null ? -1 : csv.indexOf(time.field());
        this.timeName = time == null ? null : "the event time (" + time.field() + ")";
        int columns = csv.columns().size();
        this.valueStart = new int[columns];
        this.valueEnd = new int[columns];
        this.escaped = new boolean[columns];
    }

    @Override
    public long[] measureKinds(RawChunk chunk) {
        return new long[2];
    }

    @Override
    public CriteoDecoder.Decoded decode(RawChunk chunk, boolean countFields) {
        byte[] b = chunk.data();
        int end = chunk.lastLineCut() ? Swar.lastLineStart(b, chunk.length()) : chunk.length();
        int start = 0;
        if (csv.header() && !chunk.origin().isLog() && chunk.firstOffset() == 0 && end > 0) {
            int nl = Swar.indexOf(b, (byte) '\n', 0, end);
            start = nl < 0 ? end : nl + 1; // the file's header: no line of the log
        }
        int first = start;
        outLength = 0;
        grow(2 * (chunk.length() - start) + 64);
        int[] lineStart = new int[64];
        int[] lineEnd = new int[64];
        Reason[] reasons = new Reason[64];
        String[] details = new String[64];
        int lines = 0;
        nameCount = 0;
        while (start < end) {
            line = lines;
            int nl = Swar.indexOf(b, (byte) '\n', start, end);
            int next = nl < 0 ? end : nl + 1;
            int e = nl < 0 ? end : nl;
            if (e > start && b[e - 1] == '\r') {
                e--;
            }
            if (lines == lineStart.length) {
                int n = lines * 2;
                lineStart = Arrays.copyOf(lineStart, n);
                lineEnd = Arrays.copyOf(lineEnd, n);
                reasons = Arrays.copyOf(reasons, n);
                details = Arrays.copyOf(details, n);
            }
            lineStart[lines] = start;
            lineEnd[lines] = e;
            int mark = outLength;
            int namesMark = nameCount;
            if (!transcode(b, start, e)) {
                outLength = mark; // an empty text line, whose dead letter is replaced by ours
                nameCount = namesMark;
                reasons[lines] = failReason;
                details[lines] = failDetail;
            }
            put((byte) '\n');
            lines++;
            start = next;
        }
        int cutStart = end;
        if (chunk.lastLineCut()) {
            grow(chunk.length() - end); // the cut line as it is: too long, whatever it holds
            System.arraycopy(b, end, out, outLength, chunk.length() - end);
            outLength += chunk.length() - end;
        }
        CriteoDecoder.Decoded decoded =
                text.decode(
                        new RawChunk(
                                chunk.lane(),
                                chunk.seq(),
                                chunk.firstOffset(),
                                out,
                                outLength,
                                chunk.lastLineLength(),
                                chunk.origin()),
                        countFields);
        DenseChunk d = decoded.dense();
        DeadLetter[] dead = d.deadLetters().clone();
        int acceptedBytes = chunk.length() - first - (chunk.length() - end);
        for (int k = 0; k < dead.length; k++) {
            int i = dead[k].lineInBlock();
            if (i >= lines) { // the cut line
                dead[k] =
                        new DeadLetter(
                                i,
                                chunk.firstOffset() + cutStart,
                                dead[k].reason(),
                                dead[k].detail(),
                                dead[k].raw(),
                                dead[k].rawTruncated());
                continue;
            }
            int s = lineStart[i];
            int e = lineEnd[i];
            int next = i + 1 < lines ? lineStart[i + 1] : end;
            acceptedBytes -= next - s;
            int keep = Math.min(e - s, options.maxRawBytes());
            dead[k] =
                    new DeadLetter(
                            i,
                            chunk.firstOffset() + s,
                            reasons[i] != null ? reasons[i].code() : dead[k].reason(),
                            reasons[i] != null ? details[i] : named(dead[k].detail()),
                            Arrays.copyOfRange(b, s, s + keep),
                            keep < e - s);
        }
        DenseChunk dense =
                DenseChunk.builder()
                        .lane(d.lane())
                        .seq(d.seq())
                        .lines(d.lines())
                        .rows(d.rows())
                        .labelDense(d.labelDense())
                        .deadLetters(dead)
                        .origin(chunk.origin())
                        .version(d.version())
                        .layout(d.layout())
                        .onehot(d.onehot())
                        .names(names == null ? null : blockNames(rejected(dead, lines), lines))
                        .eventTimes(
                                time == null
                                        ? null
                                        : rowTimes(rejected(dead, lines), lines, d.rows()))
                        .build();
        return new CriteoDecoder.Decoded(
                dense,
                decoded.keys(),
                decoded.fieldBytes(),
                acceptedBytes,
                decoded.passNanos(),
                decoded.missing());
    }

    /** Per line of the block (and the cut line after them), whether it is a dead letter. */
    private static boolean[] rejected(DeadLetter[] dead, int lines) {
        boolean[] rejected = new boolean[lines + 1];
        for (DeadLetter d : dead) {
            rejected[Math.min(d.lineInBlock(), lines)] = true;
        }
        return rejected;
    }

    /** The rows' event times: those of every line but the dead letters'. */
    private long[] rowTimes(boolean[] rejected, int lines, int rows) {
        long[] times = new long[rows];
        int row = 0;
        for (int l = 0; l < lines; l++) {
            if (!rejected[l]) {
                times[row++] = lineTimes[l];
            }
        }
        if (row != rows) {
            throw new IllegalStateException(row + " lines are rows, but the text has " + rows);
        }
        return times;
    }

    /** The names of the rows' strings: those of every line but the dead letters'. */
    private BlockNames blockNames(boolean[] rejected, int lines) {
        names.startBlock();
        int i = 0;
        for (int l = 0; l < lines; l++) {
            for (; i < nameCount && nameLine[i] == l; i++) {
                if (rejected[l]) {
                    continue;
                }
                int c = nameColumn[i];
                if (nameFill[i]) {
                    names.noteFill(c, layout.isList(c));
                } else {
                    int from = i == 0 ? 0 : nameEnd[i - 1];
                    names.note(c, nameHash[i], nameText, from, nameEnd[i] - from);
                }
            }
            if (!rejected[l]) {
                names.commitLine();
            }
        }
        return names.finish();
    }

    /** Stages a hashed string of the line being transcoded, {@code v[from, to)}, of field i. */
    private long hashed(int i, byte[] v, int from, int to) {
        long h = StringIds.key(v, from, to - from);
        if (names == null || !names.collects(sparseOf[i])) {
            return h;
        }
        int at = nameCount == 0 ? 0 : nameEnd[nameCount - 1];
        int length = to - from;
        if (nameText.length < at + length) {
            nameText = Arrays.copyOf(nameText, Math.max(at + length, nameText.length * 2));
        }
        System.arraycopy(v, from, nameText, at, length);
        stage(i, h, at + length, false);
        return h;
    }

    /** Stages that the line being transcoded has no value in field i: it takes the fill id. */
    private void stageFill(int i) {
        if (names != null && names.collects(sparseOf[i])) {
            stage(i, 0, nameCount == 0 ? 0 : nameEnd[nameCount - 1], true);
        }
    }

    private void stage(int i, long h, int end, boolean fill) {
        if (nameCount == nameLine.length) {
            int n = nameCount * 2;
            nameLine = Arrays.copyOf(nameLine, n);
            nameColumn = Arrays.copyOf(nameColumn, n);
            nameHash = Arrays.copyOf(nameHash, n);
            nameEnd = Arrays.copyOf(nameEnd, n);
            nameFill = Arrays.copyOf(nameFill, n);
        }
        nameLine[nameCount] = line;
        nameColumn[nameCount] = sparseOf[i];
        nameHash[nameCount] = h;
        nameEnd[nameCount] = end;
        nameFill[nameCount] = fill;
        nameCount++;
    }

    /** The text decoder's detail with the CSV column beside the layout's name it starts with. */
    private String named(String detail) {
        int colon = detail.indexOf(':');
        if (colon > 0) {
            int f = layout.fieldOf(detail.substring(0, colon));
            if (f >= 0) {
                return detailName[f] + detail.substring(colon);
            }
        }
        return detail;
    }

    /**
     * Writes the CSV line {@code b[s, e)} as a line of Criteo text (without its line break); false,
     * with the reason set, if it is no line of the CSV's columns.
     */
    /** The line's event time, from its split fields into {@link #lineTimes}. */
    private boolean readTime(byte[] b) {
        int from = valueStart[timeColumn];
        int to = valueEnd[timeColumn];
        byte[] v = b;
        if (escaped[timeColumn]) {
            to = unescape(b, from, to);
            from = 0;
            v = unescaped;
        }
        if (to == from) {
            return fail(Reason.BAD_TIMESTAMP, timeName + " is missing");
        }
        long ms = time.millis(v, from, to);
        if (ms == EventTime.INVALID) {
            return fail(
                    Reason.BAD_TIMESTAMP,
                    timeName
                            + ": "
                            + time.whyNot(new String(v, from, to - from, StandardCharsets.UTF_8)));
        }
        if (line == lineTimes.length) {
            lineTimes = Arrays.copyOf(lineTimes, line * 2);
        }
        lineTimes[line] = ms;
        return true;
    }

    private boolean transcode(byte[] b, int s, int e) {
        if (e - s > options.maxLineBytes()) {
            return fail(
                    Reason.LINE_TOO_LONG,
                    "line has " + (e - s) + " bytes; the limit is " + options.maxLineBytes());
        }
        if (s == e) {
            return true; // the text decoder's empty line
        }
        if (!split(b, s, e) || (timeColumn >= 0 && !readTime(b))) {
            return false;
        }
        for (int i = 0; i < source.length; i++) {
            if (i > 0) {
                put((byte) '\t');
            }
            int c = source[i];
            int from = valueStart[c];
            int to = valueEnd[c];
            byte[] v = b;
            if (escaped[c]) {
                to = unescape(b, from, to);
                from = 0;
                v = unescaped;
            }
            if (!hashed[i]) {
                grow(to - from);
                for (int k = from; k < to; k++) {
                    byte x = v[k];
                    // a tab or line break in a quoted value cannot be one of Criteo's: any other
                    // byte that is no digit keeps the value's dead letter what it would be
                    out[outLength++] = x == '\t' || x == '\n' || x == '\r' ? (byte) ' ' : x;
                }
            } else if (!list[i]) {
                if (to > from) {
                    hex(hashed(i, v, from, to));
                } else {
                    stageFill(i);
                }
            } else if (to == from) {
                stageFill(i);
            } else {
                for (int k = from; k < to; ) {
                    int sep = k;
                    while (sep < to && v[sep] != listSeparator) {
                        sep++;
                    }
                    if (sep > k) {
                        hex(hashed(i, v, k, sep));
                    }
                    if (sep == to) {
                        break;
                    }
                    put(listSeparator); // before an empty id too: the text decoder names it
                    k = sep + 1;
                }
            }
        }
        return true;
    }

    /**
     * Splits the line {@code b[s, e)} into its fields ({@link #valueStart}, {@link #valueEnd},
     * {@link #escaped}); false, with the reason set, if its quoting is broken or it has not one
     * field per column.
     */
    private boolean split(byte[] b, int s, int e) {
        int columns = valueStart.length;
        int fields = 0;
        int p = s;
        int high = 0;
        while (true) {
            int from;
            int to;
            boolean doubled = false;
            if (p < e && b[p] == '"') {
                from = ++p;
                while (true) {
                    int q = Swar.indexOf(b, (byte) '"', p, e);
                    if (q < 0) {
                        return fail(
                                Reason.INVALID_CSV,
                                column(fields) + ": a quoted field does not end on its line");
                    }
                    if (q + 1 < e && b[q + 1] == '"') {
                        doubled = true;
                        p = q + 2;
                        continue;
                    }
                    to = q;
                    p = q + 1;
                    break;
                }
                if (p < e && b[p] != delimiter) {
                    int stray = p;
                    while (stray < e && stray - p < 16 && b[stray] != delimiter) {
                        stray++;
                    }
                    return fail(
                            Reason.INVALID_CSV,
                            column(fields)
                                    + ": "
                                    + CriteoDecoder.quote(b, p, stray)
                                    + " after the closing quote, where a delimiter belongs");
                }
            } else {
                from = p;
                while (p < e && b[p] != delimiter) {
                    if (b[p] == '"') {
                        return fail(
                                Reason.INVALID_CSV,
                                column(fields)
                                        + ": a quote inside an unquoted field (RFC 4180 quotes"
                                        + " a whole field, and doubles a quote inside it)");
                    }
                    p++;
                }
                to = p;
            }
            for (int k = from; k < to; k++) {
                high |= b[k];
            }
            if (fields < columns) {
                valueStart[fields] = from;
                valueEnd[fields] = to;
                escaped[fields] = doubled;
            }
            fields++;
            if (p >= e) {
                break;
            }
            p++; // the delimiter
            if (p == e) {
                if (fields < columns) { // an empty last field
                    valueStart[fields] = e;
                    valueEnd[fields] = e;
                    escaped[fields] = false;
                }
                fields++;
                break;
            }
        }
        if (high < 0 && !CriteoDecoder.isUtf8(b, s, e)) {
            return fail(Reason.INVALID_UTF8, "the line is not valid UTF-8");
        }
        if (fields != columns) {
            if (fields < columns && options.padMissingFields()) {
                for (int c = fields; c < columns; c++) {
                    valueStart[c] = e; // padded: an absent field is missing
                    valueEnd[c] = e;
                    escaped[c] = false;
                }
                return true;
            }
            return fail(
                    Reason.WRONG_FIELD_COUNT,
                    "expected "
                            + columns
                            + " fields separated by "
                            + CsvOptions.describe(csv.delimiter())
                            + " (input.columns), found "
                            + fields);
        }
        return true;
    }

    /** The CSV column {@code c} as details name it. */
    private String column(int c) {
        return c < csv.columns().size()
                ? "column " + (c + 1) + " (" + csv.columns().get(c) + ")"
                : "column " + (c + 1) + " (beyond input.columns)";
    }

    /** Undoes the doubled quotes of {@code b[from, to)} into {@link #unescaped}; its length. */
    private int unescape(byte[] b, int from, int to) {
        if (unescaped.length < to - from) {
            unescaped = new byte[Math.max(to - from, unescaped.length * 2)];
        }
        int n = 0;
        for (int k = from; k < to; k++) {
            unescaped[n++] = b[k];
            if (b[k] == '"') {
                k++; // its double
            }
        }
        return n;
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** Writes {@code key} as 16 hexadecimal digits, which the text decoder reads back. */
    private void hex(long key) {
        grow(16);
        for (int shift = 60; shift >= 0; shift -= 4) {
            out[outLength++] = HEX[(int) (key >>> shift) & 0xf];
        }
    }

    private void put(byte x) {
        grow(1);
        out[outLength++] = x;
    }

    private void grow(int more) {
        if (outLength + more > out.length) {
            out = Arrays.copyOf(out, Math.max(outLength + more, out.length * 2));
        }
    }

    private boolean fail(Reason reason, String detail) {
        failReason = reason;
        failDetail = detail;
        return false;
    }
}
