package dev.piper.convert;

import com.google.protobuf.DynamicMessage;
import dev.piper.pipeline.generate.CriteoProtobuf;
import dev.piper.pipeline.layout.RowLayout;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Criteo text to length-delimited Protobuf messages ({@link CriteoProtobuf}'s {@code
 * dev.piper.events.CriteoLine}, each written with {@code writeDelimitedTo}), in order, and the
 * message's descriptor set beside them ({@code OUTPUT.desc}, for {@code input.descriptor}), so that
 * preprocessing them with a {@code protobuf} spec of the same chains gives the text's rows and
 * indices. A line no message can carry (another field count, a label or dense field that is text
 * but no 32-bit decimal, text that is not UTF-8) is written, as it is, to {@code
 * OUTPUT.rejected.tsv} and counted.
 */
public final class TsvToProtobuf {

    private TsvToProtobuf() {}

    /** What a conversion did: lines read, messages written, lines rejected. */
    public record Result(long lines, long messages, long rejected, long bytes, double seconds) {}

    /** The descriptor set written beside {@code output}. */
    public static Path descriptorFile(Path output) {
        return output.resolveSibling(output.getFileName() + ".desc");
    }

    /**
     * @param progress where a line goes every ten seconds of a long conversion
     */
    public static Result convert(Path input, Path output, RowLayout layout, PrintStream progress)
            throws IOException {
        CriteoProtobuf proto = new CriteoProtobuf(layout);
        Files.write(descriptorFile(output), proto.descriptorSet());
        RecordConversion.Counts c =
                RecordConversion.convert(
                        input,
                        output,
                        (OutputStream out) ->
                                new RecordConversion.Writer() {
                                    @Override
                                    public boolean write(String line) throws IOException {
                                        DynamicMessage m = proto.toMessage(line);
                                        if (m != null) {
                                            m.writeDelimitedTo(out);
                                        }
                                        return m != null;
                                    }

                                    @Override
                                    public void close() throws IOException {
                                        out.close();
                                    }
                                },
                        progress);
        return new Result(c.lines(), c.records(), c.rejected(), Files.size(output), c.seconds());
    }
}
