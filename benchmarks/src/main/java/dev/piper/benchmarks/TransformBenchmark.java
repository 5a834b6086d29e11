package dev.piper.benchmarks;

import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.core.serve.Transform;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The serving transform's latency for a request of 512 Criteo lines under DLRM's pipeline, against
 * the feed's decode of the same lines (its decoder and column operators, the part of the feed's
 * work the transform repeats before its lookups): JMH's sampled times give the p50 and p99 of one
 * request. The vocabulary snapshot holds every key of 20,000 generated lines, of which the requests
 * are consecutive slices.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TransformBenchmark {

    static final int REQUEST = 512;
    static final int LINES = 20_000;

    private List<List<byte[]>> requests;
    private List<RawChunk> chunks;
    private Transform transform;
    private CriteoDecoder decoder;
    private int next;
    private Path dir;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new CriteoGenerator(3, 0.01, 0).write(out, LINES);
        byte[] text = out.toByteArray();
        DecodeOptions options = DecodeOptions.defaults();
        decoder = new CriteoDecoder(options);
        requests = new ArrayList<>();
        chunks = new ArrayList<>();
        List<byte[]> request = new ArrayList<>();
        int start = 0;
        for (int at = 0; at < text.length; at++) {
            if (text[at] == '\n') {
                request.add(Arrays.copyOfRange(text, start, at));
                start = at + 1;
                if (request.size() == REQUEST) {
                    requests.add(request);
                    chunks.add(chunk(request));
                    request = new ArrayList<>();
                }
            }
        }
        // every key of the lines in first-appearance order: the vocabulary at the end of the feed
        dir = Files.createTempDirectory("transform-bench");
        Files.createDirectories(dir.resolve("vocab"));
        CriteoDecoder.Decoded all = decoder.decode(new RawChunk(0, 0, text, text.length, -1));
        for (int c = 0; c < all.keys().length; c++) {
            KeyChunk keys = all.keys()[c];
            Set<Long> distinct = new LinkedHashSet<>();
            for (int i = 0; i < keys.size(); i++) {
                distinct.add(keys.keys()[i]);
            }
            StringBuilder tsv = new StringBuilder();
            int index = 0;
            for (long key : distinct) {
                tsv.append(index++).append('\t').append(Long.toUnsignedString(key)).append('\n');
            }
            Files.writeString(
                    dir.resolve("vocab").resolve("C" + (c + 1) + ".tsv"),
                    tsv,
                    StandardCharsets.UTF_8);
        }
        transform = new Transform(options, VocabularySnapshot.read(dir, options.program()));
    }

    private static RawChunk chunk(List<byte[]> lines) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] line : lines) {
            out.writeBytes(line);
            out.write('\n');
        }
        byte[] b = out.toByteArray();
        return new RawChunk(0, 0, b, b.length, -1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            TempDirs.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One request of 512 lines through the transform: decode, lookups, row assembly. */
    @Benchmark
    public Object transformRequest() {
        next = (next + 1) % requests.size();
        return transform.apply(requests.get(next));
    }

    /** The same 512 lines through the feed's decoder alone. */
    @Benchmark
    public Object decodeRequest() {
        next = (next + 1) % chunks.size();
        return decoder.decode(chunks.get(next));
    }
}
