package dev.piper.core.block;

/**
 * How binary records travel in a {@link RawChunk}, whose bytes cannot be cut at line breaks (Avro
 * datums hold any byte): frame after frame, each an 8-byte header, the payload's length and the
 * number of records it holds (both big-endian 32-bit), then the payload. A Kafka record is one
 * frame of one record; a block of an Avro container file is one frame of its datums, which follow
 * each other without lengths (the writer schema delimits them). A chunk's "lines" are its records.
 */
public final class RecordFrames {

    /** Bytes before each frame's payload. */
    public static final int HEADER = 8;

    private RecordFrames() {}

    /**
     * Writes the frame of {@code payload[from, to)} holding {@code records} records at {@code
     * out[at]}; returns the position after it.
     */
    public static int write(byte[] out, int at, byte[] payload, int from, int to, int records) {
        putInt(out, at, to - from);
        putInt(out, at + 4, records);
        System.arraycopy(payload, from, out, at + HEADER, to - from);
        return at + HEADER + to - from;
    }

    /** The payload length of the frame at {@code at}. */
    public static int length(byte[] b, int at) {
        return getInt(b, at);
    }

    /** The number of records in the frame at {@code at}. */
    public static int records(byte[] b, int at) {
        return getInt(b, at + 4);
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    private static int getInt(byte[] b, int at) {
        return (b[at] & 0xff) << 24
                | (b[at + 1] & 0xff) << 16
                | (b[at + 2] & 0xff) << 8
                | (b[at + 3] & 0xff);
    }
}
