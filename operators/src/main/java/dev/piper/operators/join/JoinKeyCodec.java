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
 * and back. The encoding (format 2): the {@link KeyJoinState} bytes of format 2, which leave out
 * the state's key, with each impression's payload, its line, as a varint of its length + 1 and its
 * bytes (0, once the impression's rows are all out and the line released; 1 for an impression whose
 * line stays in its topic); then the waiting actions' records (a varint count, then each as {@code
 * JoinRecordSerializers.writeInput} writes it, in order of position). Format 1 (until 2026-12-08)
 * is read to restore a savepoint: the {@link KeyJoinState} bytes of format 1 with each line as
 * int32 length and bytes (-1 once released), then an int32 count of the waiting actions.
 *
 * <p>One instance per operator: it reuses its buffers, so it is not shared between threads.
 */
final class JoinKeyCodec {

    /** An impression's line; null, once released, as 0, else its length + 1 (a varint). */
    static final KeyJoinState.PayloadIO<byte[]> LINES =
            new KeyJoinState.PayloadIO<>() {
                @Override
                public void write(byte[] payload, DataOutput out) throws IOException {
                    if (payload == null) {
                        out.writeByte(0);
                    } else {
                        KeyJoinState.writeVarLong(payload.length + 1L, out);
                        out.write(payload);
                    }
                }

                @Override
                public byte[] read(DataInput in) throws IOException {
                    long n = KeyJoinState.readVarLong(in);
                    if (n == 0) {
                        return null;
                    }
                    if (n < 0 || n - 1 > Integer.MAX_VALUE) {
                        throw new IOException("corrupt join key state: a line of " + n + " - 1");
                    }
                    return JoinRecordSerializers.readBytes(
                            in, (int) (n - 1), "join key state, a line");
                }
            };

    /** An impression's line in format 1: int32 length and bytes, -1 once released. */
    private static final KeyJoinState.PayloadIO<byte[]> LINES_FORMAT_1 =
            new KeyJoinState.PayloadIO<>() {
                @Override
                public void write(byte[] payload, DataOutput out) {
                    throw new UnsupportedOperationException("format 1 is only read");
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

    /** The bytes of {@code key}, the state of join key {@code stateKey}. */
    byte[] encode(JoinKey key, String stateKey) throws IOException {
        out.clear();
        write(key, stateKey, out);
        return out.getCopyOfBuffer();
    }

    /**
     * The state of join key {@code stateKey} whose bytes are {@code bytes}, as {@link #encode}
     * wrote them; the array is not kept.
     *
     * @throws IOException where they are not a key's state, or not all of it
     */
    JoinKey decode(byte[] bytes, String stateKey) throws IOException {
        in.setBuffer(bytes);
        JoinKey key = read(settings, stateKey, in);
        if (in.available() != 0) {
            throw new IOException(
                    "corrupt join key state of key "
                            + stateKey
                            + ": "
                            + in.available()
                            + " bytes left after the key's "
                            + (bytes.length - in.available()));
        }
        return key;
    }

    /** Writes {@code key} as {@link #encode} encodes it. */
    static void write(JoinKey key, String stateKey, DataOutput out) throws IOException {
        KeyJoinState.write(key.join, stateKey, out, LINES);
        List<Position> at = new ArrayList<>(key.pending.keySet());
        at.sort(null);
        KeyJoinState.writeVarLong(at.size(), out);
        for (Position p : at) {
            JoinRecordSerializers.writeInput(key.pending.get(p), out);
        }
    }

    /** Reads the state of {@code stateKey} written by {@link #write} under {@code settings}. */
    static JoinKey read(JoinSettings settings, String stateKey, DataInput in) throws IOException {
        KeyJoin<byte[]> join = KeyJoinState.read(settings, stateKey, in, LINES);
        int n = KeyJoinState.readCount(in, "waiting actions in a join key's state");
        return new JoinKey(join, pending(n, in));
    }

    /** Reads a key's state of format 1 (the savepoints written until 2026-12-08). */
    static JoinKey readFormat1(JoinSettings settings, DataInput in) throws IOException {
        KeyJoin<byte[]> join = KeyJoinState.readFormat1(settings, in, LINES_FORMAT_1);
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt join key state: " + n + " waiting actions");
        }
        return new JoinKey(join, pending(n, in));
    }

    /** The join key of a record {@code key} holds, or null where it holds none. */
    static String keyOf(JoinKey key) {
        String k = KeyJoinState.keyOf(key.join);
        if (k == null && !key.pending.isEmpty()) {
            k = key.pending.values().iterator().next().key();
        }
        return k;
    }

    private static Map<Position, JoinInput> pending(int n, DataInput in) throws IOException {
        Map<Position, JoinInput> pending = new HashMap<>();
        for (int i = 0; i < n; i++) {
            JoinInput r = JoinRecordSerializers.readInput(in);
            pending.put(StreamJoinOutput.action(r).position(), r);
        }
        return pending;
    }
}
