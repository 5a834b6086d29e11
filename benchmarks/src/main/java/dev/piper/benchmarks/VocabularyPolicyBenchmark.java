package dev.piper.benchmarks;

import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.state.Vocabulary;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
 * ApplyVocab under each vocabulary policy, per key, on a skewed key stream (4M keys drawn as
 * floor(10^7 u^3), so a few keys are frequent and most are rare, as in Criteo's large columns). The
 * vocabulary has seen the whole stream once before measuring, so the measured blocks are the steady
 * state: hits, counted keys that are not admitted yet, and bucketed ones.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx4g")
public class VocabularyPolicyBenchmark {

    static final int BLOCK = 4096;
    static final int STREAM = 1 << 22;

    @Param({"first_appearance", "oov_buckets", "min_count_2", "min_count_5", "max_size_100k"})
    String policy;

    private VocabularyPolicy rule;
    private Vocabulary vocabulary;
    private long[] stream;
    private long[] block;
    private int[] out;
    private int at;

    @Setup
    public void setUp() {
        rule =
                switch (policy) {
                    case "first_appearance" -> VocabularyPolicy.FIRST_APPEARANCE;
                    case "oov_buckets" -> new VocabularyPolicy(1, 1024, Vocabulary.MAX_SIZE, null);
                    case "min_count_2" -> new VocabularyPolicy(2, 1024, Vocabulary.MAX_SIZE, null);
                    case "min_count_5" -> new VocabularyPolicy(5, 1024, Vocabulary.MAX_SIZE, null);
                    case "max_size_100k" -> new VocabularyPolicy(1, 1024, 100_000, null);
                    default -> throw new IllegalArgumentException(policy);
                };
        SplittableRandom random = new SplittableRandom(42);
        stream = new long[STREAM];
        for (int i = 0; i < STREAM; i++) {
            double u = random.nextDouble();
            stream[i] = (long) Math.floor(1e7 * u * u * u);
        }
        block = new long[BLOCK];
        out = new int[BLOCK];
        vocabulary = new Vocabulary();
        for (int from = 0; from < STREAM; from += BLOCK) {
            System.arraycopy(stream, from, block, 0, BLOCK);
            vocabulary.apply(block, BLOCK, out, rule);
        }
        at = 0;
    }

    /** One block of the stream, cycling through it. */
    @Benchmark
    @OperationsPerInvocation(BLOCK)
    public int[] apply() {
        System.arraycopy(stream, at, block, 0, BLOCK); // 32 KiB, a small share of the work
        at = (at + BLOCK) % STREAM;
        vocabulary.apply(block, BLOCK, out, rule);
        return out;
    }
}
