package dev.piper.core.block;

/**
 * One record of a partitioned log (a Kafka topic) as read: its value holds one input line or
 * several {@code \n}-separated lines. A null value (a tombstone) is read as an empty value.
 *
 * @param lane the record's lane: its partition, with its pipeline when a job reads several topics
 *     ({@link Lanes})
 * @param offset the record's offset in its partition
 * @param timestamp the record's timestamp (ms since the epoch), or -1
 * @param value the record's value
 */
public record LogRecord(int lane, long offset, long timestamp, byte[] value) {

    /**
     * A JSON event's record as one line: its line breaks are whitespace between tokens (JSON
     * strings cannot hold them raw), so they become spaces. The bytes are copied only if there are
     * any.
     */
    public static byte[] oneLine(byte[] v) {
        byte[] out = null;
        for (int i = 0; i < v.length; i++) {
            if (v[i] == '\n' || v[i] == '\r') {
                if (out == null) {
                    out = v.clone();
                }
                out[i] = ' ';
            }
        }
        return out == null ? v : out;
    }
}
