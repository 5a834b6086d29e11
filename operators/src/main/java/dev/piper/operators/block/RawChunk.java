package dev.piper.operators.block;

/**
 * A line-aligned piece of the input as read: whole lines in {@code data[0, length)}, each ending in
 * {@code \n} except possibly the input's last line. A chunk may hold no line at all (a byte range
 * of the input in which no line starts).
 *
 * <p>The last line may be cut short when it is longer than the decoder's limit: then {@code
 * lastLineLength} is its full length in bytes (without its line break) and {@code data} ends inside
 * it, holding only its first bytes. Lines are never cut anywhere else.
 *
 * @param seq the chunk's position in the input, from 0, without gaps
 * @param firstOffset byte offset of the first line in the input
 * @param data the bytes; only {@code [0, length)} is meaningful
 * @param length number of meaningful bytes
 * @param lastLineLength the cut-short last line's full length, or -1 when no line is cut
 */
public record RawChunk(long seq, long firstOffset, byte[] data, int length, long lastLineLength) {

    public boolean lastLineCut() {
        return lastLineLength >= 0;
    }
}
