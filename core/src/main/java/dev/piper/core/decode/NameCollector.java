package dev.piper.core.decode;

import dev.piper.core.block.BlockNames;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.IdMap;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongUnaryOperator;

/**
 * Collects the original strings of a block's hash64 columns as a decoder reads its events ({@link
 * BlockNames}): each string the first time the block's rows hold it. A string is noted while its
 * event is read and kept only when the event becomes a row ({@link #commitLine}); the strings of an
 * event that becomes a dead letter are dropped ({@link #dropLine}), so a name always comes from a
 * row. A string already in the block costs one probe of a hash set of its hash; a new one, its
 * bytes copied once. At the block's end ({@link #finish}) each hash goes through the column's id
 * operators (modulus, sigrid_hash, mapid: {@link IdOp#perId}) to the key its vocabulary sees.
 *
 * <p>Not thread-safe; one per decoder.
 */
public final class NameCollector {

    /** Per sparse column: what a hash becomes on its way to the vocabulary; null: not hashed. */
    private final LongUnaryOperator[] toKey;

    /** Per sparse column: the hashes the block's rows hold so far (null: not hashed). */
    private final LongOpenHashSet[] seen;

    /** Per sparse column: its fill id, which a row without a value takes. */
    private final long[] fill;

    /** Per sparse column: whether a list without ids takes the fill id (else it stays empty). */
    private final boolean[] fillsList;

    /** Per sparse column: whether a row of the block took the fill id. */
    private final boolean[] filled;

    // The block's strings, in the order noted: column, hash (a fill: the fill id, no string),
    // bytes in text[end[i-1], end[i]).
    private boolean[] isFill = new boolean[64];
    private int[] column = new int[64];
    private long[] hash = new long[64];
    private int[] end = new int[64];
    private byte[] text = new byte[1024];
    private int count;

    /** Entries the block had before the current event's: what a drop goes back to. */
    private int lineStart;

    private NameCollector(LongUnaryOperator[] toKey, long[] fill, boolean[] fillsList) {
        this.toKey = toKey;
        this.fill = fill;
        this.fillsList = fillsList;
        this.filled = new boolean[toKey.length];
        this.seen = new LongOpenHashSet[toKey.length];
        for (int c = 0; c < toKey.length; c++) {
            if (toKey[c] != null) {
                seen[c] = new LongOpenHashSet();
            }
        }
    }

    /**
     * A collector for {@code program}'s hash64 columns, or null when it has none (then no decoder
     * pays for names). A column whose ids are combined (an n-gram) has none: no single string names
     * its keys.
     */
    public static NameCollector of(ColumnProgram program) {
        int sparse = program.layout().sparse();
        int width = program.layout().labelDenseWidth();
        LongUnaryOperator[] toKey = new LongUnaryOperator[sparse];
        long[] fill = new long[sparse];
        boolean[] fillsList = new boolean[sparse];
        Map<String, Long2LongOpenHashMap> tables = new HashMap<>();
        boolean any = false;
        for (int c = 0; c < sparse; c++) {
            fill[c] = program.fill(width + c);
            fillsList[c] = program.fillsEmptyList(c);
            if (!program.hashesIds(c)) {
                continue;
            }
            long m = program.modulus(c);
            LongUnaryOperator f =
                    m > 0 ? id -> Long.remainderUnsigned(id, m) : LongUnaryOperator.identity();
            for (Op op : program.passOps(width + c)) {
                LongUnaryOperator next =
                        ((IdOp) op)
                                .perId(file -> tables.computeIfAbsent(file, NameCollector::read));
                if (next == null) {
                    f = null;
                    break;
                }
                f = f.andThen(next);
            }
            toKey[c] = f;
            any |= f != null;
        }
        return any ? new NameCollector(toKey, fill, fillsList) : null;
    }

    private static Long2LongOpenHashMap read(String file) {
        try {
            return IdMap.read(Path.of(file));
        } catch (IOException e) {
            throw new UncheckedIOException("mapid: " + e.getMessage(), e);
        }
    }

    /** Whether sparse column {@code c} collects names. */
    public boolean collects(int c) {
        return toKey[c] != null;
    }

    /** Starts a block: no strings yet. */
    public void startBlock() {
        for (LongOpenHashSet s : seen) {
            if (s != null) {
                s.clear();
            }
        }
        Arrays.fill(filled, false);
        count = 0;
        lineStart = 0;
    }

    /**
     * Notes that the current event holds, in column {@code c}, the string of UTF-8 bytes {@code
     * b[from, from + length)} whose hash is {@code h}.
     */
    public void note(int c, long h, byte[] b, int from, int length) {
        LongOpenHashSet s = seen[c];
        if (s == null || s.contains(h)) {
            return;
        }
        int at = count == 0 ? 0 : end[count - 1];
        if (text.length < at + length) {
            text = Arrays.copyOf(text, Math.max(at + length, text.length * 2));
        }
        System.arraycopy(b, from, text, at, length);
        add(c, h, at + length, false);
    }

    /**
     * Notes that the current event has no value in sparse column {@code c} (a list column: no ids):
     * the row takes the column's fill id, if it takes one.
     *
     * @param list whether the column is a list column
     */
    public void noteFill(int c, boolean list) {
        if (seen[c] == null || filled[c] || (list && !fillsList[c])) {
            return;
        }
        add(c, fill[c], count == 0 ? 0 : end[count - 1], true);
    }

    private void add(int c, long h, int textEnd, boolean fillId) {
        if (count == column.length) {
            column = Arrays.copyOf(column, count * 2);
            hash = Arrays.copyOf(hash, count * 2);
            end = Arrays.copyOf(end, count * 2);
            isFill = Arrays.copyOf(isFill, count * 2);
        }
        column[count] = c;
        hash[count] = h;
        end[count] = textEnd;
        isFill[count] = fillId;
        count++;
    }

    /**
     * Notes that the current event holds in column {@code d} the strings it holds in column {@code
     * c} (two columns read one field).
     */
    public void copyLine(int c, int d) {
        if (seen[d] == null) {
            return;
        }
        for (int i = lineStart, n = count; i < n; i++) {
            if (column[i] == c && !isFill[i]) {
                int from = i == 0 ? 0 : end[i - 1];
                note(d, hash[i], text, from, end[i] - from);
            }
        }
    }

    /** Keeps the current event's strings: it became a row. */
    public void commitLine() {
        for (int i = lineStart; i < count; i++) {
            int c = column[i];
            if (isFill[i] ? filled[c] : !seen[c].add(hash[i])) {
                column[i] = -1; // twice in the event: the first stays
            }
            if (isFill[i]) {
                filled[c] = true;
            }
        }
        lineStart = count;
    }

    /** Drops the current event's strings: it became a dead letter. */
    public void dropLine() {
        count = lineStart;
    }

    /** The block's names, and starts the next block. */
    public BlockNames finish() {
        dropLine();
        int sparse = toKey.length;
        int[] per = new int[sparse];
        for (int i = 0; i < count; i++) {
            if (column[i] >= 0) {
                per[column[i]]++;
            }
        }
        long[][] keys = new long[sparse][];
        String[][] names = new String[sparse][];
        for (int c = 0; c < sparse; c++) {
            if (toKey[c] != null) {
                keys[c] = new long[per[c]];
                names[c] = new String[per[c]];
            }
        }
        Arrays.fill(per, 0);
        for (int i = 0; i < count; i++) {
            int c = column[i];
            if (c < 0) {
                continue;
            }
            int from = i == 0 ? 0 : end[i - 1];
            keys[c][per[c]] = toKey[c].applyAsLong(hash[i]);
            names[c][per[c]++] =
                    isFill[i]
                            ? null
                            : new String(text, from, end[i] - from, StandardCharsets.UTF_8);
        }
        startBlock();
        return new BlockNames(keys, names);
    }
}
