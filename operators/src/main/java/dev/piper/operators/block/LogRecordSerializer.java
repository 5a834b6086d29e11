package dev.piper.operators.block;

import dev.piper.core.block.LogRecord;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link LogRecord}. Format 1: {@code lane} (int32), {@code offset, timestamp}
 * (int64), then the value as int32 length and bytes.
 */
public final class LogRecordSerializer extends BlockSerializer<LogRecord> {

    private static final long serialVersionUID = 1L;

    public static final LogRecordSerializer INSTANCE = new LogRecordSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 1;

    @Override
    public LogRecord createInstance() {
        return new LogRecord(0, 0, -1, new byte[0]);
    }

    @Override
    public LogRecord copy(LogRecord from) {
        return from;
    }

    @Override
    public void serialize(LogRecord r, DataOutputView out) throws IOException {
        out.writeInt(r.lane());
        out.writeLong(r.offset());
        out.writeLong(r.timestamp());
        ArrayIO.writeBytes(out, r.value(), r.value().length);
    }

    @Override
    public LogRecord deserialize(DataInputView in) throws IOException {
        int lane = in.readInt();
        long offset = in.readLong();
        long timestamp = in.readLong();
        byte[] value = ArrayIO.readBytes(in);
        return new LogRecord(lane, offset, timestamp, value);
    }

    @Override
    public TypeSerializerSnapshot<LogRecord> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link LogRecordSerializer}; its version is the byte format. */
    public static final class Snapshot extends BlockSerializerSnapshot<LogRecord> {
        public Snapshot() {
            super("log record", FORMAT, () -> INSTANCE);
        }
    }
}
