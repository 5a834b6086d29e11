package dev.piper.benchmarks;

import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.operators.vocab.VocabularyFunction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A checkpoint of one column's vocabulary through the real operator: {@link VocabularyFunction} in
 * Flink's operator harness on the heap state backend, written to filesystem checkpoint storage on
 * local disk. Reports the time of one snapshot (synchronous and asynchronous parts) and, as an
 * auxiliary counter, the bytes per entry it wrote.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx6g", "--add-opens=java.base/java.util=ALL-UNNAMED"})
public class CheckpointBenchmark {

    @Param({"10000000"})
    int entries;

    private KeyedOneInputStreamOperatorTestHarness<Integer, KeyChunk, IndexChunk> harness;
    private Path storage;
    private long checkpointId;
    private long lastBytes;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        storage = Files.createTempDirectory("piper-checkpoint-bench");
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new VocabularyFunction()),
                        KeyChunk::column,
                        Types.INT);
        harness.setCheckpointStorage(new FileSystemCheckpointStorage(storage.toUri()));
        harness.open();
        SplittableRandom random = new SplittableRandom(entries);
        int block = 4096;
        long seq = 0;
        for (int done = 0; done < entries; done += block) {
            int n = Math.min(block, entries - done);
            long[] keys = new long[n];
            for (int i = 0; i < n; i++) {
                keys[i] = random.nextLong();
            }
            harness.processElement(
                    new StreamRecord<>(
                            KeyChunk.builder().column(0).seq(seq++).keys(keys).size(n).build()));
            harness.getOutput().clear();
        }
    }

    @Benchmark
    public OperatorSubtaskState snapshot() throws Exception {
        OperatorSubtaskState state = harness.snapshot(++checkpointId, checkpointId);
        long bytes = 0;
        for (KeyedStateHandle handle : state.getManagedKeyedState()) {
            bytes += handle.getStateSize();
        }
        lastBytes = bytes;
        return state;
    }

    /** Prints the size of the snapshot just taken (JMH forwards a fork's output). */
    @TearDown(Level.Iteration)
    public void reportSize() {
        System.out.printf(
                "snapshot: %,d bytes, %.2f bytes per vocabulary entry%n",
                lastBytes, (double) lastBytes / entries);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        harness.close();
        TempDirs.delete(storage);
    }
}
