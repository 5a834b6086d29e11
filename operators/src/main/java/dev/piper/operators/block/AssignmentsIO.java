package dev.piper.operators.block;

import dev.piper.core.block.Assignments;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The bytes of an {@link Assignments} (or none) inside the serializers of the blocks that carry it.
 */
final class AssignmentsIO {

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
        out.writeLong(a.first());
        out.writeInt(a.fresh());
        ArrayIO.writeInts(out, a.indices(), a.indices().length);
        ArrayIO.writeLongs(out, a.keys(), a.keys().length);
        ArrayIO.writeInts(out, a.rows(), a.rows().length);
        ArrayIO.writeLongs(out, a.evicted(), a.evicted().length);
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

    private AssignmentsIO() {}
}
