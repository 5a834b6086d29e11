package dev.piper.operators.block;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Bulk reads and writes of primitive arrays for the block serializers: one little-endian byte copy
 * per piece of up to {@value #PIECE_BYTES} bytes instead of one call per element.
 */
final class ArrayIO {

    static final int PIECE_BYTES = 64 * 1024;

    private ArrayIO() {}

    static void writeInts(DataOutputView out, int[] a, int n) throws IOException {
        out.writeInt(n);
        byte[] bytes = new byte[Math.min(n * Integer.BYTES, PIECE_BYTES)];
        ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int step = PIECE_BYTES / Integer.BYTES;
        for (int from = 0; from < n; from += step) {
            int len = Math.min(step, n - from);
            view.clear();
            view.asIntBuffer().put(a, from, len);
            out.write(bytes, 0, len * Integer.BYTES);
        }
    }

    static int[] readInts(DataInputView in) throws IOException {
        int n = readLength(in);
        int[] a = new int[n];
        byte[] bytes = new byte[Math.min(n * Integer.BYTES, PIECE_BYTES)];
        ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int step = PIECE_BYTES / Integer.BYTES;
        for (int from = 0; from < n; from += step) {
            int len = Math.min(step, n - from);
            in.readFully(bytes, 0, len * Integer.BYTES);
            view.clear();
            view.asIntBuffer().get(a, from, len);
        }
        return a;
    }

    static void writeLongs(DataOutputView out, long[] a, int n) throws IOException {
        out.writeInt(n);
        byte[] bytes = new byte[Math.min(n * Long.BYTES, PIECE_BYTES)];
        ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int step = PIECE_BYTES / Long.BYTES;
        for (int from = 0; from < n; from += step) {
            int len = Math.min(step, n - from);
            view.clear();
            view.asLongBuffer().put(a, from, len);
            out.write(bytes, 0, len * Long.BYTES);
        }
    }

    static long[] readLongs(DataInputView in) throws IOException {
        int n = readLength(in);
        long[] a = new long[n];
        byte[] bytes = new byte[Math.min(n * Long.BYTES, PIECE_BYTES)];
        ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int step = PIECE_BYTES / Long.BYTES;
        for (int from = 0; from < n; from += step) {
            int len = Math.min(step, n - from);
            in.readFully(bytes, 0, len * Long.BYTES);
            view.clear();
            view.asLongBuffer().get(a, from, len);
        }
        return a;
    }

    static void writeBytes(DataOutputView out, byte[] a, int n) throws IOException {
        out.writeInt(n);
        out.write(a, 0, n);
    }

    static byte[] readBytes(DataInputView in) throws IOException {
        byte[] a = new byte[readLength(in)];
        in.readFully(a);
        return a;
    }

    /** Copies one array written by a {@code write*} method of element size {@code width}. */
    static void copyArray(DataInputView in, DataOutputView out, int width) throws IOException {
        int n = readLength(in);
        out.writeInt(n);
        long total = (long) n * width;
        byte[] piece = new byte[(int) Math.min(PIECE_BYTES, total)];
        while (total > 0) {
            int len = (int) Math.min(PIECE_BYTES, total);
            in.readFully(piece, 0, len);
            out.write(piece, 0, len);
            total -= len;
        }
    }

    private static int readLength(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt block: negative array length " + n);
        }
        return n;
    }
}
