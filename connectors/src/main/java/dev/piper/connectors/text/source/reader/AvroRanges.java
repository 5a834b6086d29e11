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

    /** Room for the blocks that start in a range and end past it, and for the frames' headers. */
    private static final int OVERHANG = 1 << 16;

    private final String path;
    private final DataFileReader<Object> file;

    /**
     * The most bytes a chunk held so far: the next chunk's array starts at least that large, so
     * that it is not grown block by block (doubling from nothing, the copies took a sixth of a cold
     * 1M-record {@code preprocess}'s CPU samples).
     */
    private int largest;

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
        long room = Math.max(largest, end - start + OVERHANG);
        byte[] data = new byte[(int) Math.min(room, Integer.MAX_VALUE - 64)];
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
        largest = Math.max(largest, length);
        return new RawChunk(seq, first, data, length, -1);
    }

    @Override
    public void close() throws IOException {
        file.close();
    }

    /**
     * A Flink file as Apache Avro's seekable input, through a buffer of its own: Avro's search for
     * a sync marker ({@link DataFileReader#sync}) reads a byte at a time, a system call each from
     * an unbuffered file (13 times slower than the stream over 1M records' 179 MB, measured).
     */
    private static final class Input implements SeekableInput {
        private final FSDataInputStream in;
        private final long length;
        private final byte[] buffer = new byte[1 << 16];

        /** The file's bytes {@code [bufferStart, bufferStart + buffered)} are in the buffer. */
        private long bufferStart;

        private int buffered;

        /** Where the next read starts, and where the file's stream is. */
        private long position;

        private long streamAt;

        Input(FSDataInputStream in, long length) {
            this.in = in;
            this.length = length;
        }

        @Override
        public void seek(long p) {
            position = p;
        }

        @Override
        public long tell() {
            return position;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (position < bufferStart || position >= bufferStart + buffered) {
                if (len >= buffer.length) { // a large read goes straight to the file
                    int n = readAt(position, b, off, len);
                    position += Math.max(n, 0);
                    return n;
                }
                bufferStart = position;
                buffered = Math.max(readAt(position, buffer, 0, buffer.length), 0);
                if (buffered == 0) {
                    return -1;
                }
            }
            int at = (int) (position - bufferStart);
            int n = Math.min(len, buffered - at);
            System.arraycopy(buffer, at, b, off, n);
            position += n;
            return n;
        }

        private int readAt(long p, byte[] b, int off, int len) throws IOException {
            if (streamAt != p) {
                in.seek(p);
                streamAt = p;
            }
            int n = in.read(b, off, len);
            if (n > 0) {
                streamAt += n;
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
