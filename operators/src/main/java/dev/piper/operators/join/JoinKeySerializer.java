package dev.piper.operators.join;

import dev.piper.core.join.JoinInput;
import dev.piper.core.join.StreamJoinOutput;
import dev.piper.pipeline.join.ActionStream;
import dev.piper.pipeline.join.EmitPolicy;
import dev.piper.pipeline.join.JoinSettings;
import dev.piper.pipeline.join.KeyJoin;
import dev.piper.pipeline.join.KeyJoinState;
import dev.piper.pipeline.join.Position;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of a join key's state ({@link JoinKey}), the stream's hot state for as long as a
 * window is open. Format 1: the {@link KeyJoinState} bytes with each impression's payload, its
 * line, as int32 length and bytes; then the waiting actions' records (int32 count, then each as
 * {@code JoinRecordSerializers.writeInput} writes it, in order of position).
 *
 * <p>Its snapshot holds the join's settings, which the state is read under: a restore under other
 * settings (a changed {@code labels} section) is incompatible, since the windows and streams that
 * placed the waiting impressions are no longer the ones that would judge them.
 */
public final class JoinKeySerializer extends TypeSerializer<JoinKey> {

    private static final long serialVersionUID = 1L;

    /** The byte format this class writes and reads. */
    static final int FORMAT = 1;

    static final KeyJoinState.PayloadIO<byte[]> LINES =
            new KeyJoinState.PayloadIO<>() {
                @Override
                public void write(byte[] payload, java.io.DataOutput out) throws IOException {
                    JoinRecordSerializers.writeBytes(payload, out);
                }

                @Override
                public byte[] read(java.io.DataInput in) throws IOException {
                    return JoinRecordSerializers.readBytes(in);
                }
            };

    private final JoinSettings settings;

    public JoinKeySerializer(JoinSettings settings) {
        this.settings = Objects.requireNonNull(settings);
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<JoinKey> duplicate() {
        return this; // stateless: every call uses its own streams
    }

    @Override
    public JoinKey createInstance() {
        return JoinKey.empty(settings);
    }

    @Override
    public JoinKey copy(JoinKey from) {
        try {
            DataOutputSerializer out = new DataOutputSerializer(256);
            serialize(from, out);
            return deserialize(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
        } catch (IOException e) {
            throw new IllegalStateException("a join key's state does not copy: " + e, e);
        }
    }

    @Override
    public JoinKey copy(JoinKey from, JoinKey reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(JoinKey key, DataOutputView out) throws IOException {
        KeyJoinState.write(key.join, out, LINES);
        List<Position> at = new ArrayList<>(key.pending.keySet());
        at.sort(null);
        out.writeInt(at.size());
        for (Position p : at) {
            JoinRecordSerializers.writeInput(key.pending.get(p), out);
        }
    }

    @Override
    public JoinKey deserialize(DataInputView in) throws IOException {
        KeyJoin<byte[]> join = KeyJoinState.read(settings, in, LINES);
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt join key state: " + n + " waiting actions");
        }
        Map<Position, JoinInput> pending = new HashMap<>();
        for (int i = 0; i < n; i++) {
            JoinInput r = JoinRecordSerializers.readInput(in);
            pending.put(StreamJoinOutput.action(r).position(), r);
        }
        return new JoinKey(join, pending);
    }

    @Override
    public JoinKey deserialize(JoinKey reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JoinKeySerializer s && s.settings.equals(settings);
    }

    @Override
    public int hashCode() {
        return settings.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<JoinKey> snapshotConfiguration() {
        return new Snapshot(settings);
    }

    /**
     * Snapshot of {@link JoinKeySerializer}: its version is the byte format, its payload the
     * settings (the streams' names, windows and policies, the max out-of-orderness, the retention
     * and the negative sample rate).
     */
    public static final class Snapshot implements TypeSerializerSnapshot<JoinKey> {

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
        public TypeSerializer<JoinKey> restoreSerializer() {
            if (readFormat != FORMAT) {
                throw new IllegalStateException(
                        "label join state was written in format "
                                + readFormat
                                + "; this build reads only format "
                                + FORMAT);
            }
            return new JoinKeySerializer(settings);
        }

        @Override
        public TypeSerializerSchemaCompatibility<JoinKey> resolveSchemaCompatibility(
                TypeSerializerSnapshot<JoinKey> old) {
            if (!(old instanceof Snapshot s) || s.readFormat != FORMAT) {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            return s.settings.equals(settings)
                    ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                    : TypeSerializerSchemaCompatibility.incompatible();
        }
    }
}
