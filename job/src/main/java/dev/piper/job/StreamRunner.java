package dev.piper.job;

import dev.piper.feed.InputProbe;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs a stream job on the embedded cluster, reports its progress from its consumer group's
 * committed offsets, and, with {@code --until-idle}, stops it with a savepoint once the input has
 * been idle and fully consumed.
 */
public final class StreamRunner {

    /**
     * How a run ended: the savepoint it left (with {@code --until-idle}), the input records its
     * group committed, its duration, and when the committed offsets last reached the input's end.
     *
     * @param caughtUpSeconds seconds from the job's start to the watcher's first poll (each second)
     *     that found the group's committed offsets at the end offsets they last moved to: the
     *     moment the last input's rows were committed, read by a {@code read_committed} consumer
     *     (granularity: the checkpoint interval); {@code NaN} if they never caught up
     */
    public record Result(
            Optional<String> savepoint, long inputRecords, double seconds, double caughtUpSeconds) {

        /** A result whose input never caught up (or was not watched). */
        public Result(Optional<String> savepoint, long inputRecords, double seconds) {
            this(savepoint, inputRecords, seconds, Double.NaN);
        }

        /** Input records per second up to the moment they were all committed; NaN without it. */
        public double caughtUpRate() {
            return inputRecords / caughtUpSeconds;
        }
    }

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

    private static final Duration OWNER_CHECK = Duration.ofSeconds(10);

    /**
     * Why this stream must stop, if another stream has taken over one of its output topics ({@code
     * --take-over-output}, {@link dev.piper.feed.OutputClaims}): both would commit every block.
     * Empty while it owns them, or when the claims cannot be read now (the job itself meets a
     * broker that is down).
     */
    private static Optional<String> lostOutput(Configuration conf) {
        String checkpoints = conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        if (checkpoints == null || !checkpoints.startsWith("file:")) {
            return Optional.empty();
        }
        try {
            String us =
                    CheckpointDirectory.streamId(
                            Path.of(java.net.URI.create(checkpoints)).getParent());
            for (String topic : StreamPipelines.of(conf).outputTopics()) {
                var owner = StreamOptions.claims(conf, topic).owner(topic);
                if (owner.isPresent() && !owner.get().streamId().equals(us)) {
                    return Optional.of(
                            "output topic "
                                    + topic
                                    + " was taken over by "
                                    + owner.get().describe()
                                    + " (--take-over-output); this stream stopped so that no"
                                    + " block is committed twice: its output up to its last"
                                    + " completed checkpoint is committed");
                }
            }
        } catch (Exception e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * The cause of a failed stream job, to show on the terminal: the innermost cause, and, when the
     * job failed because its restarts were used up ({@link Streaming#RESTART_ATTEMPTS} in a row), a
     * sentence saying so, so that a permanent failure (a state file gone, a full disk) reads as one
     * rather than as a single mishap.
     */
    static Exception failure(ExecutionException e, Configuration conf) {
        Exception root = EmbeddedRunner.rootCause(e);
        for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && m.startsWith("Recovery is suppressed")) {
                boolean ours =
                        "exponential-delay"
                                .equals(conf.get(RestartStrategyOptions.RESTART_STRATEGY));
                return new IllegalStateException(
                        "the job failed "
                                + (ours
                                        ? conf.get(
                                                        RestartStrategyOptions
                                                                .RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS)
                                                + " times in a row"
                                        : "as often as its restart strategy allows")
                                + " and stopped restarting (a failure that every"
                                + " restart meets again); the last failure: "
                                + root.getClass().getSimpleName()
                                + ": "
                                + root.getMessage()
                                + checkpointsFailed(root, conf),
                        root);
            }
        }
        return root;
    }

    /**
     * For a job that failed because its checkpoints did (Flink's "Exceeded checkpoint tolerable
     * failure threshold", whose own cause stays in the log): where they were written and the space
     * left there, the usual cause (a full disk), and the log file that names the exception.
     */
    private static String checkpointsFailed(Throwable root, Configuration conf) {
        String m = root.getMessage();
        String checkpoints = conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        if (m == null
                || !m.startsWith("Exceeded checkpoint tolerable failure threshold")
                || checkpoints == null
                || !checkpoints.startsWith("file:")) {
            return "";
        }
        Path dir = Path.of(java.net.URI.create(checkpoints));
        String space;
        try {
            Path existing = dir;
            while (existing != null && !java.nio.file.Files.exists(existing)) {
                existing = existing.getParent();
            }
            long free =
                    existing == null
                            ? -1
                            : java.nio.file.Files.getFileStore(existing).getUsableSpace();
            space = free < 0 ? "unknown" : String.format("%,d MiB", free >> 20);
        } catch (IOException e) {
            space = "unknown (" + e.getMessage() + ")";
        }
        return " [checkpoints go to "
                + dir
                + ", where "
                + space
                + " are free; the log file "
                + System.getProperty(
                        "piper.log.file",
                        Path.of(System.getProperty("java.io.tmpdir"), "piper.log").toString())
                + " names each checkpoint's exception]";
    }

    /**
     * Where the run starts reading, as a sum of input offsets, for the count of records it read: a
     * restored run resumes where its snapshot's checkpoint committed the group's offsets; a fresh
     * one starts where {@link StreamOptions#START_FROM} says.
     */
    private static long startPosition(
            Configuration conf, InputProbe probe, InputProbe.Position first) {
        if (conf.getOptional(StateRecoveryOptions.SAVEPOINT_PATH).isPresent()) {
            return first.committed();
        }
        return switch (conf.get(StreamOptions.START_FROM)) {
            case earliest -> probe.earliest();
            case latest -> first.end();
            case committed -> first.committed();
        };
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
        // SIGTERM (or Ctrl-C, or a fatal error that exits the JVM) ends the process with no word
        // from Flink: say what is committed.
        AtomicLong read = new AtomicLong();
        Thread hook =
                new Thread(
                        () ->
                                progress.printf(
                                        "stream: stopped by a signal (or a fatal error, in"
                                                + " the log file); the output is committed as of"
                                                + " the last completed checkpoint (%,d input"
                                                + " records of this run as of the last look);"
                                                + " run again with the same --checkpoint-dir to"
                                                + " resume from it%n",
                                        read.get()),
                        "piper-stream-stopped");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return run(job, conf, untilIdle, progress, read);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs
            }
        }
    }

    private static Result run(
            StreamJob job,
            Configuration conf,
            Duration untilIdle,
            PrintStream progress,
            AtomicLong read)
            throws Exception {
        StreamExecutionEnvironment env = EmbeddedRunner.environment(conf, job::build);
        long start = System.nanoTime();
        try (InputProbe probe = StreamTopics.probe(conf)) {
            InputProbe.Position first = probe.poll();
            JobClient client = env.executeAsync(JobNames.stream(conf));
            progress.printf("stream: job %s running%n", client.getJobID());
            Watch watch = new Watch(conf, progress, client, probe, first, start);
            while (true) {
                Optional<Result> ended = watch.ended();
                if (ended.isPresent()) {
                    return ended.get();
                }
                seal(conf, progress);
                watch.checkOwner();
                InputProbe.Position at = watch.poll();
                if (at == null) {
                    continue; // the job retries on its own; the watcher reports and tries again
                }
                read.set(at.committed() - watch.startCommitted);
                watch.observe(at);
                if (untilIdle != null && watch.idle(untilIdle, at)) {
                    Optional<Result> stopped = watch.stop(untilIdle);
                    if (stopped.isPresent()) {
                        return stopped.get();
                    }
                }
            }
        }
    }

    /**
     * The embedded stream's watcher: it says how far the input is consumed, stops the job when
     * another stream took its output, and with {@code --until-idle} stops it with a savepoint once
     * the input has been idle and consumed.
     */
    private static final class Watch {
        private final Configuration conf;
        private final PrintStream progress;
        private final JobClient client;
        private final CompletableFuture<JobExecutionResult> result;
        private final InputProbe probe;
        private final long start;
        final long startCommitted;
        private long lastEnd;
        private long lastChange = System.nanoTime();
        private long lastReport = System.nanoTime();
        private long lastCommitted;
        private long lastOwnerCheck = System.nanoTime();
        private long caughtUpAt = -1;
        private long caughtUpCommitted = -1;

        Watch(
                Configuration conf,
                PrintStream progress,
                JobClient client,
                InputProbe probe,
                InputProbe.Position first,
                long start) {
            this.conf = conf;
            this.progress = progress;
            this.client = client;
            this.result = client.getJobExecutionResult();
            this.probe = probe;
            this.start = start;
            this.lastEnd = first.end();
            this.lastCommitted = first.committed();
            this.startCommitted = startPosition(conf, probe, first);
        }

        /** The run's result once the job has finished (within {@code POLL}); its failure thrown. */
        Optional<Result> ended() throws Exception {
            try {
                result.get(POLL.toMillis(), TimeUnit.MILLISECONDS);
                return Optional.of(result(Optional.empty()));
            } catch (TimeoutException e) {
                return Optional.empty(); // still running
            } catch (ExecutionException e) {
                throw failure(e, conf);
            }
        }

        private Result result(Optional<String> savepoint) {
            return new Result(
                    savepoint,
                    probe.poll().committed() - startCommitted,
                    (System.nanoTime() - start) / 1e9,
                    caughtUpAt < 0 ? Double.NaN : (caughtUpAt - start) / 1e9);
        }

        /** Every {@code OWNER_CHECK}: cancels the job and says why if its output was taken. */
        void checkOwner() throws Exception {
            if (System.nanoTime() - lastOwnerCheck < OWNER_CHECK.toNanos()) {
                return;
            }
            lastOwnerCheck = System.nanoTime();
            Optional<String> lost = lostOutput(conf);
            if (lost.isPresent()) {
                client.cancel().get(1, TimeUnit.MINUTES);
                throw new IllegalStateException(lost.get());
            }
        }

        /** The input's position, or {@code null} when it cannot be read now (said once a while). */
        InputProbe.Position poll() {
            try {
                return probe.poll();
            } catch (IllegalStateException e) {
                long now = System.nanoTime();
                if (now - lastReport >= REPORT.toNanos()) {
                    progress.printf("stream: cannot watch the input: %s%n", e.getMessage());
                    lastReport = now;
                }
                lastChange = now;
                return null;
            }
        }

        /** Notes whether the input grew, and says every {@code REPORT} how far it is consumed. */
        void observe(InputProbe.Position at) {
            long now = System.nanoTime();
            if (at.end() != lastEnd) {
                lastEnd = at.end();
                lastChange = now;
            }
            if (at.caughtUp() && at.committed() != caughtUpCommitted) {
                caughtUpAt = now;
                caughtUpCommitted = at.committed();
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
        }

        /** Whether no input has arrived for {@code untilIdle} and all of it is consumed. */
        boolean idle(Duration untilIdle, InputProbe.Position at) {
            return System.nanoTime() - lastChange >= untilIdle.toNanos()
                    && (at.caughtUp() || probe.nothingToReadFrom(at.behind()));
        }

        /**
         * Stops the job with a savepoint, all output committed: the run's result, or nothing when
         * the savepoint cannot be taken now (the job is restarting), to try again after another
         * idle {@code untilIdle}.
         */
        Optional<Result> stop(Duration untilIdle) throws Exception {
            progress.printf(
                    "stream: no input for %d s and all of it consumed; stopping with a"
                            + " savepoint%n",
                    untilIdle.toSeconds());
            String savepoint;
            try {
                savepoint =
                        client.stopWithSavepoint(
                                        false,
                                        conf.get(CheckpointingOptions.SAVEPOINT_DIRECTORY),
                                        SavepointFormatType.CANONICAL)
                                .get(10, TimeUnit.MINUTES);
            } catch (ExecutionException | IllegalStateException e) {
                // A job that has ended meanwhile refuses the stop, and its embedded cluster may
                // be shut down already ("MiniCluster is not yet running"): the job's own end, its
                // cause rather than the stop's, is the run's.
                Optional<Result> ended = ended();
                if (ended.isPresent()) {
                    return ended;
                }
                // Not every task is running (the job is restarting): the savepoint cannot be
                // taken now. Watch on; a job that cannot run fails on its own.
                progress.printf(
                        "stream: the savepoint could not be taken now (%s); trying again once the"
                                + " input has been idle for %d s more%n",
                        e instanceof ExecutionException x
                                ? EmbeddedRunner.rootCause(x).getMessage()
                                : e.getMessage(),
                        untilIdle.toSeconds());
                lastChange = System.nanoTime();
                return Optional.empty();
            }
            try {
                result.get(2, TimeUnit.MINUTES);
            } catch (ExecutionException e) {
                throw failure(e, conf);
            }
            progress.printf("stream: savepoint %s%n", savepoint);
            seal(conf, progress);
            return Optional.of(result(Optional.of(savepoint)));
        }
    }
}
