package dev.piper.cli.serve;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A request body of binary records (Avro datums, Protobuf messages), each a 4-byte big-endian
 * length then that many bytes: the framing Protobuf's and Kafka's own tools call length-delimited,
 * with a fixed-width length.
 */
final class LengthPrefixed {

    private LengthPrefixed() {}

    /**
     * The records of {@code body}, in order.
     *
     * @throws IllegalArgumentException naming the record and byte where the framing breaks
     */
    static List<byte[]> split(byte[] body) {
        List<byte[]> records = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(body);
        while (b.hasRemaining()) {
            int at = b.position();
            if (b.remaining() < Integer.BYTES) {
                throw new IllegalArgumentException(
                        "record "
                                + records.size()
                                + " at byte "
                                + at
                                + ": "
                                + b.remaining()
                                + " bytes left, not a 4-byte length");
            }
            int length = b.getInt();
            if (length < 0 || length > b.remaining()) {
                throw new IllegalArgumentException(
                        "record "
                                + records.size()
                                + " at byte "
                                + at
                                + ": its length "
                                + Integer.toUnsignedString(length)
                                + " runs past the body's "
                                + body.length
                                + " bytes (each record is a 4-byte big-endian length, then"
                                + " the record)");
            }
            byte[] record = new byte[length];
            b.get(record);
            records.add(record);
        }
        return records;
    }
}
