package dev.piper.feed;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * The datums of an Avro container file, one at a time, each in Avro's binary encoding without a
 * header: what a spec of {@code input.schema} reads from a Kafka record or a serving request.
 */
public final class AvroDatums implements Closeable, LineProducer.Records {

    private final DataFileStream<Object> file;
    private final GenericDatumWriter<Object> writer;
    private final ByteArrayOutputStream datum = new ByteArrayOutputStream(1024);
    private BinaryEncoder encoder;
    private Object reuse;

    /** Opens {@code input}, an Avro container file. */
    public AvroDatums(Path input) throws IOException {
        this.file =
                new DataFileStream<>(
                        new BufferedInputStream(Files.newInputStream(input), 1 << 16),
                        new GenericDatumReader<>());
        this.writer = new GenericDatumWriter<>(file.getSchema());
    }

    /** Every datum of {@code input}, in file order. */
    public static List<byte[]> all(Path input) throws IOException {
        List<byte[]> datums = new ArrayList<>();
        try (AvroDatums file = new AvroDatums(input)) {
            for (byte[] d = file.next(); d != null; d = file.next()) {
                datums.add(d);
            }
        }
        return datums;
    }

    /** The next datum, or null after the last. */
    @Override
    public byte[] next() throws IOException {
        if (!file.hasNext()) {
            return null;
        }
        reuse = file.next(reuse);
        datum.reset();
        encoder = EncoderFactory.get().binaryEncoder(datum, encoder);
        writer.write(reuse, encoder);
        encoder.flush();
        return datum.toByteArray();
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
