package dev.piper.benchmarks;

import dev.piper.core.block.LogRecord;
import dev.piper.core.block.RawChunk;
import dev.piper.operators.log.LogChunkOperator;
import dev.piper.pipeline.generate.CriteoGenerator;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The stream's per-record path before the decoder: Kafka records of one Criteo line each, of two
 * partitions in runs of 512 (as the Kafka source hands over a fetch per partition), through {@link
 * LogChunkOperator} (in Flink's operator harness) into blocks of 4,096 lines. Reports records per
 * second; the blocks are dropped as they come.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(
        value = 2,
        jvmArgsAppend = {"--add-opens=java.base/java.util=ALL-UNNAMED"})
public class LogChunkBenchmark {

    private static final int RECORDS = 8_192;

    private final List<StreamRecord<LogRecord>> records = new ArrayList<>(RECORDS);
    private OneInputStreamOperatorTestHarness<LogRecord, RawChunk> harness;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        new CriteoGenerator(1, 0.01, 0).write(text, RECORDS);
        String[] lines = text.toString(java.nio.charset.StandardCharsets.UTF_8).split("\n");
        for (int i = 0; i < RECORDS; i++) {
            byte[] value = lines[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
            records.add(new StreamRecord<>(new LogRecord((i >>> 9) & 1, i, 1_000L + i, value)));
        }
        harness = new OneInputStreamOperatorTestHarness<>(new LogChunkOperator(1 << 20, 4096, 200));
        harness.open();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        harness.close();
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public int chunkRecords() throws Exception {
        for (StreamRecord<LogRecord> r : records) {
            harness.processElement(r);
        }
        int blocks = harness.getOutput().size();
        harness.getOutput().clear();
        return blocks;
    }
}
