package dev.piper.benchmarks;

import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.operators.block.IndexChunkSerializer;
import dev.piper.operators.block.KeyChunkSerializer;
import dev.piper.state.Vocabulary;
import dev.piper.state.VocabularySerializer;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
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

/**
 * Block serializers (a 4,096-row column chunk written and read back; per row) and the vocabulary
 * state serializer (a 1M-entry vocabulary written and read back; per entry).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class SerializerBenchmark {

    static final int ROWS = 4096;
    static final int VOCABULARY = 1_000_000;

    private KeyChunk keys;
    private IndexChunk indices;
    private Vocabulary vocabulary;
    private DataOutputSerializer out;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(3);
        long[] k = new long[ROWS];
        int[] idx = new int[ROWS];
        for (int i = 0; i < ROWS; i++) {
            k[i] = random.nextLong();
            idx[i] = random.nextInt(1_000_000);
        }
        keys = KeyChunk.builder().column(3).seq(7).keys(k).size(ROWS).build();
        indices = new IndexChunk(3, 7, idx, ROWS, 100, new long[] {1, 2, 3});
        vocabulary = new Vocabulary();
        while (vocabulary.size() < VOCABULARY) {
            vocabulary.getOrAdd(random.nextLong());
        }
        out = new DataOutputSerializer(16 << 20);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public KeyChunk keyChunkRoundTrip() throws IOException {
        out.clear();
        KeyChunkSerializer.INSTANCE.serialize(keys, out);
        return KeyChunkSerializer.INSTANCE.deserialize(
                new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public IndexChunk indexChunkRoundTrip() throws IOException {
        out.clear();
        IndexChunkSerializer.INSTANCE.serialize(indices, out);
        return IndexChunkSerializer.INSTANCE.deserialize(
                new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
    }

    @Benchmark
    @OperationsPerInvocation(VOCABULARY)
    public Vocabulary vocabularyRoundTrip() throws IOException {
        out.clear();
        VocabularySerializer.INSTANCE.serialize(vocabulary, out);
        return VocabularySerializer.INSTANCE.deserialize(
                new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
    }
}
