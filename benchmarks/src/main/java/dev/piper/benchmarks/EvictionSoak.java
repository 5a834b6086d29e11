package dev.piper.benchmarks;

import dev.piper.operators.block.IndexChunk;
import dev.piper.operators.block.KeyChunk;
import dev.piper.operators.vocab.VocabularyFunction;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.pipeline.ops.VocabularyPolicy.Eviction;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * The long run of an evicting vocabulary (issue 27): one column through the real {@link
 * VocabularyFunction} in Flink's operator harness on the heap state backend, checkpointed to local
 * disk, fed a stream whose distinct keys far outnumber the column's LFU capacity.
 *
 * <p>Rows are blocks of 65,536 ids: a quarter drawn from a fixed hot set of 1M keys (seeded), the
 * rest keys never seen before. After every {@code --report-keys} new keys it prints the interval's
 * rows/s (CPU of this one thread, no other work), the heap in use after a full GC, and one
 * checkpoint's duration and size. After the fill the heap and the checkpoint must stay flat: the
 * vocabulary holds {@code capacity} entries whatever has passed.
 *
 * <pre>
 * java -Xmx8g -cp "benchmarks/target/piper-benchmarks-0.1.0-SNAPSHOT.jar:$(cat benchmarks/target/jmh-classpath.txt)" \
 *     dev.piper.benchmarks.EvictionSoak [distinct keys, default 100000000] [capacity, default 10000000]
 * </pre>
 */
public final class EvictionSoak {

    private static final int BLOCK = 1 << 16;
    private static final int HOT_KEYS = 1 << 20;

    private EvictionSoak() {}

    public static void main(String[] args) throws Exception {
        long distinct = args.length > 0 ? Long.parseLong(args[0]) : 100_000_000L;
        int capacity = args.length > 1 ? Integer.parseInt(args[1]) : 10_000_000;
        long reportKeys = args.length > 2 ? Long.parseLong(args[2]) : 10_000_000L;
        VocabularyPolicy policy =
                new VocabularyPolicy(
                        1, 1, VocabularyPolicy.MAX_SIZE, null, capacity, Eviction.LFU, 0);
        Path storage = Files.createTempDirectory("piper-eviction-soak");
        var harness =
                new KeyedOneInputStreamOperatorTestHarness<Integer, KeyChunk, IndexChunk>(
                        new KeyedProcessOperator<>(new VocabularyFunction()),
                        KeyChunk::column,
                        Types.INT);
        harness.setCheckpointStorage(new FileSystemCheckpointStorage(storage.toUri()));
        harness.open();
        SplittableRandom random = new SplittableRandom(27);
        long[] hot = new long[HOT_KEYS];
        for (int i = 0; i < HOT_KEYS; i++) {
            hot[i] = random.nextLong();
        }
        System.out.printf(
                "eviction soak: %,d distinct new keys through an LFU vocabulary of capacity %,d,"
                        + " blocks of %,d ids (1/4 from %,d hot keys); JVM %s, max heap %,d MiB%n",
                distinct,
                capacity,
                BLOCK,
                HOT_KEYS,
                Runtime.version(),
                Runtime.getRuntime().maxMemory() >> 20);
        System.out.println(
                "new keys\trows\tinterval rows/s\theap after GC (MiB)\tcheckpoint ms\tcheckpoint"
                        + " MiB\tevictions");
        long fresh = 0;
        long rows = 0;
        long seq = 0;
        long evictions = 0;
        long nextReport = reportKeys;
        long intervalRows = 0;
        long intervalNanos = 0;
        long checkpoint = 0;
        while (fresh < distinct) {
            long[] keys = new long[BLOCK];
            for (int i = 0; i < BLOCK; i++) {
                if ((i & 3) == 0) {
                    keys[i] = hot[random.nextInt(HOT_KEYS)];
                } else {
                    // fresh: distinct from each other and (with odds 2^-64) from the hot keys
                    keys[i] = VocabularyPolicy.mix(++fresh);
                }
            }
            long start = System.nanoTime();
            harness.processElement(
                    new StreamRecord<>(new KeyChunk(0, 0, seq++, keys, BLOCK, 0, policy)));
            intervalNanos += System.nanoTime() - start;
            for (StreamRecord<? extends IndexChunk> out : harness.extractOutputStreamRecords()) {
                var a = out.getValue().assignments();
                if (a != null) {
                    evictions += a.size() - a.fresh();
                }
            }
            harness.getOutput().clear();
            rows += BLOCK;
            intervalRows += BLOCK;
            if (fresh >= nextReport || fresh >= distinct) {
                System.gc();
                long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                long cpStart = System.nanoTime();
                OperatorSubtaskState state = harness.snapshot(++checkpoint, checkpoint);
                long cpNanos = System.nanoTime() - cpStart;
                long bytes = 0;
                for (KeyedStateHandle handle : state.getManagedKeyedState()) {
                    bytes += handle.getStateSize();
                }
                state.discardState();
                System.out.printf(
                        "%,d\t%,d\t%,.0f\t%,d\t%,d\t%,.1f\t%,d%n",
                        fresh,
                        rows,
                        intervalRows / (intervalNanos / 1e9),
                        heap >> 20,
                        cpNanos / 1_000_000,
                        bytes / 1048576.0,
                        evictions);
                intervalRows = 0;
                intervalNanos = 0;
                nextReport += reportKeys;
            }
        }
        harness.close();
        try (Stream<Path> files = Files.walk(storage)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(
                            p -> {
                                try {
                                    Files.delete(p);
                                } catch (IOException e) {
                                    // a leftover temporary file is harmless
                                }
                            });
        }
    }
}
