package dev.piper.job;

import dev.piper.connectors.kafka.KafkaConnectors.StartFrom;
import dev.piper.job.args.JobOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;

/**
 * Configuration of the Kafka stream job ({@code bin/piper stream}, and the cluster job of the
 * deployment docs). The decoder's options are the batch job's ({@link PiperOptions}).
 */
public final class StreamOptions {

    public static final ConfigOption<String> BOOTSTRAP_SERVERS =
            ConfigOptions.key("piper.kafka.bootstrap-servers")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Kafka bootstrap servers, host:port[,host:port...].");

    public static final ConfigOption<String> INPUT_TOPIC =
            ConfigOptions.key("piper.kafka.input-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Topic of Criteo lines: one line per record value (several"
                                    + " \\n-separated lines are accepted too).");

    public static final ConfigOption<String> OUTPUT_TOPIC =
            ConfigOptions.key("piper.kafka.output-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Topic of the row blocks (the rows.bin layout per record, then any"
                                    + " list columns; docs/SEMANTICS.md).");

    public static final ConfigOption<Integer> OUTPUT_PARTITIONS =
            ConfigOptions.key("piper.kafka.output-partitions")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "Partitions of a rows topic the stream creates (default: as many as its"
                                    + " input topic): block b of input partition p goes to"
                                    + " partition (p + b) mod N, so N trainer workers each read"
                                    + " their share. An existing topic keeps its own.");

    public static final ConfigOption<Duration> INPUT_WAIT =
            ConfigOptions.key("piper.kafka.input-wait")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(2))
                    .withDescription(
                            "How long a starting stream waits for its input topics to be created"
                                    + " (a stream may start before its producer) before it fails"
                                    + " naming the missing ones.");

    public static final ConfigOption<String> CLAIMS_TOPIC =
            ConfigOptions.key("piper.kafka.claims-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Topic of the rows topics' claims (created if absent, one partition,"
                                    + " kept for ever): a stream claims its rows topics as it"
                                    + " starts, and a second stream with another checkpoint"
                                    + " directory on the same rows topic is refused, naming the"
                                    + " first. Default: each rows topic's name followed by"
                                    + " -claims.");

    public static final ConfigOption<Integer> ROWS_RECORD_LIMIT =
            ConfigOptions.key("piper.kafka.rows-record-limit")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "Set by the stream as it starts, from its rows topics (the smallest"
                                    + " max.message.bytes): the largest rows record a spec"
                                    + " switched to may make. Default: Kafka's 1 MiB, or what the"
                                    + " starting spec's list columns need.");

    public static final ConfigOption<String> DEAD_LETTER_TOPIC =
            ConfigOptions.key("piper.kafka.dead-letter-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Topic of the dead letters (JSON). Default: the output topic's"
                                    + " name followed by -dead-letters.");

    public static final ConfigOption<String> VOCAB_TOPIC =
            ConfigOptions.key("piper.kafka.vocab-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Topic of the new vocabulary entries (column, index, key). Default:"
                                    + " none are published.");

    public static final ConfigOption<String> PIPELINES =
            ConfigOptions.key("piper.stream.pipelines")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Several pipelines in one job: a JSON array of specs, each naming its"
                                    + " input.topic; piper.kafka.output-topic (default"
                                    + " {pipeline}-rows) and piper.kafka.vocab-topic are then"
                                    + " templates in which {pipeline} stands for the spec's name."
                                    + " Default: one pipeline, piper.spec on"
                                    + " piper.kafka.input-topic.");

    public static final ConfigOption<String> REPORT_TOPIC =
            ConfigOptions.key("piper.kafka.report-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Topic of the hardware cost reports (JSON, one per pipeline and"
                                    + " interval, keyed by pipeline name; at least once). Needs"
                                    + " piper.report.enabled. Default: none.");

    public static final ConfigOption<String> CONTROL_TOPIC =
            ConfigOptions.key("piper.kafka.control-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Topic of pipeline specs (JSON, one per record) that reconfigure the"
                                    + " running job (docs/SPECS.md). Default: none; the job runs"
                                    + " its starting spec.");

    public static final ConfigOption<String> STATUS_TOPIC =
            ConfigOptions.key("piper.kafka.status-topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Topic of the control status records: each spec's acceptance or"
                                    + " rejection, and where it took effect. Default: the control"
                                    + " topic's name followed by -status.");

    public static final ConfigOption<String> CONTROL_DIR =
            ConfigOptions.key("piper.stream.control-dir")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A directory watched for pipeline specs instead of a control topic:"
                                    + " each *.json file that appears in it (write it elsewhere"
                                    + " and move it in) is one spec, read once. Not with"
                                    + " piper.kafka.control-topic.");

    public static final ConfigOption<String> STATUS_DIR =
            ConfigOptions.key("piper.stream.status-dir")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Where the control status of a control directory goes, as JSON-lines"
                                    + " files committed with each checkpoint. Default: the"
                                    + " control directory's status/ subdirectory.");

    public static final ConfigOption<String> TRANSACTIONAL_ID_PREFIX =
            ConfigOptions.key("piper.kafka.transactional-id-prefix")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Prefix of the sink's transactional ids; must be unique among the"
                                    + " jobs writing to the cluster and the same across restarts"
                                    + " of one job. Default: piper- and the output topic.");

    public static final ConfigOption<String> GROUP_ID =
            ConfigOptions.key("piper.kafka.group-id")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Consumer group of the source: offsets are committed to it at each"
                                    + " checkpoint for monitoring (the job itself resumes from its"
                                    + " checkpoints). Default: piper- and the output topic.");

    public static final ConfigOption<StartFrom> START_FROM =
            ConfigOptions.key("piper.kafka.start-from")
                    .enumType(StartFrom.class)
                    .defaultValue(StartFrom.earliest)
                    .withDescription(
                            "Where a run without restored state starts reading: earliest,"
                                    + " latest, or the group's committed offsets.");

    public static final String KAFKA_PROPERTY_PREFIX = "piper.kafka.property.";

    public static final ConfigOption<Integer> BLOCK_LINES =
            ConfigOptions.key("piper.stream.block-lines")
                    .intType()
                    .defaultValue(4096)
                    .withDescription(
                            "Most lines (rows) in one block, hence in one output record:"
                                    + " 4096 rows are 640 KiB, within Kafka's default 1 MiB"
                                    + " record limit.");

    public static final ConfigOption<Duration> LINGER =
            ConfigOptions.key("piper.stream.linger")
                    .durationType()
                    .defaultValue(Duration.ofMillis(200))
                    .withDescription(
                            "Longest time a block waits for more lines before it is cut. Blocks"
                                    + " are also cut before every checkpoint.");

    public static final ConfigOption<Duration> JOIN_READ_AHEAD =
            ConfigOptions.key("piper.stream.join-read-ahead")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "How far in event time the label join's source reads one partition"
                                    + " ahead of another that still delivers records, of the same"
                                    + " reader or another: an impression or action read ahead"
                                    + " waits in the join's state until the watermark passes it."
                                    + " 0: no bound.");

    /** Where the label join keeps the lines of the impressions waiting for their windows. */
    public enum JoinLines {
        /** In the join's keyed state, whole: every checkpoint writes them. */
        state,
        /**
         * In the impressions' topic: the join holds each one's position (tens of bytes) and reads
         * the line back when its row goes out; the topic's retention must outlast the longest
         * window.
         */
        topic
    }

    public static final ConfigOption<JoinLines> JOIN_LINES =
            ConfigOptions.key("piper.stream.join-lines")
                    .enumType(JoinLines.class)
                    .defaultValue(JoinLines.state)
                    .withDescription(
                            "Where the label join keeps a waiting impression's line: state (the"
                                    + " line in keyed state, written by every checkpoint) or"
                                    + " topic (its position only, the line read back from the"
                                    + " impressions' topic when its row goes out; the topic must"
                                    + " keep it past the longest window; for long windows).");

    /**
     * The {@code stream} options that set one of these settings as given (the program checks the
     * rest of its options itself): a new one is a setting above and its line here.
     */
    public static final List<JobOption> FLAGS =
            List.of(
                    JobOption.setting(
                            "--input-wait",
                            "DURATION",
                            INPUT_WAIT,
                            "How long to wait for input topics that do not exist yet (the stream may start"
                                    + " before its producer) before failing (default: ${DEFAULT-VALUE})."),
                    JobOption.setting(
                            "--output-partitions",
                            "N",
                            OUTPUT_PARTITIONS,
                            "Partitions of a rows topic the stream creates (default: the input topic's):"
                                    + " block b of input partition p goes to partition (p + b) mod N, so"
                                    + " N trainer workers each read a share (docs/SEMANTICS.md). An"
                                    + " existing rows topic with another count is refused; name its"
                                    + " count here to use it as it is."),
                    JobOption.setting(
                            "--dead-letter-topic",
                            "D",
                            DEAD_LETTER_TOPIC,
                            "Topic of the dead letters (default: the output topic + -dead-letters)."),
                    JobOption.setting(
                            "--vocab-topic",
                            "V",
                            VOCAB_TOPIC,
                            "Topic to publish every new vocabulary entry to (column, index, key);"
                                    + " default: none."),
                    JobOption.setting(
                            "--block-lines",
                            "N",
                            BLOCK_LINES,
                            "Most rows per output record (160 bytes each; default ${DEFAULT-VALUE} fits"
                                    + " Kafka's default 1 MiB record limit)."),
                    JobOption.setting(
                            "--linger",
                            "DURATION",
                            LINGER,
                            "Longest wait for more lines before a block is cut (default: ${DEFAULT-VALUE})."),
                    JobOption.setting(
                            "--join-read-ahead",
                            "DURATION",
                            JOIN_READ_AHEAD,
                            "Label join: how far in event time one partition is read ahead of another"
                                    + " that still delivers records, by any reader; a record read"
                                    + " ahead waits in the join's state (default: ${DEFAULT-VALUE};"
                                    + " 0: read each as fast as it comes)."),
                    JobOption.setting(
                            "--join-lines",
                            "WHERE",
                            JOIN_LINES,
                            "Label join: where a waiting impression's line is kept: state (whole, in"
                                    + " every checkpoint) or topic (its position only, the line read back"
                                    + " from the impressions' topic as its row goes out; the topic's"
                                    + " retention must outlast the longest window) (default:"
                                    + " ${DEFAULT-VALUE})."),
                    JobOption.setting(
                            "--transactional-id-prefix",
                            "P",
                            TRANSACTIONAL_ID_PREFIX,
                            "Prefix of the sink's transactional ids: unique per job, stable across its"
                                    + " restarts (default: piper- + the output topic)."),
                    JobOption.setting(
                            "--group-id",
                            "G",
                            GROUP_ID,
                            "Consumer group the consumed offsets are committed to at each checkpoint, for"
                                    + " monitoring (default: piper- + the output topic)."),
                    JobOption.setting(
                            "--start-from",
                            "WHERE",
                            START_FROM,
                            "Where a run without restored state starts: earliest, latest or committed"
                                    + " (default: ${DEFAULT-VALUE})."));

    private StreamOptions() {}

    /** The Kafka client properties set with the {@link #KAFKA_PROPERTY_PREFIX} prefix. */
    public static Map<String, String> kafkaProperties(Configuration conf) {
        Map<String, String> props = new LinkedHashMap<>();
        conf.toMap()
                .forEach(
                        (k, v) -> {
                            if (k.startsWith(KAFKA_PROPERTY_PREFIX)) {
                                props.put(k.substring(KAFKA_PROPERTY_PREFIX.length()), v);
                            }
                        });
        return props;
    }

    /**
     * The rules between the control and report options, checked in this one place: by the job
     * before it is built ({@link #validate}, from {@link Streaming#job}) and by {@code piper
     * stream} before it starts anything, each naming the options its own way.
     *
     * @param name how the caller names an option: a configuration key, a command-line flag
     * @return the rules {@code conf} breaks, each message starting with the option at fault
     */
    public static List<String> problems(
            Configuration conf, Function<ConfigOption<?>, String> name) {
        boolean topic = conf.contains(CONTROL_TOPIC);
        boolean dir = conf.contains(CONTROL_DIR);
        boolean report = conf.contains(REPORT_TOPIC);
        List<String> problems = new ArrayList<>();
        if (conf.contains(STATUS_TOPIC) && !topic) {
            problems.add(name.apply(STATUS_TOPIC) + ": needs " + name.apply(CONTROL_TOPIC));
        }
        if (dir && topic) {
            problems.add(
                    name.apply(CONTROL_DIR)
                            + ": not with "
                            + name.apply(CONTROL_TOPIC)
                            + "; choose one (a job has one control stream)");
        }
        if (conf.getOptional(OUTPUT_PARTITIONS).filter(n -> n < 1).isPresent()) {
            problems.add(
                    name.apply(OUTPUT_PARTITIONS)
                            + ": must be at least 1, not "
                            + conf.get(OUTPUT_PARTITIONS));
        }
        if (conf.contains(STATUS_DIR) && !dir) {
            problems.add(name.apply(STATUS_DIR) + ": needs " + name.apply(CONTROL_DIR));
        }
        if (report && !conf.get(ReportOptions.ENABLED)) {
            problems.add(name.apply(REPORT_TOPIC) + ": needs " + name.apply(ReportOptions.ENABLED));
        }
        return problems;
    }

    /**
     * Checks {@link #problems} with the options named by their keys.
     *
     * @throws IllegalArgumentException naming every broken rule
     */
    public static void validate(Configuration conf) {
        List<String> problems = problems(conf, ConfigOption::key);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
    }

    /** The value of a required option, or an error naming it. */
    public static String required(Configuration conf, ConfigOption<String> option) {
        return conf.getOptional(option)
                .orElseThrow(() -> new IllegalArgumentException(option.key() + " is not set"));
    }

    public static String deadLetterTopic(Configuration conf) {
        return conf.getOptional(DEAD_LETTER_TOPIC)
                .orElse(required(conf, OUTPUT_TOPIC) + "-dead-letters");
    }

    /** The status directory of the control directory, if there is one. */
    public static Optional<java.nio.file.Path> statusDir(Configuration conf) {
        return conf.getOptional(CONTROL_DIR)
                .map(
                        d ->
                                conf.getOptional(STATUS_DIR)
                                        .map(java.nio.file.Path::of)
                                        .orElse(java.nio.file.Path.of(d).resolve("status")));
    }

    /** The status topic of the control stream, if there is one. */
    public static Optional<String> statusTopic(Configuration conf) {
        return conf.getOptional(CONTROL_TOPIC)
                .map(c -> conf.getOptional(STATUS_TOPIC).orElse(c + "-status"));
    }

    /**
     * What default names of a job's other resources derive from: the output topic, or for several
     * pipelines the output topic template with {@code pipelines} for the name.
     */
    private static String outputBase(Configuration conf) {
        if (conf.contains(PIPELINES)) {
            return conf.getOptional(OUTPUT_TOPIC)
                    .orElse(StreamPipelines.NAME + "-rows")
                    .replace(StreamPipelines.NAME, "pipelines");
        }
        return required(conf, OUTPUT_TOPIC);
    }

    public static String transactionalIdPrefix(Configuration conf) {
        return conf.getOptional(TRANSACTIONAL_ID_PREFIX).orElse("piper-" + outputBase(conf));
    }

    /**
     * The claims of rows topic {@code rowsTopic} on the stream's broker ({@link #CLAIMS_TOPIC}).
     */
    public static dev.piper.feed.OutputClaims claims(Configuration conf, String rowsTopic) {
        return new dev.piper.feed.OutputClaims(
                required(conf, BOOTSTRAP_SERVERS),
                kafkaProperties(conf),
                conf.getOptional(CLAIMS_TOPIC).orElse(rowsTopic + "-claims"));
    }

    public static String groupId(Configuration conf) {
        return conf.getOptional(GROUP_ID).orElse("piper-" + outputBase(conf));
    }
}
