package dev.piper.connectors.text.source.reader;

import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.SeekableInput;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * Reads an Avro container file a byte range at a time, so that parallel readers share it as they
 * share a text file: a range's chunk holds every block whose sync marker (the 16 bytes before the
 * block) starts in the range, each block decompressed by Apache Avro's {@link DataFileReader}
 * (every codec it knows) into one {@link RecordFrames} frame of its datums. Apache Avro finds the
 * first marker at or after the range's start ({@link DataFileReader#sync}) and tells when a block
 * lies past the range's end ({@link DataFileReader#pastSync}), as Hadoop's Avro input splits are
 * read; so every block belongs to exactly one range, and a range in which no block starts is an
 * empty chunk. A chunk's {@link RawChunk#firstOffset()} is the byte offset of its first block.
 *
 * <p>Not thread-safe; one per reader and file.
 */
final class AvroRanges implements Closeable {

    private final String path;
    private final DataFileReader<Object> file;

    AvroRanges(String path) throws IOException {
        this.path = path;
        Path p = new Path(path);
        FileSystem fs = p.getFileSystem();
        this.file =
                new DataFileReader<>(
                        new Input(fs.open(p), fs.getFileStatus(p).getLen()),
                        new GenericDatumReader<>());
    }

    /** The file this reads. */
    String path() {
        return path;
    }

    /** The chunk of range {@code [start, end)}, numbered {@code seq}. */
    RawChunk read(long seq, long start, long end) throws IOException {
        file.sync(start);
        long first = file.previousSync();
        byte[] data = new byte[0];
        int length = 0;
        while (!file.pastSync(end) && file.hasNext()) {
            long count = file.getBlockCount();
            if (count > Integer.MAX_VALUE) {
                throw new IOException(path + ": an Avro block of " + count + " datums");
            }
            ByteBuffer block = file.nextBlock();
            int size = block.remaining();
            int need = length + RecordFrames.HEADER + size;
            if (need > data.length) {
                data = Arrays.copyOf(data, Math.max(need, 2 * data.length));
            }
            byte[] payload;
            int from;
            if (block.hasArray()) {
                payload = block.array();
                from = block.arrayOffset() + block.position();
            } else {
                payload = new byte[size];
                block.get(payload);
                from = 0;
            }
            length = RecordFrames.write(data, length, payload, from, from + size, (int) count);
        }
        return new RawChunk(seq, first, data, length, -1);
    }

    @Override
    public void close() throws IOException {
        file.close();
    }

    /** A Flink file as Apache Avro's seekable input. */
    private static final class Input implements SeekableInput {
        private final FSDataInputStream in;
        private final long length;

        Input(FSDataInputStream in, long length) {
            this.in = in;
            this.length = length;
        }

        @Override
        public void seek(long p) throws IOException {
            in.seek(p);
        }

        @Override
        public long tell() throws IOException {
            return in.getPos();
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return in.read(b, off, len);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
