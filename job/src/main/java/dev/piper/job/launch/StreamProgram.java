package dev.piper.job.launch;

import dev.piper.connectors.kafka.KafkaConnectors;
import dev.piper.core.block.FastForward;
import dev.piper.feed.CommittedTail;
import dev.piper.feed.OutputClaims;
import dev.piper.feed.OutputPastSnapshot;
import dev.piper.job.CheckpointDirectory;
import dev.piper.job.JobNames;
import dev.piper.job.PiperOptions;
import dev.piper.job.ReportOptions;
import dev.piper.job.StreamOptions;
import dev.piper.job.StreamPipelines;
import dev.piper.job.StreamRunner;
import dev.piper.job.StreamTopics;
import dev.piper.job.Streaming;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import dev.piper.job.args.JobOption;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.spec.SpecException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;

/**
 * The {@code stream} job's program: from its arguments to a stream ready to run, the same for
 * {@code piper stream} (which runs it on an embedded cluster) and for the job jar on a Flink
 * cluster ({@link JobMain}, which submits it there). Getting ready chooses where the stream starts
 * (the cluster's savepoint, {@code --from-savepoint}, the latest snapshot of {@code
 * --checkpoint-dir}), checks its pipelines, waits for the broker and the input topics, creates the
 * output topics and claims them.
 */
public final class StreamProgram {

    /** The job's name among the job jar's programs. */
    public static final String NAME = "stream";

    /** Every option of the job. */
    public static final List<JobOption> OPTIONS = StreamArgs.OPTIONS;

    private final StreamArgs a;
    private final boolean onCluster;

    /** The checkpoint directory's lock, held by an embedded run while it runs its stream. */
    private CheckpointDirectory.Lock lock;

    /** Whether no snapshot is restored: the run starts from --start-from, if nothing forbids. */
    private boolean fresh;

    /** The snapshot restored, where this machine can read it; null for none or another's. */
    private Path restored;

    /** The latest snapshot of the checkpoint directory, resumed from; null for another start. */
    private Path resumed;

    private StreamProgram(StreamArgs a, boolean onCluster) {
        this.a = a;
        this.onCluster = onCluster;
    }

    /**
     * A stream ready to run: its job's configuration and, for an embedded run, the lock of its
     * checkpoint directory, held until this is closed.
     *
     * @param untilIdle {@code --until-idle}, or {@code null}
     */
    public record Ready(
            Configuration conf,
            Duration untilIdle,
            CheckpointDirectory.Lock lock,
            FastForward fastForward)
            implements AutoCloseable {
        @Override
        public void close() throws IOException {
            if (lock != null) {
                lock.close();
            }
        }
    }

    /**
     * Checks the arguments and gets the stream ready to run here ({@code onCluster} false: on an
     * embedded cluster, holding its checkpoint directory) or on the cluster this program runs on;
     * what it does goes to {@code err}.
     *
     * @throws JobArgumentException naming the first bad argument
     */
    public static Ready prepare(JobArgs args, boolean onCluster, PrintStream err) throws Exception {
        StreamProgram p = new StreamProgram(new StreamArgs(args), onCluster);
        try {
            return p.prepare(err);
        } catch (Exception | Error e) {
            if (p.lock != null) {
                try {
                    p.lock.close();
                } catch (IOException closing) {
                    e.addSuppressed(closing);
                }
            }
            throw e;
        }
    }

    /** Submits a stream made ready on the cluster this program runs on; says so on {@code out}. */
    public static JobID submit(Ready ready, PrintStream out) throws Exception {
        JobID id =
                OnCluster.submit(
                        Streaming.job(ready.conf(), ready.fastForward())::build,
                        ready.conf(),
                        JobNames.stream(ready.conf()));
        out.printf("stream: job %s submitted%n", id);
        return id;
    }

    /** Runs a stream made ready here on an embedded cluster, until stopped or idle. */
    public static StreamRunner.Result run(Ready ready, PrintStream err) throws Exception {
        return StreamRunner.run(
                Streaming.job(ready.conf(), ready.fastForward()),
                ready.conf(),
                ready.untilIdle(),
                err);
    }

    private Ready prepare(PrintStream err) throws Exception {
        Configuration control = controlSettings();
        List<String> problems = StreamOptions.problems(control, FLAGS::get);
        if (!problems.isEmpty()) {
            throw new JobArgumentException(problems.get(0));
        }
        if (onCluster && a.untilIdle != null) {
            throw JobArgumentException.of(
                    StreamArgs.UNTIL_IDLE,
                    "only on the embedded cluster; stop a job on a Flink cluster with 'piper job"
                            + " stop' (a savepoint, all output committed)");
        }
        Path dir = a.checkpointDir.toAbsolutePath();
        Files.createDirectories(dir);
        Configuration conf = configuration(dir, onCluster, control);
        chooseStart(conf, dir, onCluster, err);
        StreamPipelines pipelines = pipelines(conf, dir, onCluster, err);
        KafkaArgs.connect(a.args); // the arguments are checked: now the broker must answer
        String streamId = CheckpointDirectory.streamId(dir);
        if (!a.takeOverOutput) {
            refuseAnotherStreamsOutput(conf, pipelines.outputTopics(), streamId);
        }
        FastForward fastForward;
        if (restored != null && !a.takeOverOutput) {
            fastForward = fastForwardPastSnapshot(conf, restored, pipelines, err);
        } else {
            // No snapshot of its own to compare (taking over another stream's topics, their
            // records are of that stream's stamps): its stamps go on above the topics' highest.
            fastForward =
                    FastForward.none(
                            Math.max(
                                    restored == null ? 0 : CheckpointDirectory.stamp(restored),
                                    highestStamp(conf, pipelines)));
        }
        if (resumed != null) {
            for (Path old : CheckpointDirectory.pruneSuperseded(dir, resumed)) {
                err.printf("stream: removed superseded snapshot %s%n", old);
            }
        }
        StreamTopics.awaitInputs(conf, err);
        if (fresh) {
            refuseCommittedInputWithoutSnapshot(conf, dir, err);
        }
        StreamTopics.prepareTopics(conf, err);
        for (String rows : pipelines.outputTopics()) {
            StreamOptions.claims(conf, rows)
                    .claim(
                            List.of(rows),
                            streamId,
                            dir.toString(),
                            a.takeOverOutput,
                            err,
                            StreamProgram::lastSnapshot);
        }
        return new Ready(conf, a.untilIdle, lock, fastForward);
    }

    /** The command-line flag of each control and report option, for {@link #controlSettings}. */
    private static final Map<ConfigOption<?>, String> FLAGS =
            Map.of(
                    StreamOptions.CONTROL_TOPIC, "--control-topic",
                    StreamOptions.STATUS_TOPIC, "--status-topic",
                    StreamOptions.CONTROL_DIR, "--control-dir",
                    StreamOptions.STATUS_DIR, "--status-dir",
                    StreamOptions.REPORT_TOPIC, "--report-topic",
                    ReportOptions.ENABLED, "--report-topic");

    /**
     * The control and report options as given: the control directory and its status directory
     * (given, or the control directory's status/) absolute; with a report topic, the report on.
     */
    private Configuration controlSettings() {
        Configuration c = new Configuration();
        Optional.ofNullable(a.controlTopic).ifPresent(t -> c.set(StreamOptions.CONTROL_TOPIC, t));
        Optional.ofNullable(a.statusTopic).ifPresent(t -> c.set(StreamOptions.STATUS_TOPIC, t));
        if (a.controlDir != null) {
            c.set(StreamOptions.CONTROL_DIR, a.controlDir.toAbsolutePath().toString());
        }
        Path status =
                a.statusDir != null
                        ? a.statusDir
                        : a.controlDir == null ? null : a.controlDir.resolve("status");
        if (status != null) {
            c.set(StreamOptions.STATUS_DIR, status.toAbsolutePath().toString());
        }
        if (a.reportTopic != null) {
            c.set(StreamOptions.REPORT_TOPIC, a.reportTopic);
            c.set(ReportOptions.ENABLED, true);
        }
        return c;
    }

    /**
     * The job's configuration from the arguments: checkpointing in {@code dir} (locked while an
     * embedded run uses it), the pipelines, topics, Kafka clients, Hotline and {@code control}.
     */
    private Configuration configuration(Path dir, boolean onCluster, Configuration control)
            throws IOException {
        Configuration conf;
        if (onCluster) {
            // No lock: this program ends once the job is submitted, and the cluster, which may
            // restart or restore the job at any time, owns the directory from then on.
            conf = ClusterArgs.jobConfiguration(a.args);
            conf.addAll(Streaming.checkpointing(dir, a.checkpointInterval));
        } else {
            try {
                lock = CheckpointDirectory.lock(dir);
            } catch (IllegalStateException e) {
                throw new JobArgumentException("--checkpoint-dir: " + e.getMessage());
            }
            conf =
                    Streaming.configuration(
                            a.parallelism,
                            ClusterArgs.stateBackend(a.args),
                            dir,
                            a.checkpointInterval);
        }
        conf.addAll(ClusterArgs.flinkConf(a.args));
        if (a.pipelineFiles.isEmpty()) {
            if (a.inputTopic == null || a.outputTopic == null) {
                throw new JobArgumentException(
                        "--input-topic and --output-topic are required (or --pipeline files)");
            }
            PipelineArgs.apply(a.args, conf);
            conf.set(StreamOptions.INPUT_TOPIC, a.inputTopic);
        } else {
            applyPipelines(conf);
        }
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, KafkaArgs.bootstrapServers(a.args));
        conf.addAll(a.args.settings());
        Optional.ofNullable(a.outputTopic).ifPresent(t -> conf.set(StreamOptions.OUTPUT_TOPIC, t));
        if (a.reportTopic != null) {
            ReportArgs.apply(a.args, conf);
        }
        if (HotlineArgs.enabled(a.args)) {
            if (!conf.contains(StreamOptions.VOCAB_TOPIC)) {
                throw new JobArgumentException(
                        "--hotline-budget: the split needs --vocab-topic, where the hot sets are"
                                + " published");
            }
            if (a.controlTopic != null || a.controlDir != null) {
                throw new JobArgumentException(
                        "--hotline-budget: the split does not run with "
                                + (a.controlTopic != null ? "--control-topic" : "--control-dir")
                                + " (a spec switch may change the rows' shape its hot sets are"
                                + " chosen for)");
            }
            HotlineArgs.apply(a.args, conf);
        }
        conf.addAll(control);
        if (a.controlDir != null) {
            Files.createDirectories(Path.of(conf.get(StreamOptions.STATUS_DIR)));
        }
        KafkaArgs.clientProperties(a.args)
                .forEach((k, v) -> conf.setString(StreamOptions.KAFKA_PROPERTY_PREFIX + k, v));

        return conf;
    }

    /**
     * Where the run starts: the cluster's savepoint, {@code --from-savepoint}, {@code
     * --start-over}, or the latest snapshot in {@code dir}, into {@code conf}; with none, {@link
     * #fresh}.
     */
    private void chooseStart(Configuration conf, Path dir, boolean onCluster, PrintStream err)
            throws IOException {
        Optional<String> givenByCluster =
                onCluster
                        ? OnCluster.clusterConfiguration()
                                .getOptional(StateRecoveryOptions.SAVEPOINT_PATH)
                        : Optional.empty();
        if (givenByCluster.isPresent()) {
            // The operator passes its latest savepoint on every upgrade, while the arguments
            // stay as written: a --from-savepoint among them would restore an older state.
            restored = localSnapshot(givenByCluster.get());
            err.printf(
                    "stream: restoring %s (the submission's savepoint)%s%n",
                    givenByCluster.get(),
                    a.fromSavepoint == null
                            ? ""
                            : "; --from-savepoint " + a.fromSavepoint + " ignored");
        } else if (a.fromSavepoint != null) {
            CheckpointDirectory.checkReadable(a.fromSavepoint.toAbsolutePath());
            Streaming.restoreFrom(conf, a.fromSavepoint.toAbsolutePath(), false);
            restored = a.fromSavepoint.toAbsolutePath();
            err.printf("stream: restoring %s%n", a.fromSavepoint);
        } else if (a.startOver) {
            err.printf(
                    "stream: --start-over: not restoring any snapshot in %s; starting from %s%n",
                    dir, conf.get(StreamOptions.START_FROM));
        } else {
            Optional<Path> latest = CheckpointDirectory.latestSnapshot(dir);
            refuseLost(dir, latest);
            if (latest.isPresent()) {
                CheckpointDirectory.checkReadable(latest.get()); // before pruning the others
                Streaming.restoreFrom(conf, latest.get(), true);
                restored = latest.get();
                resumed = latest.get(); // the others are removed once the checks have passed
                err.printf("stream: resuming from %s%n", latest.get());
                warnIfOlderThanTransactions(latest.get(), err);
            } else {
                fresh = true;
            }
        }
    }

    /** The pipelines {@code conf} runs, checked against {@code dir} and this machine. */
    private StreamPipelines pipelines(
            Configuration conf, Path dir, boolean onCluster, PrintStream err) throws IOException {
        StreamPipelines pipelines;
        try {
            pipelines = StreamPipelines.of(conf);
            CheckpointDirectory.checkPipelines(dir, pipelines);
        } catch (IllegalArgumentException e) {
            throw new JobArgumentException(e.getMessage());
        }
        for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
            if (p.start().spec().labels() != null) {
                String where = a.pipelineFiles.isEmpty() ? "--spec" : "--pipeline " + p.name();
                if (pipelines.size() > 1) {
                    throw new JobArgumentException(
                            where
                                    + ": a spec with a labels section (a label join) runs in a"
                                    + " stream of its own, not next to other pipelines");
                }
                try {
                    p.topicsRead();
                } catch (IllegalArgumentException e) {
                    throw new JobArgumentException(where + ": " + e.getMessage());
                }
            }
        }
        if (!onCluster) {
            for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
                LaunchChecks.resources(
                        a.pipelineFiles.isEmpty() ? "--spec" : "--pipeline " + p.name(),
                        p.start().program(),
                        a.parallelism);
            }
        }
        if (pipelines.size() > 1) {
            for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
                err.printf(
                        "stream: pipeline %s/%d: %s -> %s%n",
                        p.name(), p.start().version(), p.inputTopic(), p.outputTopic());
            }
        }
        return pipelines;
    }

    /**
     * Refuses, before anything else is looked at, an output topic that another stream (another
     * checkpoint directory's id) owns, naming that stream's directory, host, and when it last
     * completed a snapshot where its directory is on this host: whatever this directory holds, a
     * second stream on the topic would commit every block again. The consumer group and the
     * committed input are that owner's, and would only mislead. Two streams that pass this at the
     * same moment are told apart when they claim ({@link dev.piper.feed.OutputClaims}).
     */
    private static void refuseAnotherStreamsOutput(
            Configuration conf, List<String> outputTopics, String streamId) throws Exception {
        for (String topic : outputTopics) {
            var claims = StreamOptions.claims(conf, topic);
            Optional<OutputClaims.Claim> owner = claims.owner(topic);
            if (owner.isPresent() && !owner.get().streamId().equals(streamId)) {
                throw claims.refusal(topic, owner.get(), lastSnapshot(owner.get()));
            }
        }
    }

    /** When the owner of a claim last completed a snapshot, as far as this host can tell. */
    static String lastSnapshot(OutputClaims.Claim owner) {
        Path dir = Path.of(owner.checkpointDir());
        if (!Files.isDirectory(dir)) {
            return "its checkpoint directory is not on this host";
        }
        try {
            Optional<Path> latest = CheckpointDirectory.latestSnapshot(dir);
            if (latest.isEmpty()) {
                return "it has completed no snapshot there yet";
            }
            return "its newest snapshot, "
                    + latest.get()
                    + ", completed at "
                    + Files.getLastModifiedTime(latest.get().resolve("_metadata")).toInstant();
        } catch (IOException | UncheckedIOException e) {
            return "its checkpoint directory cannot be read here (" + e.getMessage() + ")";
        }
    }

    /** The local directory of snapshot {@code pointer} (a path or file: URI), or null. */
    private static Path localSnapshot(String pointer) {
        try {
            Path p =
                    pointer.startsWith("file:")
                            ? Path.of(java.net.URI.create(pointer))
                            : pointer.contains("://") ? null : Path.of(pointer);
            return p != null && Files.isRegularFile(p.resolve("_metadata")) ? p : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * What the output topics hold past {@code snapshot}: output that an earlier run committed after
     * it (its own {@code _metadata} lost, or an older savepoint named). The stream passes over it
     * rather than commit it a second time, or, where that cannot be done exactly, is refused naming
     * the record and the ways out.
     */
    private FastForward fastForwardPastSnapshot(
            Configuration conf, Path snapshot, StreamPipelines pipelines, PrintStream err)
            throws IOException {
        long stamp = CheckpointDirectory.stamp(snapshot);
        List<OutputPastSnapshot.Pipeline> topics = new ArrayList<>();
        for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
            topics.add(
                    new OutputPastSnapshot.Pipeline(
                            p.index(), p.name(), p.inputTopic(), p.outputTopic(), p.vocabTopic()));
        }
        OutputPastSnapshot.Result past;
        long start = System.nanoTime();
        try {
            past =
                    new OutputPastSnapshot(
                                    conf.get(StreamOptions.BOOTSTRAP_SERVERS),
                                    StreamOptions.kafkaProperties(conf),
                                    Duration.ofSeconds(60))
                            .read(topics, stamp);
        } catch (OutputPastSnapshot.Refused e) {
            throw refusedPast(snapshot, stamp, e.getMessage());
        }
        FastForward ff = past.fastForward();
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!ff.skipsAnything()) {
            err.printf(
                    "stream: the output topics hold nothing committed after it (%,d records read"
                            + " back in %.1f s)%n",
                    past.recordsRead(), seconds);
            return ff;
        }
        for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
            ColumnProgram program = p.start().program();
            for (int c = 0; c < program.layout().sparse(); c++) {
                if (program.vocabPolicy(c).minCount() > 1) {
                    throw refusedPast(
                            snapshot,
                            stamp,
                            "pipeline "
                                    + p.name()
                                    + "'s column C"
                                    + (c + 1)
                                    + " admits keys at min_count "
                                    + program.vocabPolicy(c).minCount()
                                    + ": the counts of keys not admitted yet are in no output, so"
                                    + " a resume cannot pass over the output committed after the"
                                    + " snapshot");
                }
            }
        }
        if (conf.getOptional(StreamOptions.CONTROL_TOPIC).isPresent()
                || conf.getOptional(StreamOptions.CONTROL_DIR).isPresent()) {
            throw refusedPast(
                    snapshot,
                    stamp,
                    "the stream has a control stream, whose accepted specs and switches are in no"
                            + " output, so a resume cannot pass over the output committed after"
                            + " the snapshot");
        }
        err.printf(
                "stream: the output topics hold %,d rows records committed after %s (commit stamps"
                        + " above %d; %,d records read back in %.1f s), by a run whose later"
                        + " snapshots are gone or passed over: passing over them, not committing"
                        + " them again%n",
                past.rowsRecords(), snapshot, stamp, past.recordsRead(), seconds);
        for (String line : past.summary()) {
            err.printf("stream:   %s%n", line);
        }
        return ff;
    }

    /**
     * The highest commit stamp of the last committed records of the output topics (0 for none):
     * stamps grow along a topic, but for two checkpoints' records interleaved, so one above it is
     * above every stamp they hold.
     */
    private static long highestStamp(Configuration conf, StreamPipelines pipelines)
            throws IOException {
        long highest = 0;
        for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
            for (String topic : new String[] {p.outputTopic(), p.vocabTopic()}) {
                if (topic == null) {
                    continue;
                }
                for (var r :
                        CommittedTail.of(
                                conf.get(StreamOptions.BOOTSTRAP_SERVERS),
                                StreamOptions.kafkaProperties(conf),
                                topic,
                                Duration.ofSeconds(30))) {
                    highest = Math.max(highest, OutputPastSnapshot.stamp(r) + 1);
                }
            }
        }
        return highest;
    }

    /** A resume refused: the snapshot would commit output a second time, for {@code why}. */
    private static IllegalStateException refusedPast(Path snapshot, long stamp, String why) {
        return new IllegalStateException(
                "resuming from "
                        + snapshot
                        + " (commit stamp "
                        + stamp
                        + ") would commit output a second time: the output topics hold output"
                        + " committed after it, and "
                        + why
                        + ". Resume from a later snapshot (put back its directory or its"
                        + " _metadata, or name it with --from-savepoint), or start over into new"
                        + " output topics with --start-over (docs/OPERATIONS.md, \"Damaged"
                        + " checkpoint directories\")");
    }

    /**
     * A fresh start in a directory whose consumer group has committed input would commit that
     * output a second time: refused, naming the ways out.
     */
    private void refuseCommittedInputWithoutSnapshot(
            Configuration conf, Path dir, PrintStream err) {
        long committed = StreamTopics.committedInput(conf);
        if (committed > 0) {
            throw new IllegalStateException(
                    "--checkpoint-dir "
                            + dir
                            + " holds no snapshot to resume from, but consumer group "
                            + StreamOptions.groupId(conf)
                            + " has committed "
                            + String.format("%,d", committed)
                            + " input records: a stream on this directory committed their"
                            + " output, and its snapshots are gone. Starting from "
                            + conf.get(StreamOptions.START_FROM)
                            + " would commit that output a second time. Restore a snapshot"
                            + " kept elsewhere with --from-savepoint, or start over into"
                            + " new output topics with --start-over (docs/OPERATIONS.md,"
                            + " \"Damaged checkpoint directories\")");
        }
        err.printf(
                "stream: no snapshot in %s and no input committed by group %s; starting"
                        + " from %s%n",
                dir, StreamOptions.groupId(conf), conf.get(StreamOptions.START_FROM));
    }

    /**
     * Says so when the snapshot resumed from completed longer ago than the sink's transaction
     * timeout: if the process died between that checkpoint and the commit of its output, the broker
     * has aborted that output since, and those rows are lost (a reader finds the blocks missing).
     * Within the timeout the restored job commits them, and Flink's "already fenced" messages about
     * the transactions the crashed run had committed are expected.
     */
    private static void warnIfOlderThanTransactions(Path snapshot, PrintStream err)
            throws IOException {
        if (!snapshot.getFileName().toString().startsWith("chk-")) {
            return; // a savepoint: the stop that took it committed its output
        }
        Duration age =
                Duration.between(
                        Files.getLastModifiedTime(snapshot.resolve("_metadata")).toInstant(),
                        java.time.Instant.now());
        Duration timeout =
                Duration.ofMillis(Long.parseLong(KafkaConnectors.TRANSACTION_TIMEOUT_MS));
        if (age.compareTo(timeout) > 0) {
            err.printf(
                    "stream: note: that checkpoint completed %d min ago, longer than the"
                            + " transactions' timeout (%d min): if the last run died in the moment"
                            + " between the checkpoint and the commit of its output, the broker"
                            + " has aborted that output and those rows are missing ('piper"
                            + " consume' names missing blocks)%n",
                    age.toMinutes(), timeout.toMinutes());
        }
    }

    /**
     * Refuses to resume when a snapshot newer than {@code latest} completed once (this program
     * sealed it) but lost its {@code _metadata}: resuming from an older one, or from nothing, would
     * commit the output after it a second time.
     */
    private static void refuseLost(Path dir, Optional<Path> latest) throws IOException {
        List<Path> lost = CheckpointDirectory.lostSnapshots(dir, latest);
        if (!lost.isEmpty()) {
            throw new IllegalStateException(
                    "the snapshot "
                            + lost.get(lost.size() - 1)
                            + " completed (it is sealed) but its _metadata is gone, so it cannot"
                            + " be restored, and "
                            + latest.map(p -> "resuming from the older " + p)
                                    .orElse("starting from the beginning")
                            + " would commit the output after it a second time. Either put"
                            + " back a copy of its _metadata; or "
                            + latest.map(
                                            p ->
                                                    "move it away to resume from "
                                                            + p
                                                            + " (refused in turn if output was"
                                                            + " committed after that one); or ")
                                    .orElse(
                                            "restore a snapshot kept elsewhere with"
                                                    + " --from-savepoint; or ")
                            + "start over into new output topics with --start-over"
                            + " (docs/OPERATIONS.md, \"Damaged checkpoint directories\")");
        }
    }

    /** Puts the --pipeline specs into {@code conf}, refusing options they replace. */
    private void applyPipelines(Configuration conf) {
        for (String option :
                List.of(
                        "--input-topic",
                        "--dead-letter-topic",
                        "--spec",
                        "--max-ind-range",
                        "--pad-missing-fields",
                        "--max-line-bytes")) {
            if (a.args.given(option)) {
                throw new JobArgumentException(
                        option
                                + " cannot be combined with --pipeline: each pipeline's spec"
                                + " defines its input and operators");
            }
        }
        List<byte[]> texts = new ArrayList<>();
        for (Path file : a.pipelineFiles) {
            try {
                byte[] text = Files.readAllBytes(file);
                PiperOptions.parsed(text, file.toString());
                texts.add(text);
            } catch (IOException e) {
                throw new JobArgumentException("--pipeline: cannot read " + file + ": " + e);
            } catch (SpecException e) {
                throw new JobArgumentException("--pipeline: " + e.getMessage());
            }
        }
        try {
            conf.set(StreamOptions.PIPELINES, StreamPipelines.toOption(texts));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
