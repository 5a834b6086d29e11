package dev.piper.operators.block;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Bulk reads and writes of primitive arrays for the block serializers: one little-endian byte copy
 * per piece of up to {@value #PIECE_BYTES} bytes instead of one call per element.
 *
 * <p>The pieces pass through a per-thread scratch buffer. A fresh buffer per array cost 15% of the
 * vocabulary and sink threads (allocation and zeroing, async-profiler, docs/PERFORMANCE.md).
 */
final class ArrayIO {

    static final int PIECE_BYTES = 64 * 1024;

    private static final ThreadLocal<ByteBuffer> SCRATCH =
            ThreadLocal.withInitial(
                    () -> ByteBuffer.allocate(PIECE_BYTES).order(ByteOrder.LITTLE_ENDIAN));

    private ArrayIO() {}

    static void writeInts(DataOutputView out, int[] a, int n) throws IOException {
        out.writeInt(n);
        ByteBuffer view = SCRATCH.get();
        int step = PIECE_BYTES / Integer.BYTES;
        for (int from = 0; from < n; from += step) {
            int len = Math.min(step, n - from);
            view.clear();
            view.asIntBuffer().put(a, from, len);
            out.write(view.array(), 0, len * Integer.BYTES);
        }
    }

    static int[] readInts(DataInputView in) throws IOException {
        return readInts(in, readLength(in));
    }

    /** {@code n} values of an int array whose count the caller has read. */
    static int[] readInts(DataInputView in, int n) throws IOException {
        int[] a = new int[n];
        ByteBuffer view = SCRATCH.get();
        int step = PIECE_BYTES / Integer.BYTES;
        for (int from = 0; from < n; from += step) {
            int len = Math.min(step, n - from);
            in.readFully(view.array(), 0, len * Integer.BYTES);
            view.clear();
            view.asIntBuffer().get(a, from, len);
        }
        return a;
    }

    static void writeLongs(DataOutputView out, long[] a, int n) throws IOException {
        out.writeInt(n);
        ByteBuffer view = SCRATCH.get();
        int step = PIECE_BYTES / Long.BYTES;
        for (int from = 0; from < n; from += step) {
            int len = Math.min(step, n - from);
            view.clear();
            view.asLongBuffer().put(a, from, len);
            out.write(view.array(), 0, len * Long.BYTES);
        }
    }

    static long[] readLongs(DataInputView in) throws IOException {
        return readLongs(in, readLength(in));
    }

    /** {@code n} values of a long array whose count the caller has read. */
    static long[] readLongs(DataInputView in, int n) throws IOException {
        long[] a = new long[n];
        ByteBuffer view = SCRATCH.get();
        int step = PIECE_BYTES / Long.BYTES;
        for (int from = 0; from < n; from += step) {
            int len = Math.min(step, n - from);
            in.readFully(view.array(), 0, len * Long.BYTES);
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
        byte[] piece = SCRATCH.get().array();
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
