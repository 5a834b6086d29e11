package dev.piper.benchmarks;

import dev.piper.connectors.text.LineChunker;
import dev.piper.operators.block.RawChunk;
import dev.piper.operators.decode.CriteoDecoder;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.ops.DecodeOptions;
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

    private RawChunk chunk;
    private CriteoDecoder decoder;
    private LineChunker endless;

    @Setup
    public void setUp() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new CriteoGenerator(1, 0.01, 0).write(out, LINES);
        byte[] text = out.toByteArray();
        chunk = new RawChunk(0, 0, text, text.length, -1);
        decoder = new CriteoDecoder(DecodeOptions.defaults());
        endless = new LineChunker(new Repeating(text), 0, 0, text.length, 65536, 1024);
    }

    @Benchmark
    @OperationsPerInvocation(LINES)
    public Object decodeBlock() {
        return decoder.decode(chunk);
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
