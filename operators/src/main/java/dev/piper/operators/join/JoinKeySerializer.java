package dev.piper.operators.join;

import dev.piper.pipeline.join.ActionStream;
import dev.piper.pipeline.join.EmitPolicy;
import dev.piper.pipeline.join.JoinSettings;
import dev.piper.pipeline.join.KeyJoinState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of a join key's state, the stream's hot state for as long as a window is open. The
 * state is kept as one byte array per key, {@link JoinKeyCodec}'s encoding of its {@link JoinKey},
 * not as the objects themselves: at 50,000 impressions a second a 10 s window and its retention
 * hold a million of them, which as a dozen objects each cost the stream more in garbage collection
 * (each young collection copying the new ones, G1 refining every reference from the old generation
 * to them) and in checkpoints (every key serialized again, and each one touched while a snapshot
 * runs copied first) than the join itself ({@code docs/PERFORMANCE.md}, "The label join"). An array
 * is never changed once kept (the type is immutable, so the heap backend's snapshots share it), and
 * a snapshot writes it as it is.
 *
 * <p>Format 3 (since 2026-12-08): the encoding's length (a varint), then the encoding ({@link
 * JoinKeyCodec}'s format 2, compact). Format 2 (until 2026-12-08): int32 length, then the codec's
 * format 1. Format 1 (until 2026-12-07, when the state was kept as the objects): the codec's format
 * 1 without the length and with every line present. A savepoint of format 1 or 2 is read into
 * format 3 as it is restored.
 *
 * <p>Its snapshot holds the join's settings, which the state is read under: a restore under other
 * settings (a changed {@code labels} section) is incompatible, since the windows and streams that
 * placed the waiting impressions are no longer the ones that would judge them.
 */
public final class JoinKeySerializer extends TypeSerializer<byte[]> {

    private static final long serialVersionUID = 1L;

    /** The byte format this class writes. */
    static final int FORMAT = 3;

    /** The first format: the codec's format 1 without its length. */
    static final int FORMAT_OBJECTS = 1;

    /** The second format: int32 length, then the codec's format 1. */
    static final int FORMAT_FIXED = 2;

    private static final byte[] EMPTY = {};

    private final JoinSettings settings;

    /** The format this instance reads: {@link #FORMAT}, or 1 or 2 to restore a savepoint of one. */
    private final int readFormat;

    public JoinKeySerializer(JoinSettings settings) {
        this(settings, FORMAT);
    }

    private JoinKeySerializer(JoinSettings settings, int readFormat) {
        this.settings = Objects.requireNonNull(settings);
        this.readFormat = readFormat;
    }

    @Override
    public boolean isImmutableType() {
        return true; // a key's array is replaced, never changed
    }

    @Override
    public TypeSerializer<byte[]> duplicate() {
        return this; // stateless: every call uses its own streams
    }

    /** An empty array: a key is kept only while it holds something, so never one with nothing. */
    @Override
    public byte[] createInstance() {
        return EMPTY;
    }

    @Override
    public byte[] copy(byte[] from) {
        return from;
    }

    @Override
    public byte[] copy(byte[] from, byte[] reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(byte[] key, DataOutputView out) throws IOException {
        KeyJoinState.writeVarLong(key.length, out);
        out.write(key);
    }

    @Override
    public byte[] deserialize(DataInputView in) throws IOException {
        return switch (readFormat) {
            case FORMAT_OBJECTS -> migrated(JoinKeyCodec.readFormat1(settings, in));
            case FORMAT_FIXED -> {
                byte[] old = JoinRecordSerializers.readBytes(in, in.readInt(), "join key state");
                DataInputDeserializer bytes = new DataInputDeserializer(old);
                JoinKey key = JoinKeyCodec.readFormat1(settings, bytes);
                if (bytes.available() != 0) {
                    throw new IOException(
                            "corrupt join key state of format 2: "
                                    + bytes.available()
                                    + " bytes left after the key's "
                                    + (old.length - bytes.available()));
                }
                yield migrated(key);
            }
            default -> {
                int n = KeyJoinState.readCount(in, "bytes of a join key's state");
                yield JoinRecordSerializers.readBytes(in, n, "join key state");
            }
        };
    }

    /**
     * A key read from an older format in this one's encoding: its records carry their key, which
     * this encoding leaves to the state's (every record of a key's state is of that key).
     */
    private static byte[] migrated(JoinKey key) throws IOException {
        DataOutputSerializer encoded = new DataOutputSerializer(256);
        JoinKeyCodec.write(key, JoinKeyCodec.keyOf(key), encoded);
        return encoded.getCopyOfBuffer();
    }

    @Override
    public byte[] deserialize(byte[] reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JoinKeySerializer s
                && s.settings.equals(settings)
                && s.readFormat == readFormat;
    }

    @Override
    public int hashCode() {
        return settings.hashCode() * 31 + readFormat;
    }

    @Override
    public TypeSerializerSnapshot<byte[]> snapshotConfiguration() {
        return new Snapshot(settings);
    }

    /**
     * Snapshot of {@link JoinKeySerializer}: its version is the byte format, its payload the
     * settings (the streams' names, windows and policies, the max out-of-orderness, the retention
     * and the negative sample rate).
     */
    public static final class Snapshot implements TypeSerializerSnapshot<byte[]> {

        private JoinSettings settings;
        private int readFormat = FORMAT;

        /** For Flink, which reads the settings into it. */
        public Snapshot() {}

        Snapshot(JoinSettings settings) {
            this.settings = settings;
        }

        @Override
        public int getCurrentVersion() {
            return FORMAT;
        }

        @Override
        public void writeSnapshot(DataOutputView out) throws IOException {
            out.writeInt(settings.streams().size());
            for (ActionStream s : settings.streams()) {
                out.writeUTF(s.name());
                out.writeLong(s.windowMs());
                out.writeUTF(s.policy().name());
            }
            out.writeLong(settings.maxOutOfOrdernessMs());
            out.writeLong(settings.retentionMs());
            out.writeDouble(settings.negativeSampleRate());
        }

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
                throws IOException {
            readFormat = readVersion;
            int n = in.readInt();
            if (n < 1) {
                throw new IOException("corrupt join key serializer snapshot: " + n + " streams");
            }
            List<ActionStream> streams = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                streams.add(
                        new ActionStream(
                                in.readUTF(), in.readLong(), EmitPolicy.valueOf(in.readUTF())));
            }
            settings = new JoinSettings(streams, in.readLong(), in.readLong(), in.readDouble());
        }

        @Override
        public TypeSerializer<byte[]> restoreSerializer() {
            if (readFormat < FORMAT_OBJECTS || readFormat > FORMAT) {
                throw new IllegalStateException(
                        "label join state was written in format "
                                + readFormat
                                + "; this build reads formats "
                                + FORMAT_OBJECTS
                                + " to "
                                + FORMAT);
            }
            return new JoinKeySerializer(settings, readFormat);
        }

        /**
         * As is for the same settings in this format; after migration for the same settings in
         * format 1 or 2 (each key read into this format); else incompatible.
         */
        @Override
        public TypeSerializerSchemaCompatibility<byte[]> resolveSchemaCompatibility(
                TypeSerializerSnapshot<byte[]> old) {
            if (!(old instanceof Snapshot s) || !s.settings.equals(settings)) {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            return switch (s.readFormat) {
                case FORMAT -> TypeSerializerSchemaCompatibility.compatibleAsIs();
                case FORMAT_OBJECTS, FORMAT_FIXED ->
                        TypeSerializerSchemaCompatibility.compatibleAfterMigration();
                default -> TypeSerializerSchemaCompatibility.incompatible();
            };
        }
    }
}
