package dev.piper.connectors.text.source.reader;

import dev.piper.core.block.RawChunk;
import dev.piper.core.chunk.LineChunker;
import dev.piper.core.decode.Swar;
import java.io.EOFException;
import java.io.IOException;
import org.apache.flink.core.fs.FSDataInputStream;

/**
 * Reads the lines of one byte range of an uncompressed file as one {@link RawChunk}, so that
 * parallel readers can split a file without knowing where its lines are.
 *
 * <p>A line belongs to the range that holds its first byte. A range therefore skips the end of a
 * line begun in an earlier range, and reads past its own end to finish its last line (at most
 * {@code maxLineBytes + 2} bytes further; a longer line is cut short, its full length measured and
 * its rest skipped, as {@link LineChunker} does). Every line of the file lands in exactly one
 * range, whatever the range size, and the concatenation of the ranges' lines in range order is the
 * file. A range in which no line starts gives an empty chunk, which keeps the chunk sequence
 * gap-free.
 *
 * <p>Reads go through Flink's file system abstraction in pieces of {@value #PIECE} bytes: larger
 * reads make the JDK allocate (and the kernel zero) a native buffer of the read's size each time.
 */
final class LineRange {

    static final int PIECE = 64 * 1024;

    private final int maxLineBytes;
    private final byte[] scratch = new byte[PIECE];

    LineRange(int maxLineBytes) {
        this.maxLineBytes = maxLineBytes;
    }

    /**
     * Reads the lines starting in {@code [start, end)} of a file of {@code fileLength} bytes.
     *
     * @param seq the chunk's sequence number (the range's index)
     */
    RawChunk read(FSDataInputStream in, long fileLength, long seq, long start, long end)
            throws IOException {
        long first = start == 0 ? 0 : firstLineStart(in, start, end);
        if (first >= end) {
            return new RawChunk(seq, end, new byte[0], 0, -1);
        }
        in.seek(first);
        int body = (int) (end - first);
        int slack = end < fileLength ? (int) Math.min(maxLineBytes + 2L, fileLength - end) : 0;
        byte[] data = new byte[body + slack];
        readFully(in, data, 0, body);
        if (slack == 0 || data[body - 1] == '\n') {
            return new RawChunk(seq, first, data, body, -1);
        }
        // Finish the line that crosses the range's end.
        int filled = body;
        while (filled < data.length) {
            int n = in.read(data, filled, Math.min(4096, data.length - filled));
            if (n < 0) {
                return new RawChunk(seq, first, data, filled, -1); // the file ends mid-line
            }
            int nl = Swar.indexOf(data, (byte) '\n', filled, filled + n);
            if (nl >= 0) {
                return new RawChunk(seq, first, data, nl + 1, -1);
            }
            filled += n;
        }
        if (end + slack >= fileLength) {
            return new RawChunk(seq, first, data, filled, -1); // the file ends mid-line
        }
        // Longer than any line the decoder accepts: keep its start, measure the rest.
        int lastStart = Swar.lastLineStart(data, body);
        long length = (filled - lastStart) + skipLine(in, data[filled - 1] == '\r');
        return new RawChunk(seq, first, data, filled, length);
    }

    /**
     * The offset of the first line starting in {@code [start, end)}, or a value {@code >= end} if
     * none does.
     */
    private long firstLineStart(FSDataInputStream in, long start, long end) throws IOException {
        in.seek(start - 1);
        if (in.read() == '\n') {
            return start;
        }
        long pos = start;
        while (pos < end) {
            int n = in.read(scratch, 0, (int) Math.min(PIECE, end - pos));
            if (n < 0) {
                return end;
            }
            int nl = Swar.indexOf(scratch, (byte) '\n', 0, n);
            if (nl >= 0) {
                return pos + nl + 1;
            }
            pos += n;
        }
        return end;
    }

    /**
     * Reads to the end of the current line; returns the bytes it read before the line break (or the
     * end of the file), less one if the line ends in {@code \r}, as the decoder counts a line's
     * length. {@code lastWasCr} says whether the byte before the stream's position was {@code \r}.
     */
    private long skipLine(FSDataInputStream in, boolean lastWasCr) throws IOException {
        long skipped = 0;
        boolean cr = lastWasCr;
        while (true) {
            int n = in.read(scratch, 0, PIECE);
            if (n < 0) {
                return cr ? skipped - 1 : skipped; // the file ends mid-line
            }
            int nl = Swar.indexOf(scratch, (byte) '\n', 0, n);
            int upTo = nl >= 0 ? nl : n;
            if (upTo > 0) {
                cr = scratch[upTo - 1] == '\r';
            }
            skipped += upTo;
            if (nl >= 0) {
                return cr ? skipped - 1 : skipped;
            }
        }
    }

    private static void readFully(FSDataInputStream in, byte[] b, int off, int len)
            throws IOException {
        int done = 0;
        while (done < len) {
            int n = in.read(b, off + done, Math.min(PIECE, len - done));
            if (n < 0) {
                throw new EOFException(
                        "the file ended " + (len - done) + " bytes early: was it truncated?");
            }
            done += n;
        }
    }
}
