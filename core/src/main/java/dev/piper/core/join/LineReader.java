package dev.piper.core.join;

import dev.piper.core.block.RawChunk;
import dev.piper.core.chunk.LineChunker;
import dev.piper.core.decode.Swar;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A file's lines, in the line-aligned chunks {@link LineChunker} cuts (as the file source reads a
 * stream), each line with its number and byte offset. A line longer than {@code maxLineBytes} is a
 * chunk of its own holding only its first {@code maxRawBytes} bytes ({@link Line#cut()}), never
 * buffered whole. Line breaks are {@code \n} or {@code \r\n}; a final line without one counts.
 */
final class LineReader implements Closeable {

    /** Bytes of the chunks the lines are read in. */
    private static final int CHUNK_BYTES = 1 << 20;

    /** A line: its bytes (the first ones, if cut), its full length without the break, where. */
    record Line(byte[] bytes, int length, long number, long offset) {

        boolean cut() {
            return length > bytes.length;
        }
    }

    /** A chunk as cut, and its lines. */
    record Chunk(RawChunk raw, List<Line> lines) {}

    private final InputStream in;
    private final LineChunker chunker;
    private final ArrayDeque<Line> pending = new ArrayDeque<>();
    private long number;

    LineReader(Path file, int maxLineBytes, int maxRawBytes) throws IOException {
        this.in = Files.newInputStream(file);
        this.chunker = new LineChunker(in, 0, 0, CHUNK_BYTES, maxLineBytes, maxRawBytes);
    }

    /** The next chunk of lines, or null at the end of the file; not with {@link #next()}. */
    Chunk nextChunk() throws IOException {
        RawChunk raw = chunker.next();
        if (raw == null) {
            return null;
        }
        List<Line> lines = new ArrayList<>();
        if (raw.lastLineCut()) { // a chunk of its own
            lines.add(
                    new Line(
                            Arrays.copyOf(raw.data(), raw.length()),
                            (int) Math.min(raw.lastLineLength(), Integer.MAX_VALUE),
                            ++number,
                            raw.firstOffset()));
            return new Chunk(raw, lines);
        }
        byte[] b = raw.data();
        int s = 0;
        while (s < raw.length()) {
            int nl = Swar.indexOf(b, (byte) '\n', s, raw.length());
            int end = nl < 0 ? raw.length() : nl;
            int content = end > s && b[end - 1] == '\r' ? end - 1 : end;
            lines.add(
                    new Line(
                            Arrays.copyOfRange(b, s, content),
                            content - s,
                            ++number,
                            raw.firstOffset() + s));
            s = end + 1;
        }
        return new Chunk(raw, lines);
    }

    /** The next line, or null at the end of the file; not with {@link #nextChunk()}. */
    Line next() throws IOException {
        while (pending.isEmpty()) {
            Chunk c = nextChunk();
            if (c == null) {
                return null;
            }
            pending.addAll(c.lines());
        }
        return pending.poll();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
