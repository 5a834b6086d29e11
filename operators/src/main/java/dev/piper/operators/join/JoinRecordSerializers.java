package dev.piper.operators.join;

import dev.piper.core.join.JoinDeadLetter;
import dev.piper.core.join.JoinInput;
import dev.piper.core.join.JoinRead;
import dev.piper.core.join.JoinedLine;
import dev.piper.operators.block.BlockSerializer;
import dev.piper.operators.block.BlockSerializerSnapshot;
import dev.piper.operators.block.FormatSnapshot;
import dev.piper.operators.block.SerializerTypeInfo;
import dev.piper.pipeline.join.KeyJoinState;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The serializers of the stream join's records on the data path, one versioned format each (written
 * down here; frozen by {@code JoinSerializersTest}).
 */
public final class JoinRecordSerializers {

    private JoinRecordSerializers() {}

    /** The records read from the join's topics. */
    public static final TypeInformation<JoinRead> JOIN_READ =
            new SerializerTypeInfo<>(JoinRead.class, ReadSerializer.INSTANCE);

    /** The records to join, stamped with their partitions' watermarks. */
    public static final TypeInformation<JoinInput> JOIN_INPUT =
            new SerializerTypeInfo<>(JoinInput.class, InputSerializer.INSTANCE);

    /** The records the join refused. */
    public static final TypeInformation<JoinDeadLetter> JOIN_DEAD_LETTER =
            new SerializerTypeInfo<>(JoinDeadLetter.class, DeadLetterSerializer.INSTANCE);

    /** The join's rows. */
    public static final TypeInformation<JoinedLine> JOINED_LINE =
            new SerializerTypeInfo<>(JoinedLine.class, LineSerializer.INSTANCE);

    /**
     * A record to join, format 1: stream (int32), key (string: int32 UTF-8 length, -1 for null, and
     * bytes), time, partition (int32), offset, watermark (int64), id (string), value (float64), the
     * bytes (int32 length and bytes), truncated (a byte).
     */
    static void writeInput(JoinInput r, DataOutput out) throws IOException {
        out.writeInt(r.stream());
        KeyJoinState.writeString(r.key(), out);
        out.writeLong(r.timeMs());
        out.writeInt(r.partition());
        out.writeLong(r.offset());
        out.writeLong(r.watermark());
        KeyJoinState.writeString(r.id(), out);
        out.writeDouble(r.value());
        writeBytes(r.bytes(), out);
        out.writeBoolean(r.truncated());
    }

    static JoinInput readInput(DataInput in) throws IOException {
        return new JoinInput(
                in.readInt(),
                KeyJoinState.readString(in),
                in.readLong(),
                in.readInt(),
                in.readLong(),
                in.readLong(),
                KeyJoinState.readString(in),
                in.readDouble(),
                readBytes(in),
                in.readBoolean());
    }

    static void writeBytes(byte[] b, DataOutput out) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    static byte[] readBytes(DataInput in) throws IOException {
        return readBytes(in, in.readInt(), "join record");
    }

    /**
     * The {@code n} bytes that follow in {@code in}, {@code n} their length as just read there; a
     * negative one is refused as a corrupt {@code what}.
     */
    static byte[] readBytes(DataInput in, int n, String what) throws IOException {
        if (n < 0) {
            throw new IOException("corrupt " + what + ": " + n + " bytes");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    /**
     * A dead letter, format 1: source (string), source index, partition (int32), offset (int64),
     * reason, detail (strings), raw (int32 length and bytes), truncated (a byte).
     */
    static void writeDeadLetter(JoinDeadLetter d, DataOutput out) throws IOException {
        KeyJoinState.writeString(d.source(), out);
        out.writeInt(d.sourceIndex());
        out.writeInt(d.partition());
        out.writeLong(d.offset());
        KeyJoinState.writeString(d.reason(), out);
        KeyJoinState.writeString(d.detail(), out);
        writeBytes(d.raw(), out);
        out.writeBoolean(d.truncated());
    }

    static JoinDeadLetter readDeadLetter(DataInput in) throws IOException {
        return new JoinDeadLetter(
                KeyJoinState.readString(in),
                in.readInt(),
                in.readInt(),
                in.readLong(),
                KeyJoinState.readString(in),
                KeyJoinState.readString(in),
                readBytes(in),
                in.readBoolean());
    }

    /** Serializer of {@link JoinInput}, format 1 ({@link #writeInput}). */
    public static final class InputSerializer extends BlockSerializer<JoinInput> {
        private static final long serialVersionUID = 1L;
        public static final InputSerializer INSTANCE = new InputSerializer();
        static final int FORMAT = 1;

        @Override
        public JoinInput createInstance() {
            return new JoinInput(-1, "", 0, 0, 0, Long.MIN_VALUE, null, 0, new byte[0], false);
        }

        @Override
        public JoinInput copy(JoinInput from) {
            return from;
        }

        @Override
        public void serialize(JoinInput r, DataOutputView out) throws IOException {
            writeInput(r, out);
        }

        @Override
        public JoinInput deserialize(DataInputView in) throws IOException {
            return readInput(in);
        }

        @Override
        public TypeSerializerSnapshot<JoinInput> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Snapshot of {@link InputSerializer}. */
        public static final class Snapshot extends BlockSerializerSnapshot<JoinInput> {
            public Snapshot() {
                super("join input", FORMAT, () -> INSTANCE);
            }
        }
    }

    /** Serializer of {@link JoinDeadLetter}, format 1 ({@link #writeDeadLetter}). */
    public static final class DeadLetterSerializer extends BlockSerializer<JoinDeadLetter> {
        private static final long serialVersionUID = 1L;
        public static final DeadLetterSerializer INSTANCE = new DeadLetterSerializer();
        static final int FORMAT = 1;

        @Override
        public JoinDeadLetter createInstance() {
            return new JoinDeadLetter("", 0, 0, 0, "", "", new byte[0], false);
        }

        @Override
        public JoinDeadLetter copy(JoinDeadLetter from) {
            return from;
        }

        @Override
        public void serialize(JoinDeadLetter d, DataOutputView out) throws IOException {
            writeDeadLetter(d, out);
        }

        @Override
        public JoinDeadLetter deserialize(DataInputView in) throws IOException {
            return readDeadLetter(in);
        }

        @Override
        public TypeSerializerSnapshot<JoinDeadLetter> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Snapshot of {@link DeadLetterSerializer}. */
        public static final class Snapshot extends BlockSerializerSnapshot<JoinDeadLetter> {
            public Snapshot() {
                super("join dead letter", FORMAT, () -> INSTANCE);
            }
        }
    }

    /**
     * Serializer of {@link JoinRead}, format 1: a byte, 0 for a record to join ({@link
     * #writeInput}) and 1 for a dead letter ({@link #writeDeadLetter}), then the record.
     */
    public static final class ReadSerializer extends BlockSerializer<JoinRead> {
        private static final long serialVersionUID = 1L;
        public static final ReadSerializer INSTANCE = new ReadSerializer();
        static final int FORMAT = 1;

        @Override
        public JoinRead createInstance() {
            return InputSerializer.INSTANCE.createInstance();
        }

        @Override
        public JoinRead copy(JoinRead from) {
            return from;
        }

        @Override
        public void serialize(JoinRead r, DataOutputView out) throws IOException {
            if (r instanceof JoinInput i) {
                out.writeByte(0);
                writeInput(i, out);
            } else {
                out.writeByte(1);
                writeDeadLetter((JoinDeadLetter) r, out);
            }
        }

        @Override
        public JoinRead deserialize(DataInputView in) throws IOException {
            int tag = in.readByte();
            return switch (tag) {
                case 0 -> readInput(in);
                case 1 -> readDeadLetter(in);
                default -> throw new IOException("corrupt join record: kind " + tag);
            };
        }

        @Override
        public TypeSerializerSnapshot<JoinRead> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Snapshot of {@link ReadSerializer}. */
        public static final class Snapshot extends BlockSerializerSnapshot<JoinRead> {
            public Snapshot() {
                super("join read", FORMAT, () -> INSTANCE);
            }
        }
    }

    /**
     * Serializer of {@link JoinedLine}, format 2: emission time (int64), key (string), copy of,
     * partition (int32), offset (int64), the line (int32 length and bytes), labels only (a byte).
     * Format 1, which it reads (a row restored in the order lane's state), had no last byte: every
     * row had its line.
     */
    public static final class LineSerializer extends BlockSerializer<JoinedLine> {
        private static final long serialVersionUID = 1L;
        static final int FORMAT = 2;
        public static final LineSerializer INSTANCE = new LineSerializer(FORMAT);

        /** The format it reads: {@link #FORMAT}, or an older one restored. */
        private final int reads;

        private LineSerializer(int reads) {
            this.reads = reads;
        }

        /** The serializer that reads format {@code format}. */
        static LineSerializer reading(int format) {
            return format == FORMAT ? INSTANCE : new LineSerializer(format);
        }

        @Override
        public JoinedLine createInstance() {
            return new JoinedLine(0, "", -1, 0, 0, new byte[0]);
        }

        @Override
        public JoinedLine copy(JoinedLine from) {
            return from;
        }

        @Override
        public void serialize(JoinedLine r, DataOutputView out) throws IOException {
            out.writeLong(r.emitTimeMs());
            KeyJoinState.writeString(r.key(), out);
            out.writeInt(r.copyOf());
            out.writeInt(r.partition());
            out.writeLong(r.offset());
            writeBytes(r.line(), out);
            out.writeBoolean(r.labelsOnly());
        }

        @Override
        public JoinedLine deserialize(DataInputView in) throws IOException {
            return new JoinedLine(
                    in.readLong(),
                    KeyJoinState.readString(in),
                    in.readInt(),
                    in.readInt(),
                    in.readLong(),
                    readBytes(in),
                    reads >= 2 && in.readBoolean());
        }

        @Override
        public TypeSerializerSnapshot<JoinedLine> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Snapshot of {@link LineSerializer}: reads formats 1 and 2. */
        public static final class Snapshot extends FormatSnapshot<JoinedLine> {
            public Snapshot() {
                super("joined line", FORMAT, 1, LineSerializer::reading);
            }
        }
    }
}
