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
 * <p>Format 2 ({@link #write}, {@link #read}), written since 2026-12-08: every integer a LEB128
 * varint, the signed ones zigzag-encoded ({@link #writeSigned}); a time as the difference from the
 * time written before it (the first from the key's watermark, or from 0 where that is {@link
 * Long#MIN_VALUE}), so that a millisecond time takes two or three bytes instead of eight; and the
 * key, which every record of a key's state shares with the state's own key, written only where it
 * is another. The key's watermark (signed); the impressions that arrived (count, each an
 * impression); the actions that arrived (count, each an action); the placed impressions (count,
 * each an impression, a byte of flags (1: its first row went out), the count of action streams, and
 * per stream what it joined). An impression: a byte of flags (1: a key of its own follows), its
 * key, its time, its position (source, partition, offset, each signed), its partition's watermark
 * (from its time), its payload. An action: a byte of flags (1: a key of its own, 2: an id, 4: a
 * value other than 0), its stream, then key, time, id, value (float64), position and watermark as
 * flagged. What a stream joined: a byte of flags (1: a first action's time, 2: a count other than
 * 0, 4: a sum of values other than 0, 8: the ids kept, 16: a positive copy due, 32: that copy out),
 * then as flagged the first time and the copy's time (each from the impression's time), the count,
 * the sum (float64), the ids (count, each a string, in order). A string: its UTF-8 length and
 * bytes. A decided impression's state with its click took 110 to 130 bytes in format 1 and takes 40
 * to 60 in format 2 ({@code docs/PERFORMANCE.md}, "The label join's state, compact").
 *
 * <p>Format 1 ({@link #readFormat1}, read to restore a savepoint written until 2026-12-08),
 * big-endian, fixed widths: the key's watermark (int64); the impressions that arrived (int32 count,
 * each its key as a string, time (int64), position (source and partition int32, offset int64),
 * watermark (int64) and payload); the actions that arrived (int32 count, each its stream (int32),
 * key, time, id (a string, null for none), value (float64), position and watermark); the placed
 * impressions (int32 count, each an impression, then whether its first row went out (a byte), then
 * the int32 count of action streams and per stream: the first joined action's time (int64, -1 for
 * none), the actions joined (int32), the sum of their values (float64), their ids (int32 count, -1
 * for none kept, then each a {@linkplain #writeString string}), when its positive copy is due
 * (int64, {@link Long#MIN_VALUE} for none) and whether it went out (a byte)).
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

    private static final int OWN_KEY = 1;
    private static final int ACTION_ID = 2;
    private static final int ACTION_VALUE = 4;
    private static final int EMITTED = 1;
    private static final int FIRST = 1;
    private static final int COUNT = 2;
    private static final int VALUE = 4;
    private static final int IDS = 8;
    private static final int COPY_DUE = 16;
    private static final int COPIED = 32;

    private KeyJoinState() {}

    /** Writes {@code join}'s state, the state of join key {@code key}, in format 2. */
    public static <T> void write(KeyJoin<T> join, String key, DataOutput out, PayloadIO<T> payloads)
            throws IOException {
        new Writer<>(key, out, payloads, join.watermark).join(join);
    }

    /**
     * Reads a state of join key {@code key} written by {@link #write} under {@code settings}.
     *
     * @throws IOException where the bytes are not such a state, or hold another number of action
     *     streams than {@code settings}
     */
    public static <T> KeyJoin<T> read(
            JoinSettings settings, String key, DataInput in, PayloadIO<T> payloads)
            throws IOException {
        return new Reader<>(settings, key, in, payloads).join();
    }

    /**
     * The key of a record {@code join} holds, or null where it holds none: the key a state read in
     * format 1, which wrote each record's key, is of.
     */
    public static String keyOf(KeyJoin<?> join) {
        if (!join.arrivedImpressions.isEmpty()) {
            return join.arrivedImpressions.get(0).key();
        }
        if (!join.arrivedActions.isEmpty()) {
            return join.arrivedActions.get(0).key();
        }
        return join.placed.isEmpty() ? null : join.placed.get(0).impression.key();
    }

    /** Format 2's writer of one key's state: the state's key, and the time last written. */
    private static final class Writer<T> {
        private final String key;
        private final DataOutput out;
        private final PayloadIO<T> payloads;
        private long base;

        Writer(String key, DataOutput out, PayloadIO<T> payloads, long watermark) {
            this.key = key;
            this.out = out;
            this.payloads = payloads;
            this.base = watermark == Long.MIN_VALUE ? 0 : watermark;
        }

        void join(KeyJoin<T> join) throws IOException {
            writeSigned(join.watermark, out);
            writeVarLong(join.arrivedImpressions.size(), out);
            for (Impression<T> m : join.arrivedImpressions) {
                impression(m);
            }
            writeVarLong(join.arrivedActions.size(), out);
            for (Action a : join.arrivedActions) {
                action(a);
            }
            writeVarLong(join.placed.size(), out);
            for (KeyJoin.Placed<T> p : join.placed) {
                impression(p.impression);
                out.writeByte(p.emitted ? EMITTED : 0);
                writeVarLong(p.streams.length, out);
                for (KeyJoin.Joined j : p.streams) {
                    joined(j, p.impression.timeMs());
                }
            }
        }

        private void impression(Impression<T> m) throws IOException {
            boolean own = !m.key().equals(key);
            out.writeByte(own ? OWN_KEY : 0);
            if (own) {
                writeUtf8(m.key(), out);
            }
            time(m.timeMs());
            position(m.position(), out);
            writeSigned(m.watermark() - m.timeMs(), out);
            payloads.write(m.payload(), out);
        }

        private void action(Action a) throws IOException {
            boolean own = !a.key().equals(key);
            boolean valued = Double.doubleToRawLongBits(a.value()) != 0;
            out.writeByte(
                    (own ? OWN_KEY : 0)
                            | (a.id() != null ? ACTION_ID : 0)
                            | (valued ? ACTION_VALUE : 0));
            writeVarLong(a.stream(), out);
            if (own) {
                writeUtf8(a.key(), out);
            }
            time(a.timeMs());
            if (a.id() != null) {
                writeUtf8(a.id(), out);
            }
            if (valued) {
                out.writeDouble(a.value());
            }
            position(a.position(), out);
            writeSigned(a.watermark() - a.timeMs(), out);
        }

        private void joined(KeyJoin.Joined j, long impressionMs) throws IOException {
            boolean valued = Double.doubleToRawLongBits(j.value) != 0;
            out.writeByte(
                    (j.firstMs != -1 ? FIRST : 0)
                            | (j.count != 0 ? COUNT : 0)
                            | (valued ? VALUE : 0)
                            | (j.ids != null ? IDS : 0)
                            | (j.copyAtMs != Long.MIN_VALUE ? COPY_DUE : 0)
                            | (j.copied ? COPIED : 0));
            if (j.firstMs != -1) {
                writeSigned(j.firstMs - impressionMs, out);
            }
            if (j.copyAtMs != Long.MIN_VALUE) {
                writeSigned(j.copyAtMs - impressionMs, out);
            }
            if (j.count != 0) {
                writeSigned(j.count, out);
            }
            if (valued) {
                out.writeDouble(j.value);
            }
            if (j.ids != null) {
                writeVarLong(j.ids.size(), out);
                for (String id : j.ids.stream().sorted().toList()) {
                    writeUtf8(id, out);
                }
            }
        }

        private void time(long t) throws IOException {
            writeSigned(t - base, out);
            base = t;
        }
    }

    /** Format 2's reader of one key's state, {@link Writer}'s mirror. */
    private static final class Reader<T> {
        private final JoinSettings settings;
        private final String key;
        private final DataInput in;
        private final PayloadIO<T> payloads;
        private long base;

        Reader(JoinSettings settings, String key, DataInput in, PayloadIO<T> payloads) {
            this.settings = settings;
            this.key = key;
            this.in = in;
            this.payloads = payloads;
        }

        KeyJoin<T> join() throws IOException {
            KeyJoin<T> join = new KeyJoin<>(settings);
            join.watermark = readSigned(in);
            base = join.watermark == Long.MIN_VALUE ? 0 : join.watermark;
            int n = readCount(in, "arrived impressions");
            for (int i = 0; i < n; i++) {
                join.arrivedImpressions.add(impression());
            }
            n = readCount(in, "arrived actions");
            for (int i = 0; i < n; i++) {
                join.arrivedActions.add(checked(action(), settings));
            }
            n = readCount(in, "placed impressions");
            for (int i = 0; i < n; i++) {
                Impression<T> m = impression();
                int flags = in.readUnsignedByte();
                KeyJoin.Placed<T> p =
                        new KeyJoin.Placed<>(m, streams(readCount(in, "action streams"), settings));
                p.emitted = (flags & EMITTED) != 0;
                for (KeyJoin.Joined j : p.streams) {
                    joined(j, m.timeMs());
                }
                join.placed.add(p);
            }
            return join;
        }

        private Impression<T> impression() throws IOException {
            int flags = in.readUnsignedByte();
            String k = (flags & OWN_KEY) != 0 ? readUtf8(in) : key;
            long time = time();
            Position at = position(in);
            long watermark = time + readSigned(in);
            return new Impression<>(k, time, at, watermark, payloads.read(in));
        }

        private Action action() throws IOException {
            int flags = in.readUnsignedByte();
            int stream = readCount(in, "an action's stream");
            String k = (flags & OWN_KEY) != 0 ? readUtf8(in) : key;
            long time = time();
            String id = (flags & ACTION_ID) != 0 ? readUtf8(in) : null;
            double value = (flags & ACTION_VALUE) != 0 ? in.readDouble() : 0;
            Position at = position(in);
            return new Action(stream, k, time, id, value, at, time + readSigned(in));
        }

        private void joined(KeyJoin.Joined j, long impressionMs) throws IOException {
            int flags = in.readUnsignedByte();
            if ((flags & FIRST) != 0) {
                j.firstMs = impressionMs + readSigned(in);
            }
            if ((flags & COPY_DUE) != 0) {
                j.copyAtMs = impressionMs + readSigned(in);
            }
            if ((flags & COUNT) != 0) {
                j.count = int32(readSigned(in), "a count of joined actions");
            }
            if ((flags & VALUE) != 0) {
                j.value = in.readDouble();
            }
            if ((flags & IDS) != 0) {
                int ids = readCount(in, "action ids");
                j.ids = new HashSet<>();
                for (int k = 0; k < ids; k++) {
                    j.ids.add(readUtf8(in));
                }
            }
            j.copied = (flags & COPIED) != 0;
        }

        private long time() throws IOException {
            base += readSigned(in);
            return base;
        }
    }

    /**
     * Reads a key's state written in format 1 (until 2026-12-08) under {@code settings}.
     *
     * @throws IOException where the bytes are not such a state, or hold another number of action
     *     streams than {@code settings}
     */
    public static <T> KeyJoin<T> readFormat1(
            JoinSettings settings, DataInput in, PayloadIO<T> payloads) throws IOException {
        KeyJoin<T> join = new KeyJoin<>(settings);
        join.watermark = in.readLong();
        int n = count1(in, "arrived impressions");
        for (int i = 0; i < n; i++) {
            join.arrivedImpressions.add(readImpression(in, payloads));
        }
        n = count1(in, "arrived actions");
        for (int i = 0; i < n; i++) {
            join.arrivedActions.add(checked(readAction(in), settings));
        }
        n = count1(in, "placed impressions");
        for (int i = 0; i < n; i++) {
            Impression<T> m = readImpression(in, payloads);
            boolean emitted = in.readBoolean();
            KeyJoin.Placed<T> p = new KeyJoin.Placed<>(m, streams(in.readInt(), settings));
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

    private static Action checked(Action a, JoinSettings settings) throws IOException {
        if (a.stream() >= settings.streams().size()) {
            throw new IOException(
                    "a waiting action of stream "
                            + a.stream()
                            + ", but the join has "
                            + settings.streams().size()
                            + " streams");
        }
        return a;
    }

    private static int streams(int streams, JoinSettings settings) throws IOException {
        if (streams != settings.streams().size()) {
            throw new IOException(
                    "a placed impression joined to "
                            + streams
                            + " action streams, but the join has "
                            + settings.streams().size()
                            + ": the spec's labels.streams changed under its state");
        }
        return streams;
    }

    /**
     * A format-1 impression: its key ({@linkplain #writeString string}), time (int64), position
     * (source and partition int32, offset int64), watermark (int64), then its payload.
     */
    private static <T> Impression<T> readImpression(DataInput in, PayloadIO<T> payloads)
            throws IOException {
        String key = readString(in);
        long time = in.readLong();
        Position at = readPosition(in);
        long watermark = in.readLong();
        return new Impression<>(key, time, at, watermark, payloads.read(in));
    }

    /**
     * A format-1 action: its stream (int32), key (string), time (int64), id (string, or -1 for
     * none), value (float64), position (source and partition int32, offset int64) and watermark
     * (int64).
     */
    private static Action readAction(DataInput in) throws IOException {
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

    private static Position readPosition(DataInput in) throws IOException {
        return new Position(in.readInt(), in.readInt(), in.readLong());
    }

    /** A format-2 position: source, partition and offset, each signed. */
    private static void position(Position p, DataOutput out) throws IOException {
        writeSigned(p.source(), out);
        writeSigned(p.partition(), out);
        writeSigned(p.offset(), out);
    }

    private static Position position(DataInput in) throws IOException {
        return new Position(
                int32(readSigned(in), "a position's source"),
                int32(readSigned(in), "a position's partition"),
                readSigned(in));
    }

    private static int int32(long v, String what) throws IOException {
        if (v != (int) v) {
            throw new IOException(what + " of " + v + ", past an int32");
        }
        return (int) v;
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

    private static int count1(DataInput in, String what) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException(n + " " + what);
        }
        return n;
    }

    /**
     * A count or length written as a varint ({@link #writeVarLong}).
     *
     * @throws IOException where it is past an int32: the message is the number, then {@code what}
     */
    public static int readCount(DataInput in, String what) throws IOException {
        long n = readVarLong(in);
        if (n < 0 || n > Integer.MAX_VALUE) {
            throw new IOException(Long.toUnsignedString(n) + " " + what);
        }
        return (int) n;
    }

    /** A string as its UTF-8 length (varint) and bytes; never null. */
    static void writeUtf8(String s, DataOutput out) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeVarLong(b.length, out);
        out.write(b);
    }

    static String readUtf8(DataInput in) throws IOException {
        byte[] b = new byte[readCount(in, "bytes of a string")];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** {@code v} as an unsigned LEB128 varint: 7 bits a byte, low first, 1 to 10 bytes. */
    public static void writeVarLong(long v, DataOutput out) throws IOException {
        while ((v & ~0x7FL) != 0) {
            out.writeByte((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    /**
     * A varint {@link #writeVarLong} wrote.
     *
     * @throws IOException where it runs past 10 bytes
     */
    public static long readVarLong(DataInput in) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IOException("a varint of more than 10 bytes");
    }

    /**
     * {@code v} zigzag-encoded (0, -1, 1, -2 as 0, 1, 2, 3) as a varint: small either side of 0.
     */
    public static void writeSigned(long v, DataOutput out) throws IOException {
        writeVarLong((v << 1) ^ (v >> 63), out);
    }

    public static long readSigned(DataInput in) throws IOException {
        long z = readVarLong(in);
        return (z >>> 1) ^ -(z & 1);
    }
}
