package dev.piper.operators.block;

/**
 * A line-aligned piece of the input as read: {@code lines} complete lines in {@code data[0,
 * length)}, each ending in {@code \n} except possibly the input's last line.
 *
 * <p>A line longer than the decoder's limit travels alone: then {@code oversizeLength} is its full
 * length in bytes and {@code data} holds only its first bytes.
 *
 * @param seq the chunk's position in the input, from 0, without gaps
 * @param firstLine 1-based number of the first line
 * @param firstOffset byte offset of the first line
 * @param lines number of lines in the chunk
 * @param data the bytes; only {@code [0, length)} is meaningful
 * @param length number of meaningful bytes
 * @param oversizeLength the oversize line's full length, or -1 for an ordinary chunk
 */
public record RawChunk(
        long seq,
        long firstLine,
        long firstOffset,
        int lines,
        byte[] data,
        int length,
        long oversizeLength) {

    public boolean isOversizeLine() {
        return oversizeLength >= 0;
    }
}
