package dev.piper.core.chunk;

import dev.piper.core.block.RawChunk;
import dev.piper.core.decode.Swar;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Cuts a byte stream of text lines into numbered, line-aligned {@link RawChunk}s of at most {@code
 * blockBytes} bytes (a single longer line makes a chunk of its own). Lines end in {@code \n} (a
 * preceding {@code \r} belongs to the line break); the last line may lack one. This is how a stream
 * that cannot be split into byte ranges ({@code .gz}) is read; a plain file is read range by range
 * ({@code LineRange} in {@code connectors}).
 *
 * <p>A line longer than {@code maxLineBytes} (not counting its line break) is never buffered whole:
 * it becomes a chunk of its own holding only its first {@code maxRawBytes} bytes and its true
 * length ({@link RawChunk#lastLineLength()}), and the rest of it is skipped. Memory is therefore
 * bounded by the buffer, whatever the input.
 *
 * <p>Chunk boundaries depend on the input's bytes and do not affect the job's output; only the
 * order of chunks ({@link RawChunk#seq()}) does.
 */
public final class LineChunker implements Chunker {

    private static final int MIN_BUFFER = 8 << 20;

    private final InputStream in;
    private final int blockBytes;
    private final int maxLineBytes;
    private final int maxRawBytes;

    private final byte[] buf;
    private int pos;
    private int lim;
    private boolean eof;

    private long offset;
    private long nextSeq;

    /**
     * @param in the stream, positioned at {@code offset}
     * @param offset byte offset of the stream's position in the input, at the start of a line
     * @param nextSeq sequence number of the next chunk
     * @param blockBytes the most bytes a chunk of several lines holds
     */
    public LineChunker(
            InputStream in,
            long offset,
            long nextSeq,
            int blockBytes,
            int maxLineBytes,
            int maxRawBytes) {
        if (blockBytes < 1) {
            throw new IllegalArgumentException("blockBytes must be positive: " + blockBytes);
        }
        this.in = in;
        this.offset = offset;
        this.nextSeq = nextSeq;
        this.blockBytes = blockBytes;
        this.maxLineBytes = maxLineBytes;
        this.maxRawBytes = Math.min(maxRawBytes, maxLineBytes);
        this.buf = new byte[Math.max(MIN_BUFFER, blockBytes + maxLineBytes + 2)];
    }

    /** Byte offset of the first line not yet returned. */
    @Override
    public long offset() {
        return offset;
    }

    /** Sequence number of the next chunk. */
    @Override
    public long nextSeq() {
        return nextSeq;
    }

    /** The next chunk, or null at the end of the input. */
    @Override
    public RawChunk next() throws IOException {
        if (pos == lim && !fill()) {
            return null;
        }
        int scan = pos;
        while (true) {
            int nl = indexOfNewline(scan, lim);
            if (nl >= 0) {
                if (contentLength(scan, nl) > maxLineBytes) {
                    if (scan > pos) {
                        break;
                    }
                    return oversize();
                }
                if (nl + 1 - pos > blockBytes && scan > pos) {
                    break;
                }
                scan = nl + 1;
                continue;
            }
            if (lim - scan > maxLineBytes + 1) {
                if (scan > pos) {
                    break;
                }
                return oversize();
            }
            if (eof) {
                if (scan < lim) {
                    if (contentLength(scan, lim) > maxLineBytes) {
                        if (scan > pos) {
                            break;
                        }
                        return oversize();
                    }
                    if (lim - pos <= blockBytes || scan == pos) {
                        scan = lim;
                    }
                }
                break;
            }
            if (pos == 0 && lim == buf.length) {
                break; // the buffer is full of complete lines
            }
            scan -= compact();
            fill();
        }
        int length = scan - pos;
        RawChunk chunk =
                new RawChunk(nextSeq, offset, Arrays.copyOfRange(buf, pos, scan), length, -1);
        nextSeq++;
        offset += length;
        pos = scan;
        return chunk;
    }

    /** Emits the over-long line starting at {@link #pos} as a truncated chunk and skips it. */
    private RawChunk oversize() throws IOException {
        int keep = Math.min(maxRawBytes, lim - pos);
        byte[] head = Arrays.copyOfRange(buf, pos, pos + keep);
        long length = 0;
        boolean lastWasCr = false;
        boolean terminated = false;
        while (true) {
            int nl = indexOfNewline(pos, lim);
            int end = nl >= 0 ? nl : lim;
            if (end > pos) {
                length += end - pos;
                lastWasCr = buf[end - 1] == '\r';
            }
            if (nl >= 0) {
                pos = nl + 1;
                terminated = true;
                break;
            }
            pos = lim;
            if (!fill()) {
                break;
            }
        }
        long content = length - (lastWasCr ? 1 : 0);
        long consumed = length + (terminated ? 1 : 0);
        RawChunk chunk = new RawChunk(nextSeq, offset, head, head.length, content);
        nextSeq++;
        offset += consumed;
        return chunk;
    }

    private int contentLength(int s, int e) {
        return e > s && buf[e - 1] == '\r' ? e - s - 1 : e - s;
    }

    private int indexOfNewline(int from, int to) {
        return Swar.indexOf(buf, (byte) '\n', from, to);
    }

    /** Moves the unconsumed bytes to the buffer's start; returns how far they moved. */
    private int compact() {
        int moved = pos;
        if (moved > 0) {
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
        }
        return moved;
    }

    /** Reads more bytes after {@link #lim}; false when nothing more could be read. */
    private boolean fill() throws IOException {
        if (eof) {
            return false;
        }
        if (pos == lim) {
            pos = 0;
            lim = 0;
        } else if (lim == buf.length) {
            compact();
        }
        int n = in.read(buf, lim, buf.length - lim);
        if (n < 0) {
            eof = true;
            return false;
        }
        lim += n;
        return true;
    }
}
