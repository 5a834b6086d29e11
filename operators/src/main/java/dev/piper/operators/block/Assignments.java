package dev.piper.operators.block;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What an evicting vocabulary assigned while applying one block of its column: the first {@code
 * fresh} gave out indices no key held before, each later one reused the index of the key it
 * evicted. Each takes effect at its row of the block: from that row on, the index names the new key
 * (a row before it that uses the index means the evicted one).
 *
 * @param first the column's number of the first assignment: the assignments its vocabulary (this
 *     epoch's) made before this block, so the assignments of all blocks order without gaps
 * @param fresh how many of the first assignments took an index no key held before
 * @param indices the indices, as the rows hold them (the OOV buckets before them counted)
 * @param keys the key given each index
 * @param rows the row of the block (of its valid rows, from 0) where each takes effect
 * @param evicted for assignments {@code fresh..}, the key each evicted
 */
public record Assignments(
        long first, int fresh, int[] indices, long[] keys, int[] rows, long[] evicted) {

    public Assignments {
        int n = indices.length;
        if (first < 0
                || fresh < 0
                || fresh > n
                || keys.length != n
                || rows.length != n
                || evicted.length != n - fresh) {
            throw new IllegalArgumentException(
                    "assignments: first "
                            + first
                            + ", "
                            + fresh
                            + " fresh, "
                            + n
                            + " indices, "
                            + keys.length
                            + " keys, "
                            + rows.length
                            + " rows, "
                            + evicted.length
                            + " evicted");
        }
        for (int i = 1; i < n; i++) {
            if (rows[i] < rows[i - 1]) {
                throw new IllegalArgumentException(
                        "assignments out of row order: " + rows[i - 1] + " then " + rows[i]);
            }
        }
    }

    /** The number of assignments. */
    public int size() {
        return indices.length;
    }

    /** Whether assignment {@code i} reused an evicted key's index. */
    public boolean reused(int i) {
        return i >= fresh;
    }

    /** The key assignment {@code i} evicted; only for {@link #reused reused} ones. */
    public long evictedBy(int i) {
        return evicted[i - fresh];
    }

    /**
     * Bytes: int8 1 (0 for none), int64 first, int32 fresh, then the indices, keys, rows and
     * evicted keys as arrays (int32 count, little-endian values).
     */
    static void write(Assignments a, DataOutputView out) throws IOException {
        if (a == null) {
            out.writeByte(0);
            return;
        }
        out.writeByte(1);
        out.writeLong(a.first);
        out.writeInt(a.fresh);
        ArrayIO.writeInts(out, a.indices, a.indices.length);
        ArrayIO.writeLongs(out, a.keys, a.keys.length);
        ArrayIO.writeInts(out, a.rows, a.rows.length);
        ArrayIO.writeLongs(out, a.evicted, a.evicted.length);
    }

    /** Reads what {@link #write} wrote. */
    static Assignments read(DataInputView in) throws IOException {
        byte tag = in.readByte();
        if (tag == 0) {
            return null;
        }
        if (tag != 1) {
            throw new IOException("corrupt assignments: tag " + tag);
        }
        long first = in.readLong();
        int fresh = in.readInt();
        try {
            return new Assignments(
                    first,
                    fresh,
                    ArrayIO.readInts(in),
                    ArrayIO.readLongs(in),
                    ArrayIO.readInts(in),
                    ArrayIO.readLongs(in));
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt " + e.getMessage(), e);
        }
    }

    /** Copies what {@link #write} wrote. */
    static void copy(DataInputView in, DataOutputView out) throws IOException {
        byte tag = in.readByte();
        out.writeByte(tag);
        if (tag == 0) {
            return;
        }
        out.writeLong(in.readLong());
        out.writeInt(in.readInt());
        ArrayIO.copyArray(in, out, Integer.BYTES);
        ArrayIO.copyArray(in, out, Long.BYTES);
        ArrayIO.copyArray(in, out, Integer.BYTES);
        ArrayIO.copyArray(in, out, Long.BYTES);
    }
}
