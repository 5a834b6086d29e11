package dev.piper.benchmarks;

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
 * Vocabulary lookups that hit (one batch repeated, or a stream of batches whose cells are not
 * cached) and that miss, at 5K and 10M entries; per lookup.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx4g")
public class VocabularyBenchmark {

    static final int BATCH = 4096;

    /** Keys of {@link #hitCold}: 16 MB, walked a batch at a time, so no batch repeats in cache. */
    static final int STREAM = 1 << 21;

    @Param({"5000", "10000000"})
    int entries;

    /**
     * The keys: {@code random} 64-bit; {@code bounded} in {@code [0, 2.5 x entries)}, as a
     * sigrid_hash or modulus leaves them (the table turns direct); {@code shifted} the bounded keys
     * plus 2^40, outside any direct range (the same lookups, hashed).
     */
    @Param({"random", "bounded", "shifted"})
    String keys;

    private Vocabulary vocabulary;
    private long[] present;
    private long[] absent;
    private int[] out;
    private long[] stream;
    private int cursor;
    private final long[] batch = new long[BATCH];

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(entries);
        vocabulary = new Vocabulary();
        long[] keys = new long[entries];
        for (int i = 0; i < entries; i++) {
            do {
                keys[i] = nextKey(random);
            } while (vocabulary.indexOf(keys[i]) >= 0);
            vocabulary.getOrAdd(keys[i]);
        }
        present = new long[BATCH];
        absent = new long[BATCH];
        for (int i = 0; i < BATCH; i++) {
            present[i] = keys[random.nextInt(entries)];
            long k;
            do {
                k = nextKey(random);
            } while (vocabulary.indexOf(k) >= 0);
            absent[i] = k;
        }
        out = new int[BATCH];
        stream = new long[STREAM];
        for (int i = 0; i < STREAM; i++) {
            stream[i] = keys[random.nextInt(entries)];
        }
    }

    /** A key as {@link #keys} draws them. */
    private long nextKey(SplittableRandom random) {
        if (keys.equals("random")) {
            return random.nextLong();
        }
        long bounded = random.nextLong(entries * 5L / 2);
        return keys.equals("shifted") ? (1L << 40) + bounded : bounded;
    }

    /** ApplyVocab on keys that are all in the vocabulary (the common case once it is warm). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int[] hit() {
        vocabulary.apply(present, BATCH, out);
        return out;
    }

    /**
     * As {@link #hit}, each call on the next batch of a 2M-key stream: the lookups' table cells are
     * not in the caches from the previous call (in the job, 21 vocabularies of a subtask share the
     * core's caches).
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int[] hitCold() {
        System.arraycopy(stream, cursor, batch, 0, BATCH); // as a chunk arrives: in cache
        vocabulary.apply(batch, BATCH, out);
        cursor = cursor + BATCH == STREAM ? 0 : cursor + BATCH;
        return out;
    }

    /** Lookups of keys the vocabulary does not hold (the probe to an empty cell). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int miss() {
        int sum = 0;
        for (int i = 0; i < BATCH; i++) {
            sum += vocabulary.indexOf(absent[i]);
        }
        return sum;
    }
}
