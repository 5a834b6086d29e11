package dev.piper.core.chunk;

import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Cuts a file of length-delimited Protobuf messages (each a varint length, then the message, as
 * {@code writeDelimitedTo} writes them) into numbered chunks of {@link RecordFrames}, one message
 * each, up to {@code blockBytes} a chunk (a larger message makes a chunk of its own). The messages
 * are decoded downstream ({@code ProtobufEventDecoder}); a last message cut short by the file's end
 * travels as far as it goes, and its decoder finds it truncated.
 *
 * <p>Positions count messages: {@link #offset()} is the number returned, and a chunker started at a
 * position skips that many. A chunk's {@link RawChunk#firstOffset()} is the number of its first
 * message in the file, from 0.
 */
public final class DelimitedChunker extends FrameChunker {

    /** Protobuf's own limit on a message; a longer length is no message's (not this format). */
    public static final int MAX_MESSAGE_BYTES = 64 << 20;

    private final InputStream in;
    private final String name;
    private long position;

    /**
     * @param in the file's stream from its first byte
     * @param name the file, for messages
     * @param offset messages already returned by an earlier chunker of this file, to skip
     * @param nextSeq sequence number of the next chunk
     */
    public DelimitedChunker(InputStream in, String name, long offset, long nextSeq, int blockBytes)
            throws IOException {
        super(offset, nextSeq, blockBytes);
        this.in = in;
        this.name = name;
        for (long skipped = 0; skipped < offset; skipped++) {
            if (message() == null) {
                throw new IOException(
                        name
                                + " holds "
                                + skipped
                                + " messages, fewer than the "
                                + offset
                                + " read before: it must not change while it is read");
            }
        }
    }

    @Override
    Unit read() throws IOException {
        byte[] message = message();
        return message == null ? null : new Unit(message, 1);
    }

    @Override
    void close() throws IOException {
        in.close();
    }

    /** The next message, or null at the end of the file. */
    private byte[] message() throws IOException {
        long start = position;
        long length = 0;
        for (int shift = 0; ; shift += 7) {
            int b = in.read();
            if (b < 0) {
                if (shift == 0) {
                    return null;
                }
                return new byte[0]; // a length cut short: an empty, truncated message
            }
            position++;
            length |= (long) (b & 0x7f) << shift;
            if (b < 0x80) {
                break;
            }
            if (shift >= 63) {
                throw new IOException(
                        name
                                + " at byte "
                                + start
                                + ": a length varint of more than 10 bytes: not length-delimited Protobuf messages?");
            }
        }
        if (length > MAX_MESSAGE_BYTES) {
            throw new IOException(
                    name
                            + " at byte "
                            + start
                            + ": a message of "
                            + length
                            + " bytes, beyond Protobuf's 64 MiB limit: not length-delimited"
                            + " Protobuf messages?");
        }
        byte[] message = new byte[(int) length];
        int n = in.readNBytes(message, 0, message.length);
        position += n;
        return n == message.length ? message : Arrays.copyOf(message, n);
    }
}
