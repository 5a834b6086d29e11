package dev.piper.job;

import dev.piper.connectors.kafka.InputProbe;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs a stream job on the embedded cluster, reports its progress from its consumer group's
 * committed offsets, and, with {@code --until-idle}, stops it with a savepoint once the input has
 * been idle and fully consumed.
 */
public final class StreamRunner {

    /** How a run ended: the savepoint it left (with {@code --until-idle}) and its duration. */
    public record Result(Optional<String> savepoint, long inputRecords, double seconds) {}

    private static final Duration POLL = Duration.ofSeconds(1);
    private static final Duration REPORT = Duration.ofSeconds(5);

    private StreamRunner() {}

    /**
     * Seals the latest snapshot of the job's checkpoint directory ({@link
     * CheckpointDirectory#sealLatest}), if it has one (a local file system); a failure is reported
     * and the run goes on (an unsealed snapshot is restored unchecked).
     */
    private static void seal(Configuration conf, PrintStream progress) {
        String checkpoints = conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        if (checkpoints == null || !checkpoints.startsWith("file:")) {
            return;
        }
        try {
            Path dir = Path.of(java.net.URI.create(checkpoints)).getParent();
            CheckpointDirectory.sealLatest(dir);
        } catch (IOException | RuntimeException e) {
            progress.printf("stream: cannot seal the latest snapshot: %s%n", e);
        }
    }

    /**
     * Runs {@code job} with {@code conf} until it ends: never for an endless stream, or, with
     * {@code untilIdle}, once no input record has arrived for that long and the job has consumed
     * every record (as of a completed checkpoint); it then stops with a savepoint, which commits
     * all output, and returns.
     */
    public static Result run(
            StreamJob job, Configuration conf, Duration untilIdle, PrintStream progress)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.configure(conf);
        env.setParallelism(conf.get(CoreOptions.DEFAULT_PARALLELISM));
        job.build(env);
        long start = System.nanoTime();
        try (InputProbe probe = StreamTopics.probe(conf)) {
            InputProbe.Position first = probe.poll();
            JobClient client = env.executeAsync(JobNames.stream(conf));
            progress.printf("stream: job %s running%n", client.getJobID());
            CompletableFuture<JobExecutionResult> result = client.getJobExecutionResult();
            long lastEnd = first.end();
            long lastChange = System.nanoTime();
            long lastReport = System.nanoTime();
            long lastCommitted = first.committed();
            long startCommitted = first.committed();
            while (true) {
                try {
                    result.get(POLL.toMillis(), TimeUnit.MILLISECONDS);
                    return new Result(
                            Optional.empty(),
                            probe.poll().committed() - startCommitted,
                            (System.nanoTime() - start) / 1e9);
                } catch (TimeoutException e) {
                    // still running
                } catch (ExecutionException e) {
                    throw EmbeddedRunner.rootCause(e);
                }
                seal(conf, progress);
                InputProbe.Position at;
                try {
                    at = probe.poll();
                } catch (IllegalStateException e) {
                    // The job retries on its own; the watcher only reports and tries again.
                    long now = System.nanoTime();
                    if (now - lastReport >= REPORT.toNanos()) {
                        progress.printf("stream: cannot watch the input: %s%n", e.getMessage());
                        lastReport = now;
                    }
                    lastChange = now;
                    continue;
                }
                long now = System.nanoTime();
                if (at.end() != lastEnd) {
                    lastEnd = at.end();
                    lastChange = now;
                }
                if (now - lastReport >= REPORT.toNanos()) {
                    double rate = (at.committed() - lastCommitted) / ((now - lastReport) / 1e9);
                    progress.printf(
                            "stream: %,d input records consumed (as of the last checkpoint),"
                                    + " lag %,d, %,.0f records/s%n",
                            at.committed(), at.lag(), rate);
                    lastReport = now;
                    lastCommitted = at.committed();
                }
                if (untilIdle != null
                        && now - lastChange >= untilIdle.toNanos()
                        && (at.caughtUp() || probe.nothingToReadFrom(at.behind()))) {
                    progress.printf(
                            "stream: no input for %d s and all of it consumed; stopping with a"
                                    + " savepoint%n",
                            untilIdle.toSeconds());
                    String savepoint =
                            client.stopWithSavepoint(
                                            false,
                                            conf.get(CheckpointingOptions.SAVEPOINT_DIRECTORY),
                                            SavepointFormatType.CANONICAL)
                                    .get(10, TimeUnit.MINUTES);
                    try {
                        result.get(2, TimeUnit.MINUTES);
                    } catch (ExecutionException e) {
                        throw EmbeddedRunner.rootCause(e);
                    }
                    progress.printf("stream: savepoint %s%n", savepoint);
                    seal(conf, progress);
                    return new Result(
                            Optional.of(savepoint),
                            probe.poll().committed() - startCommitted,
                            (System.nanoTime() - start) / 1e9);
                }
            }
        }
    }
}
