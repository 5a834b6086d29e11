package dev.piper.job;

import dev.piper.connectors.files.ControlFiles;
import dev.piper.connectors.kafka.KafkaConnectors;
import dev.piper.core.block.FastForward;
import dev.piper.core.block.KafkaOut;
import dev.piper.feed.InputProbe;
import dev.piper.feed.KafkaImpressionLines;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.pipeline.hotline.HotlineSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.RecoveryClaimMode;

/**
 * The configuration of the Kafka stream of {@code bin/piper stream} and the production job it
 * describes: its connectors picked from that configuration. Where it resumes is {@link
 * CheckpointDirectory}'s, its topics {@link StreamTopics}', running it {@link StreamRunner}'s.
 */
public final class Streaming {

    private Streaming() {}

    /**
     * The runtime configuration of a stream run on the embedded cluster: the batch settings plus
     * {@link #checkpointing}.
     */
    public static Configuration configuration(
            int parallelism, StateBackend backend, Path checkpointDir, Duration interval) {
        Configuration conf = EmbeddedRunner.configuration(parallelism, backend);
        conf.addAll(checkpointing(checkpointDir, interval));
        // every snapshot sealed before its output is committed (on a cluster, the job commands
        // seal the savepoints they take)
        conf.set(
                CheckpointingOptions.CHECKPOINT_STORAGE,
                SealingCheckpointStorage.Factory.class.getName());
        return conf;
    }

    /**
     * How often a stream restarts after failures that follow each other with no stretch of steady
     * running in between ({@link #RESTART_QUIET}) before it gives up and fails with the last cause.
     * A transient fault (a broker restarted, a TaskManager lost) costs one to three restarts; a
     * permanent one (a state file gone, a full checkpoint disk) fails every attempt and ends the
     * run within about a minute instead of restarting for ever.
     */
    public static final int RESTART_ATTEMPTS = 6;

    /** The first restart's delay; each next one doubles it, up to {@link #RESTART_MAX_DELAY}. */
    static final Duration RESTART_DELAY = Duration.ofMillis(500);

    static final Duration RESTART_MAX_DELAY = Duration.ofSeconds(8);

    /**
     * Steady running after which the count of restarts starts again: at least 30 s, and more than
     * two checkpoint intervals, so that a checkpoint that fails every time (a full disk) is never
     * mistaken for a recovery.
     */
    static Duration restartQuiet(Duration checkpointInterval) {
        Duration twoIntervals = checkpointInterval.multipliedBy(2).plusSeconds(10);
        return twoIntervals.compareTo(RESTART_QUIET) > 0 ? twoIntervals : RESTART_QUIET;
    }

    private static final Duration RESTART_QUIET = Duration.ofSeconds(30);

    /**
     * The stream's own settings, on any cluster: exactly-once checkpoints every {@code interval}
     * into {@code checkpointDir}/checkpoints (the latest two retained when the job stops or dies,
     * so that a damaged newest one leaves an earlier one to fall back to), savepoints into {@code
     * checkpointDir}/savepoints, restarts with exponential delay, at most {@link #RESTART_ATTEMPTS}
     * in a row.
     */
    public static Configuration checkpointing(Path checkpointDir, Duration interval) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
        conf.set(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
                RESTART_DELAY);
        conf.set(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
                RESTART_MAX_DELAY);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER, 2.0);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR, 0.1);
        conf.set(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS,
                RESTART_ATTEMPTS);
        conf.set(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD,
                restartQuiet(interval));
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
        conf.set(
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                CheckpointingMode.EXACTLY_ONCE);
        conf.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                checkpointDir.resolve(CheckpointDirectory.CHECKPOINTS).toUri().toString());
        conf.set(
                CheckpointingOptions.SAVEPOINT_DIRECTORY,
                checkpointDir.resolve(CheckpointDirectory.SAVEPOINTS).toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, RETAINED_CHECKPOINTS);
        return conf;
    }

    /** Completed checkpoints kept: the newest and the one before it. */
    public static final int RETAINED_CHECKPOINTS = 2;

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

    /** The stream job described by {@code conf} ({@link StreamOptions}, {@link PiperOptions}). */
    public static StreamJob job(Configuration conf) {
        return job(conf, null);
    }

    /**
     * The stream job described by {@code conf}, passing over the output {@code fastForward} names
     * (null: none).
     */
    public static StreamJob job(Configuration conf, FastForward fastForward) {
        StreamOptions.validate(conf);
        StreamPipelines pipelines = StreamPipelines.of(conf);
        String bootstrap = StreamOptions.required(conf, StreamOptions.BOOTSTRAP_SERVERS);
        Map<String, String> props = StreamOptions.kafkaProperties(conf);
        // a label join's job reads its topics through the join's own source
        var source =
                pipelines.get(0).start().spec().labels() != null
                        ? null
                        : KafkaConnectors.source(
                                bootstrap,
                                pipelines.inputTopics(),
                                pipelines.pipelineOfTopic(),
                                StreamOptions.groupId(conf),
                                conf.get(StreamOptions.START_FROM),
                                props);
        int blockBytes = conf.get(PiperOptions.BLOCK_BYTES);
        // The largest rows record: what the rows topics take (read as the stream starts), else
        // what the starting specs need.
        int recordLimit =
                conf.getOptional(StreamOptions.ROWS_RECORD_LIMIT)
                        .orElse(KafkaOut.maxRecordBytes(blockBytes, pipelines.anyLists()));
        var sink =
                KafkaConnectors.sink(
                        bootstrap,
                        pipelines.sinkTopics(),
                        StreamOptions.transactionalIdPrefix(conf),
                        recordLimit,
                        props);
        StreamJob.Chunking chunking =
                new StreamJob.Chunking(
                        blockBytes,
                        conf.get(StreamOptions.BLOCK_LINES),
                        Math.max(1, conf.get(StreamOptions.LINGER).toMillis()),
                        recordLimit);
        StreamJob job =
                new StreamJob(
                        source, sink, pipelines, conf.get(PiperOptions.MAX_RAW_BYTES), chunking);
        job.withVocabularyEntries(PiperOptions.vocabEntriesCache(conf));
        if (fastForward != null) {
            job.withFastForward(fastForward);
        }
        withLabelJoin(job, conf, pipelines, bootstrap, props);
        withControl(job, conf, bootstrap, props);
        withHotline(job, conf, pipelines);
        Optional<String> reportTopic = conf.getOptional(StreamOptions.REPORT_TOPIC);
        if (reportTopic.isPresent()) {
            job.withReport(
                    ReportOptions.settings(conf),
                    KafkaConnectors.reportSink(bootstrap, reportTopic.get(), props));
        }
        return job;
    }

    /**
     * The label join, if the pipeline's spec has a labels section: its impressions' and action
     * streams' topics read by one source, each record as the join reads it.
     */
    private static void withLabelJoin(
            StreamJob job,
            Configuration conf,
            StreamPipelines pipelines,
            String bootstrap,
            Map<String, String> props) {
        if (pipelines.pipelines().stream().allMatch(p -> p.start().spec().labels() == null)) {
            return;
        }
        StreamPipelines.Pipeline p = pipelines.get(0); // the only one: StreamJob checks it
        List<String> topics = p.topicsRead();
        Map<String, Integer> sourceOfTopic = new HashMap<>();
        for (int i = 0; i < topics.size(); i++) {
            sourceOfTopic.put(topics.get(i), i);
        }
        job.withLabelJoin(
                new StreamJob.LabelJoinSource(
                        KafkaConnectors.joinSource(
                                bootstrap,
                                sourceOfTopic,
                                p.start().spec().labels(),
                                p.start().options(conf.get(PiperOptions.MAX_RAW_BYTES)),
                                StreamOptions.groupId(conf),
                                conf.get(StreamOptions.START_FROM),
                                props,
                                conf.get(StreamOptions.JOIN_READ_AHEAD).toMillis(),
                                conf.get(StreamOptions.JOIN_LINES)
                                        == StreamOptions.JoinLines.topic),
                        topics.toArray(String[]::new),
                        readers(conf),
                        // whichever way this run holds them: a restored checkpoint may hold
                        // positions
                        KafkaImpressionLines.opener(bootstrap, topics.get(0), props, true),
                        KafkaImpressionLines.opener(bootstrap, topics.get(0), props, false)));
    }

    /**
     * How many subtasks read the label join's topics: the job's parallelism, or fewer where a
     * subtask would get none of the topics' partitions (a reader without one would hold the
     * watermark back, as Kafka's source does not go idle: {@link
     * KafkaConnectors#readersWithAPartitionEach}); the job's parallelism where it is a cluster's
     * default or the topics cannot be described now (the run then waits for them as for any input).
     */
    private static int readers(Configuration conf) {
        var given =
                conf.getOptional(org.apache.flink.configuration.CoreOptions.DEFAULT_PARALLELISM);
        if (given.isEmpty()) {
            return 0; // a cluster's own default, not known here
        }
        int parallelism = given.get();
        try (InputProbe probe = StreamTopics.probe(conf)) { // the job's topics: these
            return KafkaConnectors.readersWithAPartitionEach(probe.partitions(), parallelism);
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /** The control stream, if the configuration names one: a topic or a directory of specs. */
    private static void withControl(
            StreamJob job, Configuration conf, String bootstrap, Map<String, String> props) {
        Optional<String> control = conf.getOptional(StreamOptions.CONTROL_TOPIC);
        Optional<String> controlDir = conf.getOptional(StreamOptions.CONTROL_DIR);
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
    }

    /**
     * Hotline's split: {@code --hotline-budget} splits every pipeline; otherwise each spec's
     * hotline section its own.
     *
     * @throws IllegalArgumentException for a split pipeline without a vocabulary topic
     */
    private static void withHotline(StreamJob job, Configuration conf, StreamPipelines pipelines) {
        HotlineSettings given = HotlineOptions.settings(conf);
        HotlineSettings[] hotline = new HotlineSettings[pipelines.size()];
        boolean any = false;
        for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
            hotline[p.index()] = given != null ? given : p.start().spec().hotline();
            if (hotline[p.index()] != null) {
                any = true;
                if (p.vocabTopic() == null) {
                    throw new IllegalArgumentException(
                            "pipeline "
                                    + p.name()
                                    + ": Hotline's split needs a vocabulary topic ("
                                    + StreamOptions.VOCAB_TOPIC.key()
                                    + "), where the hot sets are published");
                }
            }
        }
        if (any) {
            job.withHotline(hotline);
        }
    }
}
