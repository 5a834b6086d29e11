package dev.piper.core.chunk;

import dev.piper.core.block.RecordFrames;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
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
public final class AvroBlockChunker extends FrameChunker {

    private final DataFileStream<Object> file;

    /**
     * @param in the file's stream from its first byte
     * @param offset datums already returned by an earlier chunker of this file, to skip
     * @param nextSeq sequence number of the next chunk
     */
    public AvroBlockChunker(InputStream in, long offset, long nextSeq, int blockBytes)
            throws IOException {
        super(offset, nextSeq, blockBytes);
        this.file = new DataFileStream<>(in, new GenericDatumReader<>());
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
    }

    /** The writer schema in the container file header of {@code in} (which it closes). */
    public static String writerSchema(InputStream in) throws IOException {
        try (DataFileStream<Object> file = new DataFileStream<>(in, new GenericDatumReader<>())) {
            return file.getSchema().toString();
        }
    }

    @Override
    Unit read() throws IOException {
        if (!file.hasNext()) {
            return null;
        }
        long count = file.getBlockCount();
        if (count > Integer.MAX_VALUE) {
            throw new IOException("an Avro block of " + count + " datums");
        }
        ByteBuffer block = file.nextBlock();
        byte[] payload = new byte[block.remaining()];
        block.get(payload);
        return new Unit(payload, (int) count);
    }

    @Override
    void close() throws IOException {
        file.close();
    }
}
