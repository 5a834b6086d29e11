package dev.piper.operators.join;

import dev.piper.core.join.JoinInput;
import dev.piper.core.join.StreamJoinOutput;
import dev.piper.pipeline.join.JoinSettings;
import dev.piper.pipeline.join.KeyJoin;
import dev.piper.pipeline.join.KeyJoinState;
import dev.piper.pipeline.join.Position;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * A join key's state ({@link JoinKey}) as the one byte array the stream keeps of it in keyed state,
 * and back. The encoding: the {@link KeyJoinState} bytes with each impression's payload, its line,
 * as int32 length and bytes (-1 once the impression's rows are all out and the line released); then
 * the waiting actions' records (int32 count, then each as {@code JoinRecordSerializers.writeInput}
 * writes it, in order of position).
 *
 * <p>One instance per operator: it reuses its buffers, so it is not shared between threads.
 */
final class JoinKeyCodec {

    /** An impression's line; null, once released, as length -1. */
    static final KeyJoinState.PayloadIO<byte[]> LINES =
            new KeyJoinState.PayloadIO<>() {
                @Override
                public void write(byte[] payload, DataOutput out) throws IOException {
                    if (payload == null) {
                        out.writeInt(-1);
                    } else {
                        JoinRecordSerializers.writeBytes(payload, out);
                    }
                }

                @Override
                public byte[] read(DataInput in) throws IOException {
                    int n = in.readInt();
                    return n == -1
                            ? null
                            : JoinRecordSerializers.readBytes(in, n, "join key state, a line");
                }
            };

    private final JoinSettings settings;
    private final DataOutputSerializer out = new DataOutputSerializer(512);
    private final DataInputDeserializer in = new DataInputDeserializer();

    JoinKeyCodec(JoinSettings settings) {
        this.settings = settings;
    }

    /** {@code key}'s bytes. */
    byte[] encode(JoinKey key) throws IOException {
        out.clear();
        write(key, out);
        return out.getCopyOfBuffer();
    }

    /**
     * The key whose bytes are {@code bytes}, as {@link #encode} wrote them; the array is not kept.
     *
     * @throws IOException where they are not a key's state, or not all of it
     */
    JoinKey decode(byte[] bytes) throws IOException {
        in.setBuffer(bytes);
        JoinKey key = read(settings, in);
        if (in.available() != 0) {
            throw new IOException(
                    "corrupt join key state: "
                            + in.available()
                            + " bytes left after the key's "
                            + (bytes.length - in.available()));
        }
        return key;
    }

    /** Writes {@code key} as {@link #encode} encodes it. */
    static void write(JoinKey key, DataOutput out) throws IOException {
        KeyJoinState.write(key.join, out, LINES);
        List<Position> at = new ArrayList<>(key.pending.keySet());
        at.sort(null);
        out.writeInt(at.size());
        for (Position p : at) {
            JoinRecordSerializers.writeInput(key.pending.get(p), out);
        }
    }

    /** Reads a key written by {@link #write} under {@code settings}. */
    static JoinKey read(JoinSettings settings, DataInput in) throws IOException {
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
}
