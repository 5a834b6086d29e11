package dev.piper.convert;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Criteo text to a file of binary records (Avro, Protobuf), in order: each line a record, or, when
 * no record can carry it (another field count, text that is not UTF-8, ...), written as it is to
 * {@code OUTPUT.rejected.tsv} and counted. Both files appear complete under their names or not at
 * all (written beside them, then moved).
 */
final class RecordConversion {

    private RecordConversion() {}

    /** What a conversion did: lines read, records written, lines rejected. */
    record Counts(long lines, long records, long rejected, double seconds) {}

    /** Writes records into one output stream. */
    interface Writer extends AutoCloseable {
        /** Writes the record of {@code line}; false if no record can carry it. */
        boolean write(String line) throws IOException;

        @Override
        void close() throws IOException;
    }

    /** Opens the {@link Writer} of the records into {@code out}. */
    interface Opener {
        Writer open(OutputStream out) throws IOException;
    }

    /** Where the lines that have no record go. */
    static Path rejectedFile(Path output) {
        return output.resolveSibling(output.getFileName() + ".rejected.tsv");
    }

    static Counts convert(Path input, Path output, Opener opener, PrintStream progress)
            throws IOException {
        long start = System.nanoTime();
        Path partial = output.resolveSibling(output.getFileName() + ".partial");
        Path rejectedPartial = output.resolveSibling(output.getFileName() + ".rejected.partial");
        long[] counts = new long[2]; // records, rejected
        long lines;
        try (InputStream in = TsvToJson.open(input);
                OutputStream rejected =
                        new BufferedOutputStream(Files.newOutputStream(rejectedPartial), 1 << 16);
                Writer out =
                        opener.open(
                                new BufferedOutputStream(
                                        Files.newOutputStream(partial), 1 << 16))) {
            lines =
                    TsvToJson.eachLine(
                            in,
                            progress,
                            (text, buf, from, to) -> {
                                if (text != null && out.write(text)) {
                                    counts[0]++;
                                } else {
                                    rejected.write(buf, from, to - from);
                                    rejected.write('\n');
                                    counts[1]++;
                                }
                            });
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(partial);
            Files.deleteIfExists(rejectedPartial);
            throw e;
        }
        Files.move(rejectedPartial, rejectedFile(output), StandardCopyOption.ATOMIC_MOVE);
        Files.move(partial, output, StandardCopyOption.ATOMIC_MOVE);
        return new Counts(lines, counts[0], counts[1], (System.nanoTime() - start) / 1e9);
    }
}
