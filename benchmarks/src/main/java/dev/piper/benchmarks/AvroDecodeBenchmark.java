package dev.piper.benchmarks;

import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import dev.piper.core.decode.AvroEventDecoder;
import dev.piper.pipeline.generate.CriteoAvro;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.input.AvroOptions;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Avro event decoder alone, in one thread: a container block of Criteo lines as records of
 * named fields (issue 42), decoded under {@code --preset dlrm-criteo-avro}. {@code ids}: {@code
 * long} as a producer of typed events writes them (the 32-bit ids are varints of up to five bytes),
 * {@code wide} the same ids spread over 64 bits (each id XOR a fixed high pattern: varints of nine
 * and ten bytes, as hashes and 64-bit ids are), {@code hex} their hex text.
 *
 * <pre>
 * benchmarks/run -f 2 -wi 3 -i 5 AvroDecodeBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AvroDecodeBenchmark {

    static final int LINES = 4096;

    @Param({"long", "wide", "hex"})
    public String ids;

    private RawChunk chunk;
    private AvroEventDecoder decoder;

    @Setup
    public void setUp() throws IOException {
        ByteArrayOutputStream tsv = new ByteArrayOutputStream();
        new CriteoGenerator(1, 0.01, 0).write(tsv, LINES);
        CriteoAvro avro = new CriteoAvro(RowLayout.CRITEO, !ids.equals("hex"));
        GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(avro.schema());
        ByteArrayOutputStream datums = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(datums, null);
        int records = 0;
        for (String line : tsv.toString(StandardCharsets.UTF_8).split("\n")) {
            GenericRecord r = avro.toRecord(line);
            if (r == null) {
                continue; // a line of another field count has no record
            }
            if (ids.equals("wide")) {
                for (int c = 1; c <= 26; c++) {
                    if (r.get("C" + c) instanceof Long id) {
                        r.put("C" + c, id ^ 0x5A5A_0000_0000_0000L);
                    }
                }
            }
            writer.write(r, encoder);
            records++;
        }
        encoder.flush();
        byte[] payload = datums.toByteArray();
        byte[] frame = new byte[RecordFrames.HEADER + payload.length];
        RecordFrames.write(frame, 0, payload, 0, payload.length, records);
        chunk = new RawChunk(0, 0, frame, frame.length, -1);
        DecodeOptions o =
                SpecCompiler.decodeOptions(Presets.named("dlrm-criteo-avro").spec(), 1024);
        String schema = avro.schema().toString();
        decoder =
                new AvroEventDecoder(
                        o.withEvents(o.events().withAvro(AvroOptions.CONTAINER.withSchema(schema))),
                        false);
    }

    @Benchmark
    @OperationsPerInvocation(LINES)
    public Object decodeBlock() {
        return decoder.decode(chunk, false);
    }
}
