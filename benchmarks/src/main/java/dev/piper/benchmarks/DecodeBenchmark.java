package dev.piper.benchmarks;

import dev.piper.core.block.RawChunk;
import dev.piper.core.chunk.LineChunker;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Line decoding with the fused stateless column operators, and line cutting; per line. */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class DecodeBenchmark {

    static final int LINES = 4096;

    /** Lines of PreSto's RM3 in a block: about 1 MiB, the job's default block. */
    static final int RM3_LINES = 115;

    private RawChunk chunk;
    private CriteoDecoder decoder;
    private LineChunker endless;
    private RawChunk rm3Chunk;
    private CriteoDecoder rm3Decoder;

    @Setup
    public void setUp() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new CriteoGenerator(1, 0.01, 0).write(out, LINES);
        byte[] text = out.toByteArray();
        chunk = new RawChunk(0, 0, text, text.length, -1);
        decoder = new CriteoDecoder(DecodeOptions.defaults());
        endless = new LineChunker(new Repeating(text), 0, 0, text.length, 65536, 1024);

        // PreSto's RM3 (docs/PERFORMANCE.md, "PreSto's lists"): 504 dense values with log, 42 list
        // columns of about 20 ids with sigrid_hash, 42 generated columns bucketized
        Presets.Preset rm3 = Presets.named("rm3");
        ByteArrayOutputStream rm3Out = new ByteArrayOutputStream();
        new CriteoGenerator(rm3.spec().layout(), 7, 0.01, 0, rm3.meanListLength())
                .write(rm3Out, RM3_LINES);
        byte[] rm3Text = rm3Out.toByteArray();
        rm3Chunk = new RawChunk(0, 0, rm3Text, rm3Text.length, -1);
        rm3Decoder = new CriteoDecoder(SpecCompiler.decodeOptions(rm3.spec(), 1024));
    }

    @Benchmark
    @OperationsPerInvocation(LINES)
    public Object decodeBlock() {
        return decoder.decode(chunk);
    }

    /** A block of RM3 lines decoded under the rm3 preset's program; per line. */
    @Benchmark
    @OperationsPerInvocation(RM3_LINES)
    public Object decodeRm3Block() {
        return rm3Decoder.decode(rm3Chunk);
    }

    @Benchmark
    @OperationsPerInvocation(LINES)
    public Object cutLines() throws IOException {
        return endless.next();
    }

    /** The same bytes over and over, so that one chunker serves every invocation. */
    static final class Repeating extends InputStream {
        private final byte[] text;
        private int pos;

        Repeating(byte[] text) {
            this.text = text;
        }

        @Override
        public int read() {
            byte b = text[pos];
            pos = (pos + 1) % text.length;
            return b & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            int n = Math.min(len, text.length - pos);
            System.arraycopy(text, pos, b, off, n);
            pos = (pos + n) % text.length;
            return n;
        }
    }
}
