package dev.piper.connectors.convert;

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
        long start = System.nanoTime();
        long lastReport = start;
        Path partial = output.resolveSibling(output.getFileName() + ".partial");
        CriteoEvents events = new CriteoEvents(layout);
        CharsetDecoder utf8 =
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
        long lines = 0;
        try (InputStream in = open(input);
                OutputStream out =
                        new BufferedOutputStream(Files.newOutputStream(partial), 1 << 16)) {
            byte[] line = new byte[1 << 12];
            int n = 0;
            int b;
            boolean any = false;
            while (true) {
                b = in.read();
                if (b < 0 || b == '\n') {
                    if (b < 0 && !any) {
                        break;
                    }
                    int end = n > 0 && line[n - 1] == '\r' ? n - 1 : n;
                    String text;
                    try {
                        text = utf8.decode(ByteBuffer.wrap(line, 0, end)).toString();
                        out.write(events.toJson(text).getBytes(StandardCharsets.UTF_8));
                    } catch (CharacterCodingException notUtf8) {
                        out.write(line, 0, end);
                    }
                    out.write('\n');
                    lines++;
                    n = 0;
                    any = false;
                    if (b < 0) {
                        break;
                    }
                    if ((lines & 0xFFFF) == 0 && System.nanoTime() - lastReport > 10e9) {
                        lastReport = System.nanoTime();
                        progress.printf("convert: %,d lines%n", lines);
                    }
                    continue;
                }
                any = true;
                if (n == line.length) {
                    line = java.util.Arrays.copyOf(line, n * 2);
                }
                line[n++] = (byte) b;
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(partial);
            throw e;
        }
        Files.move(partial, output, StandardCopyOption.ATOMIC_MOVE);
        return new Result(lines, Files.size(output), (System.nanoTime() - start) / 1e9);
    }

    private static InputStream open(Path input) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(input), 1 << 16);
        return input.toString().endsWith(".gz") ? new GZIPInputStream(in, 1 << 16) : in;
    }
}
