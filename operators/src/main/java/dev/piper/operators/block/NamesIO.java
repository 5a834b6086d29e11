package dev.piper.operators.block;

import dev.piper.core.block.BlockNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Writes and reads the original strings of hash64 columns, as the dense chunk ({@link BlockNames})
 * and the assembled block (the names of its new keys) carry them. A string is its UTF-8 bytes after
 * an int32 length (-1 for none).
 *
 * <p>{@link BlockNames}: int32 0 for none, else the number of sparse columns and per column int32
 * -1 for a column without names, else the keys (int32 count, little-endian int64 values), the
 * strings' byte lengths (int32 count, little-endian int32 values, -1 for none) and their bytes
 * (int32 count, bytes). New keys' names: int32 0 for none, else the number of sparse columns and
 * per column int32 -1 for none, else a count and that many strings.
 */
final class NamesIO {

    private NamesIO() {}

    static void write(BlockNames names, DataOutputView out) throws IOException {
        if (names == null) {
            out.writeInt(0);
            return;
        }
        out.writeInt(names.columns());
        for (int c = 0; c < names.columns(); c++) {
            long[] keys = names.keys()[c];
            if (keys == null) {
                out.writeInt(-1);
                continue;
            }
            ArrayIO.writeLongs(out, keys, keys.length);
            ArrayIO.writeInts(out, names.lengths()[c], keys.length);
            ArrayIO.writeBytes(out, names.text()[c], names.text()[c].length);
        }
    }

    static BlockNames read(DataInputView in, int sparse) throws IOException {
        int columns = columns(in, sparse);
        if (columns == 0) {
            return null;
        }
        long[][] keys = new long[columns][];
        int[][] lengths = new int[columns][];
        byte[][] text = new byte[columns][];
        for (int c = 0; c < columns; c++) {
            int n = count(in);
            if (n == -1) {
                continue;
            }
            keys[c] = ArrayIO.readLongs(in, n);
            lengths[c] = ArrayIO.readInts(in);
            text[c] = ArrayIO.readBytes(in);
        }
        try {
            return new BlockNames(keys, lengths, text);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt block: " + e.getMessage(), e);
        }
    }

    static void writeNewNames(String[][] names, DataOutputView out) throws IOException {
        if (names == null) {
            out.writeInt(0);
            return;
        }
        out.writeInt(names.length);
        for (String[] column : names) {
            if (column == null) {
                out.writeInt(-1);
                continue;
            }
            out.writeInt(column.length);
            for (String s : column) {
                writeString(s, out);
            }
        }
    }

    static String[][] readNewNames(DataInputView in, int sparse) throws IOException {
        int columns = columns(in, sparse);
        if (columns == 0) {
            return null;
        }
        String[][] names = new String[columns][];
        for (int c = 0; c < columns; c++) {
            int n = count(in);
            if (n == -1) {
                continue;
            }
            names[c] = new String[n];
            for (int i = 0; i < n; i++) {
                names[c][i] = readString(in);
            }
        }
        return names;
    }

    /** The number of columns with names: 0 for none, else {@code sparse}. */
    private static int columns(DataInputView in, int sparse) throws IOException {
        int columns = in.readInt();
        if (columns != 0 && columns != sparse) {
            throw new IOException("corrupt block: names of " + columns + " columns for " + sparse);
        }
        return columns;
    }

    /** A column's count of names: -1 for a column without, else at least 0. */
    private static int count(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n < -1) {
            throw new IOException("corrupt block: " + n + " names");
        }
        return n;
    }

    private static void writeString(String s, DataOutputView out) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n == -1) {
            return null;
        }
        if (n < 0) {
            throw new IOException("corrupt block: a name of " + n + " bytes");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
