package dev.piper.convert;

import dev.piper.pipeline.generate.CriteoAvro;
import dev.piper.pipeline.layout.RowLayout;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/**
 * Criteo text to an Avro container file ({@link CriteoAvro}'s records, written by Apache Avro's
 * {@link DataFileWriter}), in order, so that preprocessing it with an {@code avro} spec of the same
 * chains gives the text's rows and indices. A line no record can carry (another field count, an
 * empty line, text that is not UTF-8) is written, as it is, to {@code OUTPUT.rejected.tsv} and
 * counted: the text's dead letters are the Avro file's plus those.
 */
public final class TsvToAvro {

    private TsvToAvro() {}

    /** What a conversion did: lines read, records written, lines rejected. */
    public record Result(long lines, long records, long rejected, long bytes, double seconds) {}

    /** Where the lines that have no record go. */
    public static Path rejectedFile(Path output) {
        return RecordConversion.rejectedFile(output);
    }

    /**
     * @param codec Avro's codec name ({@code "null"} for none, {@code "deflate"}, ...)
     * @param progress where a line goes every ten seconds of a long conversion
     */
    public static Result convert(
            Path input, Path output, RowLayout layout, String codec, PrintStream progress)
            throws IOException {
        return convert(input, output, new CriteoAvro(layout), codec, progress);
    }

    /** As above, with the records {@code avro} makes (its ids as text or as longs). */
    public static Result convert(
            Path input, Path output, CriteoAvro avro, String codec, PrintStream progress)
            throws IOException {
        RecordConversion.Counts c =
                RecordConversion.convert(
                        input,
                        output,
                        (OutputStream out) -> {
                            DataFileWriter<GenericRecord> file =
                                    new DataFileWriter<>(
                                            new GenericDatumWriter<GenericRecord>(avro.schema()));
                            file.setCodec(CodecFactory.fromString(codec));
                            file.create(avro.schema(), out);
                            return new RecordConversion.Writer() {
                                @Override
                                public boolean write(String line) throws IOException {
                                    GenericRecord r = avro.toRecord(line);
                                    if (r != null) {
                                        file.append(r);
                                    }
                                    return r != null;
                                }

                                @Override
                                public void close() throws IOException {
                                    file.close();
                                }
                            };
                        },
                        progress);
        return new Result(c.lines(), c.records(), c.rejected(), Files.size(output), c.seconds());
    }
}
