package dev.piper.job;

import dev.piper.connectors.files.ControlFiles;
import dev.piper.connectors.kafka.InputProbe;
import dev.piper.connectors.kafka.KafkaConnectors;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.operators.cost.ReportSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The Kafka stream run of {@code bin/piper stream}: configuration, topics, where to resume, and a
 * runner that reports progress and, with {@code --until-idle}, stops the job with a savepoint once
 * the input has been idle and fully consumed.
 */
public final class Streaming {

    /** Subdirectories of the checkpoint directory. */
    static final String CHECKPOINTS = "checkpoints";

    static final String SAVEPOINTS = "savepoints";

    private static final String METADATA = "_metadata";
    private static final Duration POLL = Duration.ofSeconds(1);
    private static final Duration REPORT = Duration.ofSeconds(5);

    /** How a run ended: the savepoint it left (with {@code --until-idle}) and its duration. */
    public record Result(Optional<String> savepoint, long inputRecords, double seconds) {}

    private Streaming() {}

    /**
     * The runtime configuration of a stream run on the embedded cluster: the batch settings plus
     * {@link #checkpointing}.
     */
    public static Configuration configuration(
            int parallelism, StateBackend backend, Path checkpointDir, Duration interval) {
        Configuration conf = EmbeddedRunner.configuration(parallelism, backend);
        conf.addAll(checkpointing(checkpointDir, interval));
        return conf;
    }

    /**
     * The stream's own settings, on any cluster: exactly-once checkpoints every {@code interval}
     * into {@code checkpointDir}/checkpoints (the latest one retained when the job stops or dies),
     * savepoints into {@code checkpointDir}/savepoints, restarts with exponential delay.
     */
    public static Configuration checkpointing(Path checkpointDir, Duration interval) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
        conf.set(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
                Duration.ofMillis(500));
        conf.set(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
                Duration.ofSeconds(30));
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
        conf.set(
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                CheckpointingMode.EXACTLY_ONCE);
        conf.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                checkpointDir.resolve(CHECKPOINTS).toUri().toString());
        conf.set(
                CheckpointingOptions.SAVEPOINT_DIRECTORY,
                checkpointDir.resolve(SAVEPOINTS).toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1);
        return conf;
    }

    /**
     * Restores the run from {@code snapshot} (a checkpoint or savepoint directory). A snapshot of
     * the run's own checkpoint directory is claimed (Flink may delete it once a newer one exists);
     * a savepoint given by the user is left alone.
     */
    public static void restoreFrom(Configuration conf, Path snapshot, boolean claim) {
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, snapshot.toUri().toString());
        conf.set(
                StateRecoveryOptions.RESTORE_MODE,
                claim ? RecoveryClaimMode.CLAIM : RecoveryClaimMode.NO_CLAIM);
    }

    /**
     * The most recent complete snapshot in {@code checkpointDir}: the newest {@code _metadata} of a
     * retained checkpoint ({@code checkpoints/<job>/chk-<n>}) or savepoint ({@code
     * savepoints/savepoint-...}). A checkpoint being written when the process died has no {@code
     * _metadata} and is skipped.
     */
    public static Optional<Path> latestSnapshot(Path checkpointDir) throws IOException {
        List<Path> found = new ArrayList<>();
        for (String sub : List.of(CHECKPOINTS, SAVEPOINTS)) {
            Path root = checkpointDir.resolve(sub);
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(root, 3)) {
                walk.filter(p -> p.getFileName().toString().equals(METADATA))
                        .filter(Files::isRegularFile)
                        .forEach(found::add);
            }
        }
        Comparator<Path> newest =
                Comparator.comparing(
                        p -> {
                            try {
                                return Files.getLastModifiedTime(p);
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        });
        return found.stream().max(newest).map(Path::getParent);
    }

    /**
     * The savepoint directory of the stream whose checkpoint is at {@code checkpointPath} (a URI
     * such as {@code file:/data/ckpt/checkpoints/<job>/chk-12}, as Flink reports it): {@code
     * savepoints} beside {@code checkpoints} in its checkpoint directory, where the next run looks
     * for the snapshot to resume from. Empty if the path is not laid out that way.
     */
    public static Optional<String> savepointDirectoryOf(String checkpointPath) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile(
                                "(.*)/" + CHECKPOINTS + "/[0-9a-f]{32}/chk-[0-9]+/?")
                        .matcher(checkpointPath);
        return m.matches() ? Optional.of(m.group(1) + "/" + SAVEPOINTS) : Optional.empty();
    }

    /**
     * Removes the snapshots in {@code checkpointDir} that {@code keep} supersedes: the directories
     * of earlier jobs' checkpoints (a job's directory goes whole, with its shared state, unless it
     * holds {@code keep}) and savepoints older than {@code keep}. Restoring any of them would
     * replay input whose output is already committed; removing them keeps the directory from
     * growing by one retained checkpoint per restart.
     *
     * @return the removed directories
     */
    public static List<Path> pruneSuperseded(Path checkpointDir, Path keep) throws IOException {
        FileTime kept = Files.getLastModifiedTime(keep.resolve(METADATA));
        List<Path> removed = new ArrayList<>();
        for (String sub : List.of(CHECKPOINTS, SAVEPOINTS)) {
            Path root = checkpointDir.resolve(sub);
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> entries = Files.list(root)) {
                for (Path entry : entries.sorted().toList()) {
                    if (keep.startsWith(entry) || !newestMetadataBefore(entry, kept)) {
                        continue;
                    }
                    Preprocess.deleteRecursively(entry);
                    removed.add(entry);
                }
            }
        }
        return removed;
    }

    /** Whether every {@code _metadata} under {@code dir} (there may be none) is older than t. */
    private static boolean newestMetadataBefore(Path dir, FileTime t) throws IOException {
        try (Stream<Path> walk = Files.walk(dir, 2)) {
            for (Path p : walk.filter(p -> p.getFileName().toString().equals(METADATA)).toList()) {
                if (Files.getLastModifiedTime(p).compareTo(t) >= 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Takes {@code checkpointDir}'s lock for the life of this process, so that two streams never
     * share a checkpoint directory (their snapshots would overwrite each other's history).
     *
     * @throws IllegalStateException if another process holds it
     */
    public static void lock(Path checkpointDir) throws IOException {
        FileChannel channel =
                FileChannel.open(
                        checkpointDir.resolve(".lock"),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        if (lock == null) {
            channel.close();
            throw new IllegalStateException(
                    checkpointDir + " is in use by another piper stream (its .lock is held)");
        }
        LOCKS.add(lock); // held until the process exits
    }

    private static final List<FileLock> LOCKS = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The file in a checkpoint directory naming the pipelines its snapshots hold. */
    static final String PIPELINES_FILE = "pipelines.txt";

    /**
     * Checks that {@code pipelines} can use the snapshots in {@code checkpointDir}, recording them
     * there on first use ({@code pipelines.txt}: per pipeline its name, starting version and a
     * fingerprint of its column chains). Lanes and vocabulary keys come from the pipelines'
     * indices, and each vocabulary's ids from its column's chain, so a directory serves one set of
     * pipelines with the same chains for its life. A new starting spec whose chains are unchanged
     * (another version, other padding or line limit) is accepted.
     *
     * @throws IllegalArgumentException if its snapshots were taken with other pipelines, or with
     *     other column chains
     */
    public static void checkPipelines(Path checkpointDir, StreamPipelines pipelines)
            throws IOException {
        Path file = checkpointDir.resolve(PIPELINES_FILE);
        List<String> lines = new ArrayList<>();
        for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
            lines.add(p.name() + "\t" + p.start().version() + "\t" + chainsFingerprint(p));
        }
        if (Files.exists(file)) {
            List<String> recorded = Files.readAllLines(file);
            boolean single = recorded.size() == 1 && lines.size() == 1;
            boolean sameNames = recorded.size() == lines.size();
            for (int i = 0; sameNames && i < lines.size(); i++) {
                sameNames = field(recorded.get(i), 0).equals(field(lines.get(i), 0));
            }
            // One pipeline is always index 0, whatever its name.
            if (!single && !sameNames) {
                throw new IllegalArgumentException(
                        "--checkpoint-dir "
                                + checkpointDir
                                + " holds the state of pipelines "
                                + recorded.stream().map(l -> field(l, 0)).toList()
                                + ", not "
                                + pipelines.names()
                                + "; a job's pipelines are fixed for the life of its checkpoint"
                                + " directory (their state is keyed by position): use a new one");
            }
            for (int i = 0; i < lines.size(); i++) {
                String was = field(recorded.get(i), 2);
                if (!was.isEmpty() && !was.equals(field(lines.get(i), 2))) {
                    throw new IllegalArgumentException(
                            "--checkpoint-dir "
                                    + checkpointDir
                                    + " holds the state of pipeline "
                                    + field(recorded.get(i), 0)
                                    + "/"
                                    + field(recorded.get(i), 1)
                                    + ", whose column chains differ from "
                                    + pipelines.get(i).name()
                                    + "/"
                                    + pipelines.get(i).start().version()
                                    + "'s: its vocabularies would mix two id spaces. Switch a"
                                    + " running stream with --control-topic (docs/SPECS.md), or"
                                    + " start this spec with a new checkpoint directory");
                }
            }
        }
        Files.write(file, lines);
    }

    private static String field(String line, int i) {
        String[] parts = line.split("\t", -1);
        return i < parts.length ? parts[i] : "";
    }

    /** A short hash of every column's chain, the part of a spec that defines its ids. */
    static String chainsFingerprint(StreamPipelines.Pipeline p) {
        var program = dev.piper.pipeline.spec.SpecCompiler.program(p.start().spec());
        StringBuilder chains = new StringBuilder();
        for (int f = 0; f < program.layout().fields(); f++) {
            chains.append(program.chainOf(f)).append(';');
        }
        try {
            byte[] digest =
                    java.security.MessageDigest.getInstance("SHA-256")
                            .digest(chains.toString().getBytes(StandardCharsets.UTF_8));
            return "chains-sha256:" + java.util.HexFormat.of().formatHex(digest, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The stream job described by {@code conf} ({@link StreamOptions}, {@link PiperOptions}). */
    public static StreamJob job(Configuration conf) {
        StreamPipelines pipelines = StreamPipelines.of(conf);
        String bootstrap = StreamOptions.required(conf, StreamOptions.BOOTSTRAP_SERVERS);
        Map<String, String> props = StreamOptions.kafkaProperties(conf);
        var source =
                KafkaConnectors.source(
                        bootstrap,
                        pipelines.inputTopics(),
                        pipelines.pipelineOfTopic(),
                        StreamOptions.groupId(conf),
                        conf.get(StreamOptions.START_FROM),
                        props);
        var sink =
                KafkaConnectors.sink(
                        bootstrap,
                        pipelines.sinkTopics(),
                        StreamOptions.transactionalIdPrefix(conf),
                        props);
        StreamJob.Chunking chunking =
                new StreamJob.Chunking(
                        conf.get(PiperOptions.BLOCK_BYTES),
                        conf.get(StreamOptions.BLOCK_LINES),
                        Math.max(1, conf.get(StreamOptions.LINGER).toMillis()));
        StreamJob job =
                new StreamJob(
                        source, sink, pipelines, conf.get(PiperOptions.MAX_RAW_BYTES), chunking);
        Optional<String> control = conf.getOptional(StreamOptions.CONTROL_TOPIC);
        Optional<String> controlDir = conf.getOptional(StreamOptions.CONTROL_DIR);
        if (control.isPresent() && controlDir.isPresent()) {
            throw new IllegalArgumentException(
                    StreamOptions.CONTROL_DIR.key()
                            + " and "
                            + StreamOptions.CONTROL_TOPIC.key()
                            + " are both set; a job has one control stream");
        }
        if (controlDir.isPresent()) {
            job.withControl(
                    new StreamJob.Control(
                            ControlFiles.source(
                                    java.nio.file.Path.of(controlDir.get()), Duration.ofSeconds(1)),
                            ControlFiles.statusSink(StreamOptions.statusDir(conf).orElseThrow())));
        }
        if (control.isPresent()) {
            job.withControl(
                    new StreamJob.Control(
                            KafkaConnectors.controlSource(
                                    bootstrap,
                                    control.get(),
                                    StreamOptions.groupId(conf) + "-control",
                                    props),
                            KafkaConnectors.statusSink(
                                    bootstrap,
                                    StreamOptions.statusTopic(conf).orElseThrow(),
                                    // Not an extension of the output's prefix, which a
                                    // prefix-listing abort of that sink would match.
                                    "status-" + StreamOptions.transactionalIdPrefix(conf),
                                    props)));
        }
        Optional<String> reportTopic = conf.getOptional(StreamOptions.REPORT_TOPIC);
        if (reportTopic.isPresent()) {
            ReportSettings settings = ReportOptions.settings(conf);
            if (settings == null) {
                throw new IllegalArgumentException(
                        StreamOptions.REPORT_TOPIC.key()
                                + " is set but "
                                + ReportOptions.ENABLED.key()
                                + " is false");
            }
            job.withReport(
                    settings, KafkaConnectors.reportSink(bootstrap, reportTopic.get(), props));
        }
        return job;
    }

    /**
     * Checks that the input topics exist and creates missing output topics: each pipeline's rows
     * and dead letters with as many partitions as its input, vocabulary, control and status topics
     * with one (so each column's entries, and specs, keep their order), all with the broker's
     * default replication.
     *
     * @throws IllegalArgumentException naming an input topic that does not exist
     */
    public static void prepareTopics(Configuration conf, PrintStream progress) throws Exception {
        StreamPipelines pipelines = StreamPipelines.of(conf);
        try (InputProbe probe = probe(conf)) {
            Set<String> existing =
                    probe.await("listing topics", probe.admin().listTopics().names());
            for (String input : pipelines.inputTopics()) {
                if (!existing.contains(input)) {
                    throw new IllegalArgumentException(
                            "input topic "
                                    + input
                                    + " does not exist on "
                                    + conf.get(StreamOptions.BOOTSTRAP_SERVERS));
                }
            }
            List<NewTopic> missing = new ArrayList<>();
            Set<String> planned = new java.util.HashSet<>();
            for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
                int partitions = probe.partitions(p.inputTopic());
                for (String topic : List.of(p.outputTopic(), p.deadLetterTopic())) {
                    if (!existing.contains(topic) && planned.add(topic)) {
                        missing.add(new NewTopic(topic, Optional.of(partitions), Optional.empty()));
                    }
                }
                if (p.vocabTopic() != null
                        && !existing.contains(p.vocabTopic())
                        && planned.add(p.vocabTopic())) {
                    missing.add(new NewTopic(p.vocabTopic(), Optional.of(1), Optional.empty()));
                }
            }
            for (Optional<String> single :
                    List.of(
                            conf.getOptional(StreamOptions.CONTROL_TOPIC),
                            StreamOptions.statusTopic(conf),
                            conf.getOptional(StreamOptions.REPORT_TOPIC))) {
                single.filter(t -> !existing.contains(t) && planned.add(t))
                        .ifPresent(
                                t ->
                                        missing.add(
                                                new NewTopic(t, Optional.of(1), Optional.empty())));
            }
            if (!missing.isEmpty()) {
                probe.await("creating topics", probe.admin().createTopics(missing).all());
                for (NewTopic t : missing) {
                    progress.printf(
                            "stream: created topic %s (%d partitions)%n",
                            t.name(), t.numPartitions());
                }
            }
        }
    }

    static InputProbe probe(Configuration conf) {
        return new InputProbe(
                StreamOptions.required(conf, StreamOptions.BOOTSTRAP_SERVERS),
                StreamOptions.kafkaProperties(conf),
                StreamPipelines.of(conf).inputTopics(),
                StreamOptions.groupId(conf));
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
        try (InputProbe probe = probe(conf)) {
            InputProbe.Position first = probe.poll();
            JobClient client = env.executeAsync("stream");
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
                    return new Result(
                            Optional.of(savepoint),
                            probe.poll().committed() - startCommitted,
                            (System.nanoTime() - start) / 1e9);
                }
            }
        }
    }
}
