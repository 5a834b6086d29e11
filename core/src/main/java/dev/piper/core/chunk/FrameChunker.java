package dev.piper.core.chunk;

import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import java.io.IOException;
import java.util.Arrays;

/**
 * Cuts a stream of binary units (an Avro container file's blocks, Protobuf messages) into numbered
 * chunks of {@link RecordFrames}, a frame a unit, up to {@code blockBytes} a chunk (a larger unit
 * makes a chunk of its own). Positions count records: {@link #offset()} is the number returned, and
 * a chunk's {@link RawChunk#firstOffset()} the number of its first record.
 */
abstract class FrameChunker implements Chunker {

    /** One unit: its payload and the records it holds. */
    record Unit(byte[] payload, int records) {}

    private final int blockBytes;
    private long offset;
    private long nextSeq;

    /** A unit read but not yet returned (it did not fit the last chunk). */
    private Unit pending;

    FrameChunker(long offset, long nextSeq, int blockBytes) {
        this.offset = offset;
        this.nextSeq = nextSeq;
        this.blockBytes = blockBytes;
    }

    /** The next unit, or null at the end of the input. */
    abstract Unit read() throws IOException;

    /** Releases the input, at its end. */
    abstract void close() throws IOException;

    @Override
    public final RawChunk next() throws IOException {
        byte[] data = new byte[0];
        int length = 0;
        long records = 0;
        while (true) {
            if (pending == null) {
                pending = read();
                if (pending == null) {
                    break;
                }
            }
            int size = pending.payload().length;
            if (length > 0 && length + RecordFrames.HEADER + size > blockBytes) {
                break;
            }
            int need = length + RecordFrames.HEADER + size;
            if (need > data.length) {
                data = Arrays.copyOf(data, Math.max(need, Math.min(blockBytes, 2 * need)));
            }
            length =
                    RecordFrames.write(data, length, pending.payload(), 0, size, pending.records());
            records += pending.records();
            pending = null;
            if (length >= blockBytes) {
                break;
            }
        }
        if (length == 0) {
            close();
            return null;
        }
        RawChunk chunk = new RawChunk(nextSeq++, offset, data, length, -1);
        offset += records;
        return chunk;
    }

    @Override
    public final long offset() {
        return offset;
    }

    @Override
    public final long nextSeq() {
        return nextSeq;
    }
}
