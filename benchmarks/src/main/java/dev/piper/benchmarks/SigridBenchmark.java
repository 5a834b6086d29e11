package dev.piper.benchmarks;

import dev.piper.pipeline.ops.SigridHash;
import java.util.SplittableRandom;
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

/**
 * sigrid_hash over one list column of a block of PreSto's RM3 (115 rows of about 20 ids, into
 * 500,000 as the preset hashes them); per id.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SigridBenchmark {

    static final int IDS = 2_300;

    private final SigridHash hash = new SigridHash(0, 500_000);
    private final long[] ids = new long[IDS];
    private final long[] out = new long[IDS];

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(25);
        for (int i = 0; i < IDS; i++) {
            ids[i] = random.nextLong() >>> 32; // eight hex digits, as Criteo's ids
        }
    }

    @Benchmark
    @OperationsPerInvocation(IDS)
    public long[] hashColumn() {
        hash.apply(ids, IDS, out);
        return out;
    }
}
