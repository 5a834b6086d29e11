package dev.piper.core.block;

/**
 * A line-aligned piece of the input as read: whole lines in {@code data[0, length)}, each ending in
 * {@code \n} except possibly the input's last line. A chunk may hold no line at all (a byte range
 * of the input in which no line starts).
 *
 * <p>The last line may be cut short when it is longer than the decoder's limit: then {@code
 * lastLineLength} is its full length in bytes (without its line break) and {@code data} ends inside
 * it, holding only its first bytes. Lines are never cut anywhere else.
 *
 * <p>Blocks travel in lanes: a file is one lane (0), and every Kafka partition is its own lane.
 * Within a lane the sequence numbers ascend in input order.
 *
 * @param lane the input lane: 0 for a file, the partition (and pipeline) for Kafka ({@link Lanes})
 * @param seq the chunk's position in its lane: for a file from 0 without gaps; for Kafka the log
 *     offset of its first record
 * @param firstOffset byte offset of the first line in the input (a file), or 0 (a log, whose lines
 *     are located through {@code origin})
 * @param data the bytes; only {@code [0, length)} is meaningful
 * @param length number of meaningful bytes
 * @param lastLineLength the cut-short last line's full length, or -1 when no line is cut
 * @param origin the log records the lines came from, or {@link Origin#NONE}
 */
public record RawChunk(
        int lane,
        long seq,
        long firstOffset,
        byte[] data,
        int length,
        long lastLineLength,
        Origin origin) {

    /** A chunk of a file (lane 0, no log origin). */
    public RawChunk(long seq, long firstOffset, byte[] data, int length, long lastLineLength) {
        this(0, seq, firstOffset, data, length, lastLineLength, Origin.NONE);
    }

    public boolean lastLineCut() {
        return lastLineLength >= 0;
    }
}
