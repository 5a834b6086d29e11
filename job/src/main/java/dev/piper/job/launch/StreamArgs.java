package dev.piper.job.launch;

import dev.piper.job.StreamOptions;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import dev.piper.job.args.JobOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * The {@code stream} job's arguments: its options, declared once, and their values as given, each
 * checked on its own (what needs several of them, or a broker, is {@link StreamProgram}'s).
 */
final class StreamArgs {

    static final String CHECKPOINT_DIR = "--checkpoint-dir";
    static final String UNTIL_IDLE = "--until-idle";

    private static final List<JobOption> OWN =
            List.of(
                    JobOption.value(
                            "--report-topic",
                            "R",
                            "Measure each column's work and write a hardware cost report per pipeline,"
                                    + " spec version and --report-interval to this topic (JSON, keyed by"
                                    + " pipeline; at least once; docs/HARDWARE_MODEL.md); with a control"
                                    + " stream each version's chains are priced apart."),
                    JobOption.value(
                            "--input-topic",
                            "T",
                            "Topic of lines of the spec's layout (Criteo's by default), one line per"
                                    + " record (or several, \\n-separated). Required unless --pipeline is"
                                    + " given."),
                    JobOption.value(
                            "--output-topic",
                            "O",
                            "Topic of the row blocks; created with --output-partitions partitions if"
                                    + " absent. Required unless --pipeline is given; then a name in which"
                                    + " {pipeline} stands for each pipeline's (default: {pipeline}-rows)."),
                    JobOption.repeatable(
                            "--pipeline",
                            "FILE",
                            "Run this spec as one of several pipelines in the job (repeat the option;"
                                    + " MiniPipe): each spec names its input.topic, has its own"
                                    + " vocabularies and writes to the output, dead-letter and vocab"
                                    + " topics named after it (--output-topic, --vocab-topic with"
                                    + " {pipeline}). Not with --input-topic or --spec."),
                    JobOption.value(
                            "--control-topic",
                            "C",
                            "Topic of pipeline specs that reconfigure the running job (spec publish);"
                                    + " each is validated, and accepted specs take effect with the next"
                                    + " block of each input partition (docs/SPECS.md). Default: none."),
                    JobOption.value(
                            "--status-topic",
                            "S",
                            "Topic of the control status: each spec accepted or rejected (with its"
                                    + " problems) and the input offset where it took effect; default:"
                                    + " the control topic + -status."),
                    JobOption.value(
                            "--control-dir",
                            "D",
                            "Instead of --control-topic: a directory watched for specs; each *.json file"
                                    + " moved into it is one spec (write it elsewhere first), read once."
                                    + " Status: JSON-lines files in --status-dir."),
                    JobOption.value(
                            "--status-dir",
                            "S",
                            "Where the control directory's status files go, committed with each"
                                    + " checkpoint (default: D/status)."),
                    JobOption.required(
                            "--checkpoint-dir",
                            "DIR",
                            "Checkpoints and savepoints of this stream; reuse it to resume."),
                    JobOption.value(
                            "--checkpoint-interval",
                            "DURATION",
                            "5s",
                            "Time between checkpoints, which is also when output becomes visible to"
                                    + " read_committed consumers (default: ${DEFAULT-VALUE})."),
                    JobOption.value(
                            "--parallelism",
                            "N",
                            "2",
                            "Parallelism of every operator (default: ${DEFAULT-VALUE}; on a cluster: the"
                                    + " submission's)."),
                    JobOption.value(
                            "--from-savepoint",
                            "PATH",
                            "Restore this savepoint or retained checkpoint instead of the latest in"
                                    + " --checkpoint-dir; the parallelism may differ from its run's. On a"
                                    + " cluster, a savepoint given with the submission (piper submit"
                                    + " --from-savepoint, the Kubernetes operator's on an upgrade) comes"
                                    + " first."),
                    JobOption.flag(
                            "--start-over",
                            "Start from --start-from without restoring any snapshot in --checkpoint-dir,"
                                    + " even though it has served a stream before. Without it, a"
                                    + " directory whose stream committed output but whose snapshots are"
                                    + " gone or damaged is refused: starting over commits that output a"
                                    + " second time. Use it with new output topics."),
                    JobOption.flag(
                            "--take-over-output",
                            "Claim the output topics even though another stream (another checkpoint"
                                    + " directory) owns them: for when that stream is gone for good. A"
                                    + " running owner on this program's embedded cluster notices within"
                                    + " seconds and stops."),
                    JobOption.value(
                            "--until-idle",
                            "DURATION",
                            "Stop cleanly, with a savepoint and all output committed, once no input"
                                    + " record has arrived for this long (10s, 2min; a bare number is"
                                    + " seconds) and all input is consumed as of a completed checkpoint"
                                    + " (the consumer group's committed offsets). Default: run until"
                                    + " killed."));

    /** Every option of the job, its own and those of the groups it takes. */
    static final List<JobOption> OPTIONS =
            Stream.of(
                            OWN,
                            StreamOptions.FLAGS,
                            PipelineArgs.OPTIONS,
                            ClusterArgs.OPTIONS,
                            KafkaArgs.OPTIONS,
                            ReportArgs.OPTIONS,
                            HotlineArgs.OPTIONS)
                    .flatMap(List::stream)
                    .toList();

    final JobArgs args;
    final String reportTopic;
    final String inputTopic;
    final String outputTopic;
    final List<Path> pipelineFiles;
    final String controlTopic;
    final String statusTopic;
    final Path controlDir;
    final Path statusDir;
    final Path checkpointDir;
    final Duration checkpointInterval;
    final int parallelism;
    final Path fromSavepoint;
    final boolean startOver;
    final boolean takeOverOutput;

    /** {@code --until-idle}: a duration, or a bare number of seconds (as it was first). */
    final Duration untilIdle;

    /**
     * Reads and checks the values that are wrong on their own.
     *
     * @throws JobArgumentException naming the first bad one
     */
    StreamArgs(JobArgs args) {
        this.args = args;
        reportTopic = args.string("--report-topic");
        inputTopic = args.string("--input-topic");
        outputTopic = args.string("--output-topic");
        pipelineFiles = args.paths("--pipeline");
        controlTopic = args.string("--control-topic");
        statusTopic = args.string("--status-topic");
        controlDir = args.path("--control-dir");
        statusDir = args.path("--status-dir");
        checkpointDir = args.path(CHECKPOINT_DIR);
        checkpointInterval = args.duration("--checkpoint-interval", "");
        parallelism = LaunchChecks.parallelism(args.integer(ClusterArgs.PARALLELISM));
        fromSavepoint = args.path("--from-savepoint");
        startOver = args.flag("--start-over");
        takeOverOutput = args.flag("--take-over-output");
        untilIdle = args.duration(UNTIL_IDLE, "s");
        check();
    }

    private void check() {
        // the job reads these settings from its configuration (StreamOptions.FLAGS): checked here
        args.duration("--input-wait", "");
        args.duration("--linger", "");
        int blockLines = args.integer("--block-lines");
        Integer outputPartitions = args.integer("--output-partitions");
        if (blockLines < 1) {
            throw JobArgumentException.of("--block-lines", "must be at least 1, not " + blockLines);
        }
        if (untilIdle != null && untilIdle.toMillis() < 1000) {
            throw JobArgumentException.of(
                    UNTIL_IDLE, "must be at least 1 second, not " + args.string(UNTIL_IDLE));
        }
        if (fromSavepoint != null && !Files.isRegularFile(fromSavepoint.resolve("_metadata"))) {
            throw JobArgumentException.of(
                    "--from-savepoint", fromSavepoint + " holds no _metadata file");
        }
        if (Files.exists(checkpointDir) && !Files.isDirectory(checkpointDir)) {
            throw JobArgumentException.of(CHECKPOINT_DIR, checkpointDir + " is not a directory");
        }
        if (outputPartitions != null && outputPartitions < 1) {
            throw JobArgumentException.of(
                    "--output-partitions", "must be at least 1, not " + outputPartitions);
        }
        if (controlDir != null && !Files.isDirectory(controlDir)) {
            throw JobArgumentException.of("--control-dir", controlDir + " is not a directory");
        }
    }
}
