package dev.piper.convert;

import dev.piper.pipeline.generate.CriteoEvents;
import dev.piper.pipeline.layout.RowLayout;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/**
 * Criteo text to JSON events, one object per line ({@link CriteoEvents}): every line is written, in
 * order, so that preprocessing the events with a {@code json} spec of the same chains gives the
 * text's rows, indices and dead-letter count. A line that is not a row of the layout (a wrong field
 * count, invalid UTF-8) is written as it is, and the JSON decoder rejects it as the text decoder
 * does. The file appears complete under its name or not at all (written beside it, then moved).
 */
public final class TsvToJson {

    private TsvToJson() {}

    /** What a conversion did. */
    public record Result(long lines, long bytes, double seconds) {}

    /**
     * @param progress where a line goes every ten seconds of a long conversion
     */
    public static Result convert(Path input, Path output, RowLayout layout, PrintStream progress)
            throws IOException {
        CriteoEvents events = new CriteoEvents(layout);
        return eachLineTo(
                input,
                output,
                progress,
                out -> {},
                (out, text, buf, from, to) -> {
                    if (text != null) {
                        out.write(events.toJson(text).getBytes(StandardCharsets.UTF_8));
                    } else {
                        out.write(buf, from, to - from);
                    }
                });
    }

    /** What is written of each line of the input, before its line break. */
    interface LineWriter {
        /**
         * @param text the line without its line break, or null if it is not UTF-8
         * @param buf the line's bytes are {@code buf[from, to)}
         */
        void write(OutputStream out, String text, byte[] buf, int from, int to) throws IOException;
    }

    /** What is written before the first line (a header). */
    interface Head {
        void write(OutputStream out) throws IOException;
    }

    /**
     * Writes every line of {@code input} to {@code output} as {@code line} makes it, one line each,
     * after {@code head}: into a file beside the output, moved into place once whole, so that the
     * output appears complete under its name or not at all.
     */
    static Result eachLineTo(
            Path input, Path output, PrintStream progress, Head head, LineWriter line)
            throws IOException {
        long start = System.nanoTime();
        Path partial = output.resolveSibling(output.getFileName() + ".partial");
        long lines;
        try (InputStream in = open(input);
                OutputStream out =
                        new BufferedOutputStream(Files.newOutputStream(partial), 1 << 16)) {
            head.write(out);
            lines =
                    eachLine(
                            in,
                            progress,
                            (text, buf, from, to) -> {
                                line.write(out, text, buf, from, to);
                                out.write('\n');
                            });
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(partial);
            throw e;
        }
        Files.move(partial, output, StandardCopyOption.ATOMIC_MOVE);
        return new Result(lines, Files.size(output), (System.nanoTime() - start) / 1e9);
    }

    /** What is done with each line of the input. */
    interface LineSink {
        /**
         * @param text the line without its line break, or null if it is not UTF-8
         * @param buf the line's bytes are {@code buf[from, to)}
         */
        void accept(String text, byte[] buf, int from, int to) throws IOException;
    }

    /**
     * Hands every line of {@code in} to {@code sink}, in order; a line every ten seconds of a long
     * input goes to {@code progress}.
     *
     * @return the number of lines
     */
    static long eachLine(InputStream in, PrintStream progress, LineSink sink) throws IOException {
        CharsetDecoder utf8 =
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
        long lastReport = System.nanoTime();
        long lines = 0;
        byte[] buf = new byte[1 << 16];
        int pos = 0; // the next line's start in buf
        int limit = 0; // the end of the input read into buf
        boolean eof = false;
        while (true) {
            int nl = -1;
            for (int i = pos; i < limit; i++) {
                if (buf[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            if (nl < 0 && !eof) {
                System.arraycopy(buf, pos, buf, 0, limit - pos);
                limit -= pos;
                pos = 0;
                if (limit == buf.length) {
                    buf = Arrays.copyOf(buf, buf.length * 2); // a line longer than the buffer
                }
                int n = in.read(buf, limit, buf.length - limit);
                if (n < 0) {
                    eof = true;
                } else {
                    limit += n;
                }
                continue;
            }
            if (nl < 0 && pos == limit) {
                break; // the input ended with its last line's break
            }
            int lineEnd = nl < 0 ? limit : nl;
            int end = lineEnd > pos && buf[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
            String text;
            try {
                text = utf8.decode(ByteBuffer.wrap(buf, pos, end - pos)).toString();
            } catch (CharacterCodingException notUtf8) {
                text = null;
            }
            sink.accept(text, buf, pos, end);
            lines++;
            pos = nl < 0 ? limit : nl + 1;
            if ((lines & 0xFFFF) == 0 && System.nanoTime() - lastReport > 10e9) {
                lastReport = System.nanoTime();
                progress.printf("convert: %,d lines%n", lines);
            }
        }
        return lines;
    }

    static InputStream open(Path input) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(input), 1 << 16);
        return input.toString().endsWith(".gz") ? new GZIPInputStream(in, 1 << 16) : in;
    }
}
