package dev.piper.pipeline.join;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;

/**
 * The bytes of one key's {@link KeyJoin}, as the stream keeps it in keyed state (a savepoint holds
 * them for as long as a window is open, days for conversions, so the format is versioned by the
 * serializer around it and frozen by its test).
 *
 * <p>Format 1, big-endian: the key's watermark (int64); the impressions that arrived (int32 count,
 * each an {@linkplain #writeImpression impression}); the actions that arrived (int32 count, each an
 * {@linkplain #writeAction action}); the placed impressions (int32 count, each an impression, then
 * whether its first row went out (a byte), then the int32 count of action streams and per stream:
 * the first joined action's time (int64, -1 for none), the actions joined (int32), the sum of their
 * values (float64), their ids (int32 count, -1 for none kept, then each a {@linkplain #writeString
 * string}), when its positive copy is due (int64, {@link Long#MIN_VALUE} for none) and whether it
 * went out (a byte)).
 */
public final class KeyJoinState {

    /**
     * Writes and reads an impression's payload, which is null once no row can be made of the
     * impression any more ({@code KeyJoin}'s release): each writes null as a value of its own.
     */
    public interface PayloadIO<T> {
        void write(T payload, DataOutput out) throws IOException;

        T read(DataInput in) throws IOException;
    }

    private KeyJoinState() {}

    /** Writes {@code join}'s state. */
    public static <T> void write(KeyJoin<T> join, DataOutput out, PayloadIO<T> payloads)
            throws IOException {
        out.writeLong(join.watermark);
        out.writeInt(join.arrivedImpressions.size());
        for (Impression<T> m : join.arrivedImpressions) {
            writeImpression(m, out, payloads);
        }
        out.writeInt(join.arrivedActions.size());
        for (Action a : join.arrivedActions) {
            writeAction(a, out);
        }
        out.writeInt(join.placed.size());
        for (KeyJoin.Placed<T> p : join.placed) {
            writeImpression(p.impression, out, payloads);
            out.writeBoolean(p.emitted);
            out.writeInt(p.streams.length);
            for (KeyJoin.Joined j : p.streams) {
                out.writeLong(j.firstMs);
                out.writeInt(j.count);
                out.writeDouble(j.value);
                if (j.ids == null) {
                    out.writeInt(-1);
                } else {
                    out.writeInt(j.ids.size());
                    for (String id : j.ids.stream().sorted().toList()) {
                        writeString(id, out);
                    }
                }
                out.writeLong(j.copyAtMs);
                out.writeBoolean(j.copied);
            }
        }
    }

    /**
     * Reads a key's state written by {@link #write} under {@code settings}.
     *
     * @throws IOException where the bytes are not such a state, or hold another number of action
     *     streams than {@code settings}
     */
    public static <T> KeyJoin<T> read(JoinSettings settings, DataInput in, PayloadIO<T> payloads)
            throws IOException {
        KeyJoin<T> join = new KeyJoin<>(settings);
        join.watermark = in.readLong();
        int n = count(in, "arrived impressions");
        for (int i = 0; i < n; i++) {
            join.arrivedImpressions.add(readImpression(in, payloads));
        }
        n = count(in, "arrived actions");
        for (int i = 0; i < n; i++) {
            Action a = readAction(in);
            if (a.stream() >= settings.streams().size()) {
                throw new IOException(
                        "a waiting action of stream "
                                + a.stream()
                                + ", but the join has "
                                + settings.streams().size()
                                + " streams");
            }
            join.arrivedActions.add(a);
        }
        n = count(in, "placed impressions");
        for (int i = 0; i < n; i++) {
            Impression<T> m = readImpression(in, payloads);
            boolean emitted = in.readBoolean();
            int streams = in.readInt();
            if (streams != settings.streams().size()) {
                throw new IOException(
                        "a placed impression joined to "
                                + streams
                                + " action streams, but the join has "
                                + settings.streams().size()
                                + ": the spec's labels.streams changed under its state");
            }
            KeyJoin.Placed<T> p = new KeyJoin.Placed<>(m, streams);
            p.emitted = emitted;
            for (KeyJoin.Joined j : p.streams) {
                j.firstMs = in.readLong();
                j.count = in.readInt();
                j.value = in.readDouble();
                int ids = in.readInt();
                if (ids >= 0) {
                    j.ids = new HashSet<>();
                    for (int k = 0; k < ids; k++) {
                        j.ids.add(readString(in));
                    }
                }
                j.copyAtMs = in.readLong();
                j.copied = in.readBoolean();
            }
            join.placed.add(p);
        }
        return join;
    }

    /**
     * An impression: its key ({@linkplain #writeString string}), time (int64), position (source and
     * partition int32, offset int64), watermark (int64), then its payload.
     */
    static <T> void writeImpression(Impression<T> m, DataOutput out, PayloadIO<T> payloads)
            throws IOException {
        writeString(m.key(), out);
        out.writeLong(m.timeMs());
        writePosition(m.position(), out);
        out.writeLong(m.watermark());
        payloads.write(m.payload(), out);
    }

    static <T> Impression<T> readImpression(DataInput in, PayloadIO<T> payloads)
            throws IOException {
        String key = readString(in);
        long time = in.readLong();
        Position at = readPosition(in);
        long watermark = in.readLong();
        return new Impression<>(key, time, at, watermark, payloads.read(in));
    }

    /**
     * An action: its stream (int32), key (string), time (int64), id (string, or -1 for none), value
     * (float64), position and watermark.
     */
    public static void writeAction(Action a, DataOutput out) throws IOException {
        out.writeInt(a.stream());
        writeString(a.key(), out);
        out.writeLong(a.timeMs());
        writeString(a.id(), out);
        out.writeDouble(a.value());
        writePosition(a.position(), out);
        out.writeLong(a.watermark());
    }

    public static Action readAction(DataInput in) throws IOException {
        int stream = in.readInt();
        if (stream < 0) {
            throw new IOException("an action of stream " + stream);
        }
        String key = readString(in);
        long time = in.readLong();
        String id = readString(in);
        double value = in.readDouble();
        Position at = readPosition(in);
        return new Action(stream, key, time, id, value, at, in.readLong());
    }

    /** A position: source and partition (int32), offset (int64). */
    public static void writePosition(Position p, DataOutput out) throws IOException {
        out.writeInt(p.source());
        out.writeInt(p.partition());
        out.writeLong(p.offset());
    }

    public static Position readPosition(DataInput in) throws IOException {
        return new Position(in.readInt(), in.readInt(), in.readLong());
    }

    /** A string as its UTF-8 length (int32; -1 for null) and bytes. */
    public static void writeString(String s, DataOutput out) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    public static String readString(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < -1) {
            throw new IOException("a string of " + n + " bytes");
        }
        if (n == -1) {
            return null;
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static int count(DataInput in, String what) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException(n + " " + what);
        }
        return n;
    }
}
