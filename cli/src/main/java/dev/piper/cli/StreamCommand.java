package dev.piper.cli;

import dev.piper.cli.cluster.OnCluster;
import dev.piper.connectors.kafka.KafkaConnectors.StartFrom;
import dev.piper.job.CheckpointDirectory;
import dev.piper.job.JobNames;
import dev.piper.job.ReportOptions;
import dev.piper.job.StreamOptions;
import dev.piper.job.StreamPipelines;
import dev.piper.job.StreamRunner;
import dev.piper.job.StreamTopics;
import dev.piper.job.Streaming;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code piper stream}: the exactly-once Kafka preprocessing feed on an embedded cluster, or, under
 * {@link ClusterJob}, submitted to the Flink cluster that runs the job jar.
 */
@Command(
        name = "stream",
        mixinStandardHelpOptions = true,
        description = {
            "Preprocess lines from a Kafka topic into DLRM row blocks on another, under any spec"
                    + " preprocess runs (Criteo's layout by default), exactly once: output, dead letters and vocabulary records are written in"
                    + " transactions committed with each checkpoint (read them with"
                    + " isolation.level=read_committed, or with 'piper consume').",
            "Restarting with the same --checkpoint-dir resumes from the latest retained checkpoint"
                    + " or savepoint in it. Output record format: docs/SEMANTICS.md.",
            "With --control-topic (or --control-dir) the pipeline's spec can be changed while it"
                    + " runs; --pipeline runs several pipelines in one job (docs/SPECS.md)."
        })
final class StreamCommand implements Callable<Integer> {

    /** The job's name on the cluster. */
    static final String NAME = "stream";

    @Spec CommandSpec spec;

    /** {@link PiperCli} on the command line, {@link ClusterJob} in the job jar on a cluster. */
    @ParentCommand Object parent;

    @Mixin PipelineOptions pipeline;

    @Mixin ClusterOptions cluster;

    @Mixin KafkaClientOptions kafka;

    @Mixin ReportCliOptions reportOptions;

    @Mixin HotlineCliOptions hotline;

    @Option(
            names = "--report-topic",
            paramLabel = "R",
            description =
                    "Measure each column's work and write a hardware cost report per pipeline,"
                            + " spec version and --report-interval to this topic (JSON, keyed by"
                            + " pipeline; at least once; docs/HARDWARE_MODEL.md); with a control"
                            + " stream each version's chains are priced apart.")
    String reportTopic;

    @Option(
            names = "--input-topic",
            paramLabel = "T",
            description =
                    "Topic of lines of the spec's layout (Criteo's by default), one line per"
                            + " record (or several, \\n-separated). Required unless --pipeline is"
                            + " given.")
    String inputTopic;

    @Option(
            names = "--output-topic",
            paramLabel = "O",
            description =
                    "Topic of the row blocks; created with --output-partitions partitions if"
                            + " absent. Required unless --pipeline is given; then a name in which"
                            + " {pipeline} stands for each pipeline's (default: {pipeline}-rows).")
    String outputTopic;

    @Option(
            names = "--input-wait",
            paramLabel = "DURATION",
            defaultValue = "2min",
            description =
                    "How long to wait for input topics that do not exist yet (the stream may start"
                            + " before its producer) before failing (default: ${DEFAULT-VALUE}).")
    String inputWait;

    @Option(
            names = "--output-partitions",
            paramLabel = "N",
            description =
                    "Partitions of a rows topic the stream creates (default: the input topic's):"
                            + " block b of input partition p goes to partition (p + b) mod N, so"
                            + " N trainer workers each read a share (docs/SEMANTICS.md). An"
                            + " existing rows topic with another count is refused; name its"
                            + " count here to use it as it is.")
    Integer outputPartitions;

    @Option(
            names = "--pipeline",
            paramLabel = "FILE",
            description =
                    "Run this spec as one of several pipelines in the job (repeat the option;"
                            + " MiniPipe): each spec names its input.topic, has its own"
                            + " vocabularies and writes to the output, dead-letter and vocab"
                            + " topics named after it (--output-topic, --vocab-topic with"
                            + " {pipeline}). Not with --input-topic or --spec.")
    List<Path> pipelineFiles = new ArrayList<>();

    @Option(
            names = "--dead-letter-topic",
            paramLabel = "D",
            description = "Topic of the dead letters (default: the output topic + -dead-letters).")
    String deadLetterTopic;

    @Option(
            names = "--vocab-topic",
            paramLabel = "V",
            description =
                    "Topic to publish every new vocabulary entry to (column, index, key);"
                            + " default: none.")
    String vocabTopic;

    @Option(
            names = "--control-topic",
            paramLabel = "C",
            description =
                    "Topic of pipeline specs that reconfigure the running job (spec publish);"
                            + " each is validated, and accepted specs take effect with the next"
                            + " block of each input partition (docs/SPECS.md). Default: none.")
    String controlTopic;

    @Option(
            names = "--status-topic",
            paramLabel = "S",
            description =
                    "Topic of the control status: each spec accepted or rejected (with its"
                            + " problems) and the input offset where it took effect; default:"
                            + " the control topic + -status.")
    String statusTopic;

    @Option(
            names = "--control-dir",
            paramLabel = "D",
            description =
                    "Instead of --control-topic: a directory watched for specs; each *.json file"
                            + " moved into it is one spec (write it elsewhere first), read once."
                            + " Status: JSON-lines files in --status-dir.")
    Path controlDir;

    @Option(
            names = "--status-dir",
            paramLabel = "S",
            description =
                    "Where the control directory's status files go, committed with each"
                            + " checkpoint (default: D/status).")
    Path statusDir;

    @Option(
            names = "--checkpoint-dir",
            required = true,
            paramLabel = "DIR",
            description = "Checkpoints and savepoints of this stream; reuse it to resume.")
    Path checkpointDir;

    @Option(
            names = "--checkpoint-interval",
            paramLabel = "DURATION",
            defaultValue = "5s",
            description =
                    "Time between checkpoints, which is also when output becomes visible to"
                            + " read_committed consumers (default: ${DEFAULT-VALUE}).")
    String checkpointInterval;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "2",
            description =
                    "Parallelism of every operator (default: ${DEFAULT-VALUE}; on a cluster: the"
                            + " submission's).")
    int parallelism;

    @Option(
            names = "--from-savepoint",
            paramLabel = "PATH",
            description =
                    "Restore this savepoint or retained checkpoint instead of the latest in"
                            + " --checkpoint-dir; the parallelism may differ from its run's. On a"
                            + " cluster, a savepoint given with the submission (piper submit"
                            + " --from-savepoint, the Kubernetes operator's on an upgrade) comes"
                            + " first.")
    Path fromSavepoint;

    @Option(
            names = "--start-over",
            description =
                    "Start from --start-from without restoring any snapshot in --checkpoint-dir,"
                            + " even though it has served a stream before. Without it, a"
                            + " directory whose stream committed output but whose snapshots are"
                            + " gone or damaged is refused: starting over commits that output a"
                            + " second time. Use it with new output topics.")
    boolean startOver;

    @Option(
            names = "--take-over-output",
            description =
                    "Claim the output topics even though another stream (another checkpoint"
                            + " directory) owns them: for when that stream is gone for good. A"
                            + " running owner on this program's embedded cluster notices within"
                            + " seconds and stops.")
    boolean takeOverOutput;

    @Option(
            names = "--until-idle",
            paramLabel = "DURATION",
            description =
                    "Stop cleanly, with a savepoint and all output committed, once no input"
                            + " record has arrived for this long (10s, 2min; a bare number is"
                            + " seconds) and all input is consumed as of a completed checkpoint"
                            + " (the consumer group's committed offsets). Default: run until"
                            + " killed.")
    String untilIdle;

    @Option(
            names = "--block-lines",
            paramLabel = "N",
            defaultValue = "4096",
            description =
                    "Most rows per output record (160 bytes each; default ${DEFAULT-VALUE} fits"
                            + " Kafka's default 1 MiB record limit).")
    int blockLines;

    @Option(
            names = "--linger",
            paramLabel = "DURATION",
            defaultValue = "200ms",
            description =
                    "Longest wait for more lines before a block is cut (default: ${DEFAULT-VALUE}).")
    String linger;

    @Option(
            names = "--transactional-id-prefix",
            paramLabel = "P",
            description =
                    "Prefix of the sink's transactional ids: unique per job, stable across its"
                            + " restarts (default: piper- + the output topic).")
    String transactionalIdPrefix;

    @Option(
            names = "--group-id",
            paramLabel = "G",
            description =
                    "Consumer group the consumed offsets are committed to at each checkpoint, for"
                            + " monitoring (default: piper- + the output topic).")
    String groupId;

    @Option(
            names = "--start-from",
            paramLabel = "WHERE",
            defaultValue = "earliest",
            description =
                    "Where a run without restored state starts: ${COMPLETION-CANDIDATES}"
                            + " (default: ${DEFAULT-VALUE}).")
    StartFrom startFrom;

    /** {@code --until-idle}: a duration, or a bare number of seconds (as it was first). */
    private Duration idle() {
        return duration("--until-idle", untilIdle, untilIdle.matches("[0-9]+") ? "s" : "");
    }

    private Duration duration(String option, String value) {
        return duration(option, value, "");
    }

    /** {@code value} and {@code unit} (empty, or a unit for a bare number) as a duration. */
    private Duration duration(String option, String value, String unit) {
        try {
            Duration d = TimeUtils.parseDuration(value + unit);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("must be positive");
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    option + ": '" + value + "' is not a positive duration such as 5s or 500ms");
        }
    }

    @Override
    public Integer call() throws Exception {
        try {
            return stream();
        } finally {
            if (lock != null) {
                lock.close();
            }
        }
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
        Optional.ofNullable(controlTopic).ifPresent(t -> c.set(StreamOptions.CONTROL_TOPIC, t));
        Optional.ofNullable(statusTopic).ifPresent(t -> c.set(StreamOptions.STATUS_TOPIC, t));
        if (controlDir != null) {
            c.set(StreamOptions.CONTROL_DIR, controlDir.toAbsolutePath().toString());
        }
        Path status =
                statusDir != null
                        ? statusDir
                        : controlDir == null ? null : controlDir.resolve("status");
        if (status != null) {
            c.set(StreamOptions.STATUS_DIR, status.toAbsolutePath().toString());
        }
        if (reportTopic != null) {
            c.set(StreamOptions.REPORT_TOPIC, reportTopic);
            c.set(ReportOptions.ENABLED, true);
        }
        return c;
    }

    /** The checkpoint directory's lock, held while this command runs its stream. */
    private CheckpointDirectory.Lock lock;

    private Integer stream() throws Exception {
        checkArguments();
        Configuration control = controlSettings();
        List<String> problems = StreamOptions.problems(control, FLAGS::get);
        if (!problems.isEmpty()) {
            throw new ParameterException(spec.commandLine(), problems.get(0));
        }
        if (controlDir != null && !Files.isDirectory(controlDir)) {
            throw new ParameterException(
                    spec.commandLine(), "--control-dir: " + controlDir + " is not a directory");
        }
        boolean onCluster = parent instanceof ClusterJob;
        if (onCluster && untilIdle != null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--until-idle: only on the embedded cluster; stop a job on a Flink cluster with"
                            + " 'piper job stop' (a savepoint, all output committed)");
        }
        Path dir = checkpointDir.toAbsolutePath();
        Files.createDirectories(dir);
        Configuration conf = configuration(dir, onCluster, control);
        var err = System.err;
        chooseStart(conf, dir, onCluster, err);
        StreamPipelines pipelines = pipelines(conf, dir, onCluster, err);
        kafka.connect(spec.commandLine()); // the arguments are checked: now the broker must answer
        StreamTopics.awaitInputs(conf, err);
        if (fresh) {
            refuseCommittedInputWithoutSnapshot(conf, dir, err);
        }
        StreamTopics.prepareTopics(conf, err);
        String streamId = CheckpointDirectory.streamId(dir);
        for (String rows : pipelines.outputTopics()) {
            StreamOptions.claims(conf, rows)
                    .claim(List.of(rows), streamId, dir.toString(), takeOverOutput, err);
        }
        if (onCluster) {
            JobID id = OnCluster.submit(Streaming.job(conf)::build, conf, JobNames.stream(conf));
            spec.commandLine().getOut().printf("stream: job %s submitted%n", id);
            return 0;
        }
        StreamRunner.Result r =
                StreamRunner.run(Streaming.job(conf), conf, untilIdle == null ? null : idle(), err);
        spec.commandLine()
                .getOut()
                .printf(
                        "stream: %,d input records consumed in %.1f s%s%n",
                        r.inputRecords(),
                        r.seconds(),
                        r.savepoint().map(p -> "; savepoint " + p).orElse(""));
        return 0;
    }

    /** Refuses arguments that are wrong on their own, naming the option. */
    private void checkArguments() {
        if (parallelism < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--parallelism: must be at least 1, not " + parallelism);
        }
        if (blockLines < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--block-lines: must be at least 1, not " + blockLines);
        }
        if (untilIdle != null && idle().toMillis() < 1000) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--until-idle: must be at least 1 second, not " + untilIdle);
        }
        if (fromSavepoint != null && !Files.isRegularFile(fromSavepoint.resolve("_metadata"))) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--from-savepoint: " + fromSavepoint + " holds no _metadata file");
        }
        if (Files.exists(checkpointDir) && !Files.isDirectory(checkpointDir)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--checkpoint-dir: " + checkpointDir + " is not a directory");
        }
        if (outputPartitions != null && outputPartitions < 1) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--output-partitions: must be at least 1, not " + outputPartitions);
        }
    }

    /**
     * The job's configuration from the arguments: checkpointing in {@code dir} (locked while an
     * embedded run uses it), the pipelines, topics, Kafka clients, Hotline and {@code control}.
     */
    private Configuration configuration(Path dir, boolean onCluster, Configuration control)
            throws IOException {
        Duration interval = duration("--checkpoint-interval", checkpointInterval);
        Duration lingerTime = duration("--linger", linger);
        Configuration conf;
        if (onCluster) {
            // No lock: this program ends once the job is submitted, and the cluster, which may
            // restart or restore the job at any time, owns the directory from then on.
            conf = cluster.jobConfiguration(spec, parallelism);
            conf.addAll(Streaming.checkpointing(dir, interval));
        } else {
            try {
                lock = CheckpointDirectory.lock(dir);
            } catch (IllegalStateException e) {
                throw new ParameterException(
                        spec.commandLine(), "--checkpoint-dir: " + e.getMessage());
            }
            conf = Streaming.configuration(parallelism, cluster.stateBackend, dir, interval);
        }
        conf.addAll(Configuration.fromMap(cluster.flinkConf));
        if (pipelineFiles.isEmpty()) {
            if (inputTopic == null || outputTopic == null) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--input-topic and --output-topic are required (or --pipeline files)");
            }
            pipeline.apply(spec.commandLine(), conf);
            conf.set(StreamOptions.INPUT_TOPIC, inputTopic);
        } else {
            applyPipelines(conf);
        }
        conf.set(StreamOptions.BLOCK_LINES, blockLines);
        conf.set(StreamOptions.LINGER, lingerTime);
        conf.set(StreamOptions.INPUT_WAIT, duration("--input-wait", inputWait));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers(spec.commandLine()));
        Optional.ofNullable(outputTopic).ifPresent(t -> conf.set(StreamOptions.OUTPUT_TOPIC, t));
        Optional.ofNullable(outputPartitions)
                .ifPresent(n -> conf.set(StreamOptions.OUTPUT_PARTITIONS, n));
        conf.set(StreamOptions.START_FROM, startFrom);
        Optional.ofNullable(deadLetterTopic)
                .ifPresent(t -> conf.set(StreamOptions.DEAD_LETTER_TOPIC, t));
        Optional.ofNullable(vocabTopic).ifPresent(t -> conf.set(StreamOptions.VOCAB_TOPIC, t));
        if (reportTopic != null) {
            reportOptions.apply(spec.commandLine(), conf);
        }
        if (hotline.enabled()) {
            if (vocabTopic == null) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--hotline-budget: the split needs --vocab-topic, where the hot sets are"
                                + " published");
            }
            if (controlTopic != null || controlDir != null) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--hotline-budget: the split does not run with "
                                + (controlTopic != null ? "--control-topic" : "--control-dir")
                                + " (a spec switch may change the rows' shape its hot sets are"
                                + " chosen for)");
            }
            hotline.apply(spec.commandLine(), conf);
        }
        conf.addAll(control);
        if (controlDir != null) {
            Files.createDirectories(Path.of(conf.get(StreamOptions.STATUS_DIR)));
        }
        Optional.ofNullable(transactionalIdPrefix)
                .ifPresent(p -> conf.set(StreamOptions.TRANSACTIONAL_ID_PREFIX, p));
        Optional.ofNullable(groupId).ifPresent(g -> conf.set(StreamOptions.GROUP_ID, g));
        kafka.clientProperties(spec.commandLine())
                .forEach((k, v) -> conf.setString(StreamOptions.KAFKA_PROPERTY_PREFIX + k, v));

        return conf;
    }

    /**
     * Where the run starts: the cluster's savepoint, {@code --from-savepoint}, {@code
     * --start-over}, or the latest snapshot in {@code dir}, into {@code conf}; with none, {@link
     * #fresh}.
     */
    private void chooseStart(
            Configuration conf, Path dir, boolean onCluster, java.io.PrintStream err)
            throws IOException {
        Optional<String> givenByCluster =
                onCluster
                        ? OnCluster.clusterConfiguration()
                                .getOptional(StateRecoveryOptions.SAVEPOINT_PATH)
                        : Optional.empty();
        if (givenByCluster.isPresent()) {
            // The operator passes its latest savepoint on every upgrade, while the arguments
            // stay as written: a --from-savepoint among them would restore an older state.
            err.printf(
                    "stream: restoring %s (the submission's savepoint)%s%n",
                    givenByCluster.get(),
                    fromSavepoint == null
                            ? ""
                            : "; --from-savepoint " + fromSavepoint + " ignored");
        } else if (fromSavepoint != null) {
            CheckpointDirectory.checkReadable(fromSavepoint.toAbsolutePath());
            Streaming.restoreFrom(conf, fromSavepoint.toAbsolutePath(), false);
            err.printf("stream: restoring %s%n", fromSavepoint);
        } else if (startOver) {
            err.printf(
                    "stream: --start-over: not restoring any snapshot in %s; starting from %s%n",
                    dir, startFrom);
        } else {
            Optional<Path> latest = CheckpointDirectory.latestSnapshot(dir);
            refuseLost(dir, latest);
            if (latest.isPresent()) {
                CheckpointDirectory.checkReadable(latest.get()); // before pruning the others
                Streaming.restoreFrom(conf, latest.get(), true);
                err.printf("stream: resuming from %s%n", latest.get());
                warnIfOlderThanTransactions(latest.get(), err);
                for (Path old : CheckpointDirectory.pruneSuperseded(dir, latest.get())) {
                    err.printf("stream: removed superseded snapshot %s%n", old);
                }
            } else {
                fresh = true;
            }
        }
    }

    /** The pipelines {@code conf} runs, checked against {@code dir} and this machine. */
    private StreamPipelines pipelines(
            Configuration conf, Path dir, boolean onCluster, java.io.PrintStream err)
            throws IOException {
        StreamPipelines pipelines;
        try {
            pipelines = StreamPipelines.of(conf);
            CheckpointDirectory.checkPipelines(dir, pipelines);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!onCluster) {
            for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
                CliChecks.resources(
                        spec.commandLine(),
                        pipelineFiles.isEmpty() ? "--spec" : "--pipeline " + p.name(),
                        p.start().program(),
                        parallelism);
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
     * A fresh start in a directory whose consumer group has committed input would commit that
     * output a second time: refused, naming the ways out.
     */
    private void refuseCommittedInputWithoutSnapshot(
            Configuration conf, Path dir, java.io.PrintStream err) {
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
                            + startFrom
                            + " would commit that output a second time. Restore a snapshot"
                            + " kept elsewhere with --from-savepoint, or start over into"
                            + " new output topics with --start-over (docs/OPERATIONS.md,"
                            + " \"Damaged checkpoint directories\")");
        }
        err.printf(
                "stream: no snapshot in %s and no input committed by group %s; starting"
                        + " from %s%n",
                dir, StreamOptions.groupId(conf), startFrom);
    }

    /**
     * Says so when the snapshot resumed from completed longer ago than the sink's transaction
     * timeout: if the process died between that checkpoint and the commit of its output, the broker
     * has aborted that output since, and those rows are lost (a reader finds the blocks missing).
     * Within the timeout the restored job commits them, and Flink's "already fenced" messages about
     * the transactions the crashed run had committed are expected.
     */
    private static void warnIfOlderThanTransactions(Path snapshot, java.io.PrintStream err)
            throws IOException {
        if (!snapshot.getFileName().toString().startsWith("chk-")) {
            return; // a savepoint: the stop that took it committed its output
        }
        Duration age =
                Duration.between(
                        Files.getLastModifiedTime(snapshot.resolve("_metadata")).toInstant(),
                        java.time.Instant.now());
        Duration timeout =
                Duration.ofMillis(
                        Long.parseLong(
                                dev.piper.connectors.kafka.KafkaConnectors.TRANSACTION_TIMEOUT_MS));
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

    /** Whether no snapshot is restored: the run starts from --start-from, if nothing forbids. */
    private boolean fresh;

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
                                                            + ", accepting that readers see the"
                                                            + " rows committed after that"
                                                            + " twice; or ")
                                    .orElse(
                                            "restore a snapshot kept elsewhere with"
                                                    + " --from-savepoint; or ")
                            + "start over into new output topics with --start-over"
                            + " (docs/OPERATIONS.md, \"Damaged checkpoint directories\")");
        }
    }

    /** Puts the --pipeline specs into {@code conf}, refusing options they replace. */
    private void applyPipelines(Configuration conf) {
        var parsed = spec.commandLine().getParseResult();
        for (String option :
                List.of(
                        "--input-topic",
                        "--dead-letter-topic",
                        "--spec",
                        "--max-ind-range",
                        "--pad-missing-fields",
                        "--max-line-bytes")) {
            if (parsed.hasMatchedOption(option)) {
                throw new ParameterException(
                        spec.commandLine(),
                        option
                                + " cannot be combined with --pipeline: each pipeline's spec"
                                + " defines its input and operators");
            }
        }
        List<byte[]> texts = new ArrayList<>();
        for (Path file : pipelineFiles) {
            try {
                byte[] text = Files.readAllBytes(file);
                SpecParser.parse(text, file.toString());
                texts.add(text);
            } catch (IOException e) {
                throw new ParameterException(
                        spec.commandLine(), "--pipeline: cannot read " + file + ": " + e);
            } catch (SpecException e) {
                throw new ParameterException(spec.commandLine(), "--pipeline: " + e.getMessage());
            }
        }
        try {
            conf.set(StreamOptions.PIPELINES, StreamPipelines.toOption(texts));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
