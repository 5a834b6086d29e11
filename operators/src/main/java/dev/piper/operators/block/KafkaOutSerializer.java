package dev.piper.operators.block;

import dev.piper.core.block.KafkaOut;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link KafkaOut}. Format 2: {@code target} (int32), {@code spread} (int64), key and
 * value (int32 length, bytes), then the headers (int32 count; each: name as modified UTF-8, value
 * as int32 length and bytes). Records only cross the network between operators, never into state,
 * so no reader of format 1 is kept.
 */
public final class KafkaOutSerializer extends BlockSerializer<KafkaOut> {

    private static final long serialVersionUID = 1L;

    public static final KafkaOutSerializer INSTANCE = new KafkaOutSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 2;

    @Override
    public KafkaOut createInstance() {
        return new KafkaOut(0, new byte[0], new byte[0], new String[0], new byte[0][]);
    }

    @Override
    public KafkaOut copy(KafkaOut from) {
        return from;
    }

    @Override
    public void serialize(KafkaOut r, DataOutputView out) throws IOException {
        out.writeInt(r.target());
        out.writeLong(r.spread());
        writeByteArray(out, r.key());
        writeByteArray(out, r.value());
        out.writeInt(r.headerNames().length);
        for (int i = 0; i < r.headerNames().length; i++) {
            out.writeUTF(r.headerNames()[i]);
            writeByteArray(out, r.headerValues()[i]);
        }
    }

    @Override
    public KafkaOut deserialize(DataInputView in) throws IOException {
        int target = in.readInt();
        long spread = in.readLong();
        byte[] key = readByteArray(in);
        byte[] value = readByteArray(in);
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt Kafka output record: negative header count " + n);
        }
        String[] names = new String[n];
        byte[][] values = new byte[n][];
        for (int i = 0; i < n; i++) {
            names[i] = in.readUTF();
            values[i] = readByteArray(in);
        }
        return new KafkaOut(target, key, value, names, values, spread);
    }

    @Override
    public TypeSerializerSnapshot<KafkaOut> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link KafkaOutSerializer}; its version is the byte format. */
    public static final class Snapshot extends BlockSerializerSnapshot<KafkaOut> {
        public Snapshot() {
            super("Kafka output record", FORMAT, () -> INSTANCE);
        }
    }
}
