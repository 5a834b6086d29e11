package dev.piper.connectors.text.source.reader;

import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;

/**
 * Cuts an Avro container file into numbered chunks of whole blocks: each block, decompressed by
 * Apache Avro's {@link DataFileStream} (every codec it knows), becomes one {@link RecordFrames}
 * frame holding the block's datums, and a chunk holds blocks up to {@code blockBytes} (a larger
 * block makes a chunk of its own). The datums are decoded downstream with the file's writer schema
 * ({@code AvroEventDecoder}), which the job reads from the header first ({@link #writerSchema}).
 *
 * <p>Positions count datums, not bytes: {@link #offset()} is the number of datums returned, and a
 * chunker started at a position skips that many (whole blocks, as they were returned). A chunk's
 * {@link RawChunk#firstOffset()} is the number of its first datum in the file, from 0.
 */
public final class AvroBlockChunker implements Chunker {

    private final DataFileStream<Object> file;
    private final int blockBytes;
    private long offset;
    private long nextSeq;

    /** A block read but not yet returned (it did not fit the last chunk). */
    private ByteBuffer pending;

    private long pendingCount;

    /**
     * @param in the file's stream from its first byte
     * @param offset datums already returned by an earlier chunker of this file, to skip
     * @param nextSeq sequence number of the next chunk
     */
    public AvroBlockChunker(InputStream in, long offset, long nextSeq, int blockBytes)
            throws IOException {
        this.file = new DataFileStream<>(in, new GenericDatumReader<>());
        this.blockBytes = blockBytes;
        this.nextSeq = nextSeq;
        long skipped = 0;
        while (skipped < offset) {
            if (!file.hasNext()) {
                throw new IOException(
                        "the Avro file holds "
                                + skipped
                                + " datums, fewer than the "
                                + offset
                                + " read before: it must not change while it is read");
            }
            skipped += file.getBlockCount();
            file.nextBlock();
        }
        if (skipped != offset) {
            throw new IOException(
                    "resuming at datum " + offset + ", which is not a block's first: " + skipped);
        }
        this.offset = offset;
    }

    /** The writer schema in the container file header of {@code in} (which it closes). */
    public static String writerSchema(InputStream in) throws IOException {
        try (DataFileStream<Object> file = new DataFileStream<>(in, new GenericDatumReader<>())) {
            return file.getSchema().toString();
        }
    }

    @Override
    public RawChunk next() throws IOException {
        byte[] data = new byte[0];
        int length = 0;
        long datums = 0;
        while (true) {
            if (pending == null) {
                if (!file.hasNext()) {
                    break;
                }
                pendingCount = file.getBlockCount();
                pending = file.nextBlock();
            }
            int size = pending.remaining();
            if (length > 0 && length + RecordFrames.HEADER + size > blockBytes) {
                break;
            }
            if (pendingCount > Integer.MAX_VALUE) {
                throw new IOException("an Avro block of " + pendingCount + " datums");
            }
            byte[] payload = new byte[size];
            pending.get(payload);
            int need = length + RecordFrames.HEADER + size;
            if (need > data.length) {
                data = Arrays.copyOf(data, Math.max(need, Math.min(blockBytes, 2 * need)));
            }
            length = RecordFrames.write(data, length, payload, 0, size, (int) pendingCount);
            datums += pendingCount;
            pending = null;
            if (length >= blockBytes) {
                break;
            }
        }
        if (length == 0) {
            file.close();
            return null;
        }
        RawChunk chunk = new RawChunk(nextSeq++, offset, data, length, -1);
        offset += datums;
        return chunk;
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public long nextSeq() {
        return nextSeq;
    }
}
