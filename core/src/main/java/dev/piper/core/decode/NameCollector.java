package dev.piper.core.decode;

import dev.piper.core.block.BlockNames;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.IdMap;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.io.IOException;
import java.io.UncheckedIOException;
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
    private final BlockSet[] seen;

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
        this.seen = new BlockSet[toKey.length];
        for (int c = 0; c < toKey.length; c++) {
            if (toKey[c] != null) {
                seen[c] = new BlockSet();
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
        for (BlockSet s : seen) {
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
        BlockSet s = seen[c];
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
        int[] bytes = new int[sparse];
        for (int i = 0; i < count; i++) {
            int c = column[i];
            if (c >= 0) {
                per[c]++;
                bytes[c] += end[i] - (i == 0 ? 0 : end[i - 1]);
            }
        }
        long[][] keys = new long[sparse][];
        int[][] lengths = new int[sparse][];
        byte[][] strings = new byte[sparse][];
        for (int c = 0; c < sparse; c++) {
            if (toKey[c] != null) {
                keys[c] = new long[per[c]];
                lengths[c] = new int[per[c]];
                strings[c] = new byte[bytes[c]];
            }
        }
        Arrays.fill(per, 0);
        Arrays.fill(bytes, 0);
        for (int i = 0; i < count; i++) {
            int c = column[i];
            if (c < 0) {
                continue;
            }
            int from = i == 0 ? 0 : end[i - 1];
            int n = end[i] - from;
            keys[c][per[c]] = toKey[c].applyAsLong(hash[i]);
            lengths[c][per[c]++] = isFill[i] ? -1 : n;
            System.arraycopy(text, from, strings[c], bytes[c], n);
            bytes[c] += n;
        }
        startBlock();
        return new BlockNames(keys, lengths, strings);
    }

    /**
     * A set of a block's hashes: open addressing with the hash's low bits as its slot (XXH64's
     * output needs no further mixing), emptied for the next block by a new stamp, not a fill.
     */
    private static final class BlockSet {
        private long[] hashes = new long[1024];
        private int[] stamps = new int[1024];
        private int stamp = 1;
        private int size;

        boolean contains(long h) {
            int mask = hashes.length - 1;
            for (int i = (int) h & mask; ; i = (i + 1) & mask) {
                if (stamps[i] != stamp) {
                    return false;
                }
                if (hashes[i] == h) {
                    return true;
                }
            }
        }

        /** Adds {@code h}; false if it was there. */
        boolean add(long h) {
            if (size * 2 >= hashes.length) {
                grow();
            }
            int mask = hashes.length - 1;
            for (int i = (int) h & mask; ; i = (i + 1) & mask) {
                if (stamps[i] != stamp) {
                    stamps[i] = stamp;
                    hashes[i] = h;
                    size++;
                    return true;
                }
                if (hashes[i] == h) {
                    return false;
                }
            }
        }

        private void grow() {
            long[] old = hashes;
            int[] oldStamps = stamps;
            int live = stamp;
            hashes = new long[old.length * 2];
            stamps = new int[old.length * 2];
            stamp = 1;
            size = 0;
            for (int i = 0; i < old.length; i++) {
                if (oldStamps[i] == live) {
                    add(old[i]);
                }
            }
        }

        void clear() {
            size = 0;
            if (++stamp == 0) { // wrapped: no slot may look current
                Arrays.fill(stamps, 0);
                stamp = 1;
            }
        }
    }
}
