package dev.piper.operators.block;

import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.Origin;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Common ground of the stateless block serializers: blocks are never reused or mutated after they
 * are emitted, so {@code copy} shares arrays and {@code reuse} is ignored.
 */
public abstract class BlockSerializer<T> extends TypeSerializer<T> {

    private static final long serialVersionUID = 1L;

    @Override
    public final boolean isImmutableType() {
        return false;
    }

    @Override
    public final TypeSerializer<T> duplicate() {
        return this;
    }

    @Override
    public final T copy(T from, T reuse) {
        return copy(from);
    }

    @Override
    public final int getLength() {
        return -1;
    }

    @Override
    public final T deserialize(T reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public final boolean equals(Object obj) {
        return obj != null && obj.getClass() == getClass();
    }

    @Override
    public final int hashCode() {
        return getClass().hashCode();
    }

    /** Writes a byte array as int32 length and bytes. */
    protected static void writeByteArray(DataOutputView out, byte[] a) throws IOException {
        ArrayIO.writeBytes(out, a, a.length);
    }

    /** Reads a byte array written by {@link #writeByteArray}, refusing a negative length. */
    protected static byte[] readByteArray(DataInputView in) throws IOException {
        return ArrayIO.readBytes(in);
    }

    static void writeDeadLetters(DeadLetter[] letters, DataOutputView out) throws IOException {
        out.writeInt(letters.length);
        for (DeadLetter d : letters) {
            out.writeInt(d.lineInBlock());
            out.writeLong(d.offset());
            out.writeUTF(d.reason());
            out.writeUTF(d.detail());
            ArrayIO.writeBytes(out, d.raw(), d.raw().length);
            out.writeBoolean(d.rawTruncated());
        }
    }

    /**
     * Writes an {@link Origin}: the record offsets (int32 count, little-endian int64 values), the
     * records' first lines (int32 count, little-endian int32 values), then the first and last
     * timestamps (int64). {@link Origin#NONE} takes 24 bytes.
     */
    static void writeOrigin(Origin origin, DataOutputView out) throws IOException {
        ArrayIO.writeLongs(out, origin.offsets(), origin.records());
        ArrayIO.writeInts(out, origin.firstLines(), origin.records());
        out.writeLong(origin.firstTimestamp());
        out.writeLong(origin.lastTimestamp());
    }

    static Origin readOrigin(DataInputView in) throws IOException {
        long[] offsets = ArrayIO.readLongs(in);
        int[] firstLines = ArrayIO.readInts(in);
        long first = in.readLong();
        long last = in.readLong();
        if (offsets.length == 0 && firstLines.length == 0 && first == -1 && last == -1) {
            return Origin.NONE;
        }
        if (offsets.length != firstLines.length) {
            throw new IOException(
                    "corrupt block origin: "
                            + offsets.length
                            + " offsets but "
                            + firstLines.length
                            + " first lines");
        }
        return new Origin(offsets, firstLines, first, last);
    }

    static DeadLetter[] readDeadLetters(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt block: negative dead-letter count " + n);
        }
        DeadLetter[] letters = new DeadLetter[n];
        for (int i = 0; i < n; i++) {
            int line = in.readInt();
            long offset = in.readLong();
            String reason = in.readUTF();
            String detail = in.readUTF();
            byte[] raw = ArrayIO.readBytes(in);
            boolean truncated = in.readBoolean();
            letters[i] = new DeadLetter(line, offset, reason, detail, raw, truncated);
        }
        return letters;
    }
}
