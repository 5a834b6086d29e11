package dev.piper.benchmarks;

import dev.piper.connectors.kafka.CheckpointStamp;
import dev.piper.connectors.kafka.OutputEncoder;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.Origin;
import dev.piper.pipeline.ops.DecodeOptions;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.util.Collector;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The stream's last steps before the Kafka sink, per block: {@link OutputEncoder} turning a block
 * of 4,096 Criteo rows, with 64 new vocabulary entries in each of its 26 columns, into its rows
 * record and 26 vocabulary records; and the same followed by {@link CheckpointStamp}, which copies
 * each record's header arrays to add its commit stamp. Reports blocks per second: the ratio of the
 * two is the stamp's share of the encoding.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(2)
public class EncodeBenchmark {

    private static final int ROWS = 4_096;
    private static final int NEW_KEYS = 64;

    private AssembledBlock block;
    private OutputEncoder encoder;
    private CheckpointStamp stamp;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(1);
        byte[] rows = new byte[ROWS * 40 * Integer.BYTES];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = (byte) random.nextInt(256);
        }
        long[][] newKeys = new long[26][NEW_KEYS];
        int[] firstNew = new int[26];
        for (int c = 0; c < 26; c++) {
            for (int k = 0; k < NEW_KEYS; k++) {
                newKeys[c][k] = random.nextLong();
            }
            firstNew[c] = 1_000 * (c + 1);
        }
        long[] offsets = new long[ROWS];
        int[] firstLines = new int[ROWS];
        for (int i = 0; i < ROWS; i++) {
            offsets[i] = 5_000 + i;
            firstLines[i] = i;
        }
        block =
                AssembledBlock.builder()
                        .lane(1)
                        .seq(7)
                        .lines(ROWS)
                        .rows(ROWS)
                        .rowBytes(rows)
                        .deadLetters(new DeadLetter[0])
                        .newKeys(firstNew, newKeys)
                        .origin(new Origin(offsets, firstLines, 1_000, 2_000))
                        .version(1)
                        .epochs(new int[26])
                        .build();
        encoder = new OutputEncoder("clicks", true, DecodeOptions.defaults());
        stamp = new CheckpointStamp(41);
    }

    /** Collects into the blackhole, optionally through the stamp. */
    private Collector<KafkaOut> into(Blackhole bh, boolean stamped) {
        return new Collector<>() {
            @Override
            public void collect(KafkaOut record) {
                bh.consume(stamped ? stamp.map(record) : record);
            }

            @Override
            public void close() {}
        };
    }

    @Benchmark
    public void encode(Blackhole bh) {
        encoder.flatMap(block, into(bh, false));
    }

    @Benchmark
    public void encodeAndStamp(Blackhole bh) {
        encoder.flatMap(block, into(bh, true));
    }
}
