package dev.piper.job;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.SecurityOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs a job on an embedded MiniCluster, reporting progress on stderr while it runs. Inside a test
 * with a {@code MiniClusterExtension}, the job runs on that shared cluster instead.
 */
public final class EmbeddedRunner {

    /** State backends {@code --state-backend} accepts. */
    public enum StateBackend {
        hashmap,
        rocksdb
    }

    private static final Duration QUIET = Duration.ofSeconds(3);
    private static final Duration INTERVAL = Duration.ofSeconds(2);

    private EmbeddedRunner() {}

    /**
     * The configuration every piper job runs with: no Kryo fallback, no restarts (a bounded
     * preprocess fails fast; streaming jobs set their own strategy), the chosen state backend and
     * parallelism; a null one is left to the cluster's configuration (a job submitted to a Flink
     * cluster sets only what its arguments name).
     */
    public static Configuration jobConfiguration(Integer parallelism, StateBackend backend) {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        if (parallelism != null) {
            conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        }
        if (backend != null) {
            conf.set(StateBackendOptions.STATE_BACKEND, backend.name());
            conf.addAll(backendConfiguration(backend));
        }
        return conf;
    }

    /**
     * What a backend needs besides its name. RocksDB: incremental checkpoints (a checkpoint uploads
     * the files written since the last, not every vocabulary entry again) and bloom filters (a new
     * key's lookup in {@code piper.vocab.store: entries} finds nothing, and a filter says so
     * without reading a file; without them a growing column fell to 66k rows/s within 0.4M keys,
     * docs/PERFORMANCE.md).
     */
    public static Configuration backendConfiguration(StateBackend backend) {
        Configuration conf = new Configuration();
        if (backend == StateBackend.rocksdb) {
            conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
            conf.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true);
        }
        return conf;
    }

    /**
     * The configuration of a job on the embedded cluster: {@link #jobConfiguration} plus the task
     * manager's network buffer size, which a real cluster sets in its own configuration ({@code
     * piper cluster start} sets the same). The network memory is sized to the job when it is built
     * ({@link NetworkMemory#sizeFor}).
     */
    public static Configuration configuration(int parallelism, StateBackend backend) {
        Configuration conf = jobConfiguration(parallelism, backend);
        conf.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, SEGMENT_SIZE);
        // The Hadoop client jars (for Parquet) would make the embedded cluster look for Hadoop
        // delegation tokens and warn that it finds no Hadoop configuration; it needs none.
        conf.set(SecurityOptions.DELEGATION_TOKENS_ENABLED, false);
        return conf;
    }

    /**
     * Network buffers for blocks. Blocks are records of up to about a megabyte. With Flink's 32 KiB
     * network buffers a block spans dozens of buffers and neighbouring tasks take turns instead of
     * overlapping (measured: 10M rows at parallelism 1, ~400k rows/s); 256 KiB buffers hold most
     * blocks whole (~630k rows/s).
     */
    static final MemorySize SEGMENT_SIZE = MemorySize.parse("256kb");

    /**
     * The network settings of a cluster with {@code parallelism} slots, which runs jobs it does not
     * know in advance: {@link #SEGMENT_SIZE} buffers, and memory that grows with the channels,
     * about p^2 per edge.
     */
    public static Configuration networkConfiguration(int parallelism) {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, SEGMENT_SIZE);
        MemorySize network = MemorySize.ofMebiBytes(Math.max(128, 8L * parallelism * parallelism));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, network);
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, network);
        return conf;
    }

    /**
     * The environment of a job on the embedded cluster: {@code conf} applied, its parallelism set,
     * the job built into it by {@code build}, and the cluster's network memory sized to that job
     * ({@link NetworkMemory#sizeFor}); ready to execute.
     */
    static StreamExecutionEnvironment environment(
            Configuration conf, Consumer<StreamExecutionEnvironment> build) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.configure(conf);
        env.setParallelism(conf.get(CoreOptions.DEFAULT_PARALLELISM));
        build.accept(env);
        NetworkMemory.sizeFor(env, conf);
        return env;
    }

    /**
     * Runs the preprocess job built by {@code job} as Flink job {@code name} ({@link JobNames}) and
     * waits for it. While it runs longer than a few seconds, prints {@code rowsDone} and its rate
     * to {@code progress} every two seconds.
     */
    public static JobExecutionResult run(
            PreprocessJob job,
            Configuration conf,
            String name,
            LongSupplier rowsDone,
            PrintStream progress)
            throws Exception {
        JobClient client = environment(conf, job::build).executeAsync(name);
        CompletableFuture<JobExecutionResult> result = client.getJobExecutionResult();
        long start = System.nanoTime();
        long lastReport = start;
        long lastRows = 0;
        while (true) {
            try {
                return result.get(200, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                long now = System.nanoTime();
                if (now - start >= QUIET.toNanos() && now - lastReport >= INTERVAL.toNanos()) {
                    long rows = rowsDone.getAsLong();
                    progress.println(
                            progressLine(
                                    "preprocess",
                                    rows,
                                    lastRows,
                                    (now - lastReport) / 1e9,
                                    (now - start) / 1e9));
                    lastReport = now;
                    lastRows = rows;
                }
            } catch (ExecutionException e) {
                throw rootCause(e);
            }
        }
    }

    /**
     * One progress line: {@code rows} written after {@code elapsed} seconds, and the rate since the
     * last line ({@code lastRows}, {@code interval} seconds ago). A count below the last one means
     * the writer started again (the job restarted after a failure): no rate is made of it.
     */
    static String progressLine(
            String name, long rows, long lastRows, double interval, double elapsed) {
        if (rows < lastRows) {
            return String.format(
                    "%s: %,d rows written (the writer restarted, from %,d), %.0f s",
                    name, rows, lastRows, elapsed);
        }
        return String.format(
                "%s: %,d rows written, %,.0f rows/s, %.0f s",
                name, rows, (rows - lastRows) / interval, elapsed);
    }

    /** The innermost cause of a failed job, as an exception to rethrow. */
    static Exception rootCause(ExecutionException e) {
        Throwable t = e;
        java.util.List<Throwable> chain = new java.util.ArrayList<>();
        while (t != null && !chain.contains(t) && chain.size() < 64) {
            chain.add(t);
            t = t.getCause();
        }
        Throwable root = chain.get(chain.size() - 1);
        // The outermost of the exceptions of the root's class that only add context to its
        // message (a file's path before "No space left on device"); Flink's wrappers say less.
        String rootText = root.getMessage();
        Throwable best = root;
        for (int i = chain.size() - 2; i >= 0 && rootText != null; i--) {
            Throwable c = chain.get(i);
            String m = c.getMessage();
            if (c.getClass() != root.getClass() || m == null || !m.endsWith(": " + rootText)) {
                break;
            }
            best = c;
        }
        return best instanceof Exception ? (Exception) best : new RuntimeException(best);
    }
}
