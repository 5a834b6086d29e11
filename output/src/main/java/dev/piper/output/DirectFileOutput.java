package dev.piper.output;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes a large, sequentially written file around the page cache ({@code O_DIRECT}) where the file
 * system allows it, and through it otherwise.
 *
 * <p>{@code rows.bin} is the bulk of the output (160 bytes a row). Buffered writes copy it into
 * page cache pages the kernel must then find, fill and write back; on the 2-core VM of
 * docs/PERFORMANCE.md that was 43% of the sink thread, and when earlier runs had filled the page
 * cache a 2 GB buffered write took up to 8.9 s against 2.2 s direct ({@code dd}). Direct writes
 * need aligned memory, lengths and offsets: bytes are gathered in an aligned direct buffer of
 * {@value #BUFFER_BYTES} bytes and written when it is full; on {@link #close()} the aligned part of
 * the rest is written directly and the last partial block through an ordinary channel.
 *
 * <p>Where {@code O_DIRECT} is refused (tmpfs, some network file systems, other platforms), at open
 * or at the first write, the file is written through the page cache instead; {@link #isDirect()}
 * tells which happened. The bytes in the file are the same either way.
 */
public final class DirectFileOutput extends OutputStream {

    static final int BUFFER_BYTES = 4 << 20;

    private final Path file;
    private final int bufferBytes;
    private final ByteBuffer buffer;
    private final int align;
    private FileChannel channel;
    private boolean direct;
    private long written;
    private boolean closed;

    /**
     * Creates (or truncates) {@code file}.
     *
     * @param tryDirect whether to try {@code O_DIRECT} at all
     */
    public DirectFileOutput(Path file, boolean tryDirect) throws IOException {
        this(file, tryDirect, BUFFER_BYTES);
    }

    /**
     * As above, with a buffer of {@code bufferBytes} (a multiple of 64 KiB: of the file system's
     * block size) instead of {@value #BUFFER_BYTES}: for files written side by side by the dozen.
     */
    DirectFileOutput(Path file, boolean tryDirect, int bufferBytes) throws IOException {
        if (bufferBytes <= 0 || bufferBytes % (64 << 10) != 0) {
            throw new IllegalArgumentException(
                    "the buffer must be a positive multiple of 64 KiB, not " + bufferBytes);
        }
        this.file = file;
        this.bufferBytes = bufferBytes;
        Files.newByteChannel(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)
                .close();
        int blockSize = 4096;
        FileChannel opened = null;
        if (tryDirect) {
            try {
                blockSize = Math.toIntExact(Math.max(512, Files.getFileStore(file).getBlockSize()));
                opened =
                        FileChannel.open(file, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT);
            } catch (IOException | UnsupportedOperationException | ArithmeticException e) {
                opened = null;
            }
        }
        this.direct = opened != null && bufferBytes % blockSize == 0;
        if (opened != null && !direct) {
            opened.close();
        }
        this.align = blockSize;
        this.channel = direct ? opened : FileChannel.open(file, StandardOpenOption.WRITE);
        this.buffer = ByteBuffer.allocateDirect(bufferBytes + blockSize).alignedSlice(blockSize);
        buffer.limit(bufferBytes);
    }

    /** Whether the file is being written around the page cache. */
    boolean isDirect() {
        return direct;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        checkOpen();
        while (len > 0) {
            int n = Math.min(len, buffer.remaining());
            buffer.put(b, off, n);
            off += n;
            len -= n;
            if (!buffer.hasRemaining()) {
                drain(bufferBytes);
            }
        }
    }

    /** Writes the buffer's first {@code n} bytes ({@code n} a multiple of the alignment). */
    private void drain(int n) throws IOException {
        int end = buffer.position();
        buffer.flip();
        buffer.limit(n);
        try {
            writeFully(buffer);
        } catch (IOException e) {
            if (!direct || written > 0) {
                throw e;
            }
            // Refused at the first write (EINVAL): write through the page cache from here on.
            channel.close();
            direct = false;
            channel = FileChannel.open(file, StandardOpenOption.WRITE);
            buffer.position(0);
            writeFully(buffer);
        }
        written += n;
        buffer.limit(end);
        buffer.compact();
        buffer.limit(bufferBytes);
    }

    private void writeFully(ByteBuffer b) throws IOException {
        try {
            while (b.hasRemaining()) {
                channel.write(b);
            }
        } catch (IOException e) {
            throw new IOException(file + ": " + e.getMessage(), e); // "No space left on device"
        }
    }

    /**
     * Closes the file without writing what is buffered: the run failed and the file is thrown away
     * (writing more to a full disk, say, would only fail again).
     */
    public void abort() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        channel.close();
    }

    /** Bytes handed to the file so far, written or buffered. */
    long size() {
        return written + buffer.position();
    }

    /** Does nothing: a partial block can only be written at {@link #close()}. */
    @Override
    public void flush() {}

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int rest = buffer.position();
            int aligned = direct ? rest - rest % align : rest;
            if (aligned > 0) {
                drain(aligned);
            }
            if (buffer.position() > 0) {
                channel.close();
                channel = FileChannel.open(file, StandardOpenOption.WRITE);
                channel.position(written);
                buffer.flip();
                writeFully(buffer);
                written += buffer.limit();
            }
        } finally {
            channel.close();
        }
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException(file + " is closed");
        }
    }
}
