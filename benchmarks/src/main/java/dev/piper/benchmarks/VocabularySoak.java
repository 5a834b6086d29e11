package dev.piper.benchmarks;

import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.operators.vocab.VocabularyFunction;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.pipeline.ops.VocabularyPolicy.Eviction;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * The long run of one column's vocabulary (issue 27): the real {@link VocabularyFunction} in
 * Flink's operator harness, checkpointed to local disk, fed far more distinct keys than fit a small
 * heap, on the heap or the RocksDB backend (incremental checkpoints), with the default store or
 * {@code piper.vocab.store: entries}, evicting (LFU) or growing.
 *
 * <p>Rows are blocks of 65,536 ids: a quarter drawn from a fixed hot set of 1M keys (seeded), the
 * rest keys never seen before. It checkpoints every {@code --checkpoint-keys} new keys (1M: about
 * 10 s of input at 100k rows/s), and after every {@code --report-keys} new keys prints the
 * interval's rows/s (the operator's {@code processElement}, checkpoints apart), the heap in use
 * after a full GC, the process's resident memory, the last checkpoint's duration (synchronous and
 * asynchronous parts) and the slowest of the interval, and the last checkpoint's size (for an
 * incremental RocksDB checkpoint, the bytes it uploaded, beside the whole state's).
 *
 * <pre>
 * java -Xmx10g -cp "benchmarks/target/piper-benchmarks-0.1.0-SNAPSHOT.jar:$(cat benchmarks/target/jmh-classpath.txt)" \
 *     dev.piper.benchmarks.VocabularySoak --keys 100000000 --capacity 10000000
 * java -Xmx2g -cp ... dev.piper.benchmarks.VocabularySoak --keys 100000000 --capacity 0 \
 *     --backend rocksdb --store entries
 * </pre>
 */
public final class VocabularySoak {

    private static final int BLOCK = 1 << 16;
    private static final int HOT_KEYS = 1 << 20;

    private final long distinct;
    private final long reportKeys;
    private final long checkpointKeys;
    private final boolean rocksdb;
    private final VocabularyPolicy policy;
    private final KeyedOneInputStreamOperatorTestHarness<Integer, KeyChunk, IndexChunk> harness;
    private final SplittableRandom random = new SplittableRandom(27);
    private final long[] hot = new long[HOT_KEYS];

    private long fresh;
    private long rows;
    private long seq;
    private long evictions;
    private long intervalRows;
    private long intervalNanos;
    private long checkpoint;
    private long lastCheckpointMillis;
    private long maxCheckpointMillis;
    private long lastUploaded;
    private long lastSize;

    private VocabularySoak(Map<String, String> opts, Path storage) throws Exception {
        distinct = Long.parseLong(opts.get("--keys"));
        int capacity = Integer.parseInt(opts.get("--capacity"));
        reportKeys = Long.parseLong(opts.get("--report-keys"));
        checkpointKeys = Long.parseLong(opts.get("--checkpoint-keys"));
        rocksdb = opts.get("--backend").equals("rocksdb");
        boolean entries = opts.get("--store").equals("entries");
        policy =
                capacity > 0
                        ? new VocabularyPolicy(
                                1, 1, VocabularyPolicy.MAX_SIZE, null, capacity, Eviction.LFU, 0)
                        : VocabularyPolicy.FIRST_APPEARANCE;
        VocabularyFunction function = new VocabularyFunction();
        if (entries) {
            function = function.withEntries(Integer.parseInt(opts.get("--cache")));
        }
        harness =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(function), KeyChunk::column, Types.INT);
        if (rocksdb) {
            // Outside a TaskManager there is no managed memory to size RocksDB by: it gets its own
            // defaults (64 MiB write buffers, an 8 MiB block cache) and a local directory here.
            Configuration rocks = new Configuration();
            rocks.set(RocksDBOptions.USE_MANAGED_MEMORY, false);
            rocks.set(RocksDBOptions.LOCAL_DIRECTORIES, storage.resolve("rocksdb").toString());
            // a new key is a lookup that finds nothing: bloom filters answer it without a read
            rocks.set(
                    RocksDBConfigurableOptions.USE_BLOOM_FILTER,
                    Boolean.parseBoolean(opts.get("--bloom")));
            harness.setStateBackend(
                    new EmbeddedRocksDBStateBackend(true)
                            .configure(rocks, VocabularySoak.class.getClassLoader()));
        }
        harness.setCheckpointStorage(new FileSystemCheckpointStorage(storage.toUri()));
        for (int i = 0; i < HOT_KEYS; i++) {
            hot[i] = random.nextLong();
        }
        System.out.printf(
                "vocabulary soak: %,d distinct new keys, %s, %s backend, store %s; blocks of %,d"
                        + " ids (1/4 from %,d hot keys); JVM %s, max heap %,d MiB%n",
                distinct,
                capacity > 0 ? "LFU capacity " + String.format("%,d", capacity) : "no eviction",
                rocksdb ? "rocksdb (incremental)" : "hashmap",
                entries ? "entries (cache " + opts.get("--cache") + ")" : "value",
                BLOCK,
                HOT_KEYS,
                Runtime.version(),
                Runtime.getRuntime().maxMemory() >> 20);
    }

    public static void main(String[] args) throws Exception {
        Path storage = Files.createTempDirectory("piper-vocabulary-soak");
        VocabularySoak soak = new VocabularySoak(options(args), storage);
        soak.run();
        TempDirs.delete(storage);
    }

    /** The options given, over their defaults; a usage line and exit 2 for an unknown one. */
    private static Map<String, String> options(String[] args) {
        Map<String, String> opts = new LinkedHashMap<>();
        opts.put("--keys", "100000000");
        opts.put("--capacity", "10000000");
        opts.put("--report-keys", "10000000");
        opts.put("--checkpoint-keys", "1000000");
        opts.put("--backend", "hashmap");
        opts.put("--store", "value");
        opts.put("--cache", Integer.toString(1 << 20));
        opts.put("--bloom", "true");
        for (int i = 0; i < args.length; i++) {
            if (!opts.containsKey(args[i]) || i + 1 == args.length) {
                System.err.println(
                        "usage: VocabularySoak "
                                + opts.keySet().stream().map(k -> "[" + k + " V]").toList()
                                + "; defaults "
                                + opts);
                System.exit(2);
            }
            opts.put(args[i], args[++i]);
        }
        return opts;
    }

    private void run() throws Exception {
        harness.open();
        System.out.println(
                "new keys\trows\tinterval rows/s\theap after GC (MiB)\tRSS (MiB)\tlast checkpoint"
                        + " ms\tslowest in interval ms\tuploaded MiB\tstate MiB\tevictions");
        long nextReport = reportKeys;
        long nextCheckpoint = checkpointKeys;
        while (fresh < distinct) {
            block();
            if (fresh >= nextCheckpoint || fresh >= distinct) {
                checkpoint();
                nextCheckpoint += checkpointKeys;
            }
            if (fresh >= nextReport || fresh >= distinct) {
                report();
                nextReport += reportKeys;
            }
        }
        harness.close();
    }

    /** One block of ids through the operator: a quarter hot keys, the rest new. */
    private void block() throws Exception {
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
                new StreamRecord<>(
                        KeyChunk.builder()
                                .lane(0)
                                .column(0)
                                .seq(seq++)
                                .keys(keys)
                                .size(BLOCK)
                                .epoch(0)
                                .policy(policy)
                                .build()));
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
    }

    /** A checkpoint, completed: its duration and sizes. */
    private void checkpoint() throws Exception {
        long cpStart = System.nanoTime();
        OperatorSubtaskState state = harness.snapshot(++checkpoint, checkpoint);
        long cpNanos = System.nanoTime() - cpStart;
        harness.notifyOfCompletedCheckpoint(checkpoint);
        lastUploaded = 0;
        lastSize = 0;
        for (KeyedStateHandle handle : state.getManagedKeyedState()) {
            lastUploaded += handle.getCheckpointedSize();
            lastSize += handle.getStateSize();
        }
        if (!rocksdb) {
            state.discardState(); // a full snapshot shares nothing with the next
        }
        lastCheckpointMillis = cpNanos / 1_000_000;
        maxCheckpointMillis = Math.max(maxCheckpointMillis, lastCheckpointMillis);
    }

    /** The interval's line, after a full GC; starts the next interval. */
    private void report() throws IOException {
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        System.out.printf(
                "%,d\t%,d\t%,.0f\t%,d\t%,d\t%,d\t%,d\t%,.1f\t%,.1f\t%,d%n",
                fresh,
                rows,
                intervalRows / (intervalNanos / 1e9),
                heap >> 20,
                residentMiB(),
                lastCheckpointMillis,
                maxCheckpointMillis,
                lastUploaded / 1048576.0,
                lastSize / 1048576.0,
                evictions);
        intervalRows = 0;
        intervalNanos = 0;
        maxCheckpointMillis = 0;
    }

    /** The process's resident memory (heap, RocksDB's native memory, the rest), from /proc. */
    private static long residentMiB() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) >> 10;
            }
        }
        return -1;
    }
}
