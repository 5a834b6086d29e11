package dev.piper.job;

import dev.piper.core.block.KafkaOut;
import dev.piper.feed.InputProbe;
import dev.piper.feed.TopicCreation;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;

/** The topics of a stream: its inputs checked, its missing outputs created. */
public final class StreamTopics {

    private StreamTopics() {}

    /** How often {@link #awaitInputs} says it is still waiting. */
    private static final Duration WAIT_REPORT = Duration.ofSeconds(10);

    /**
     * Waits until every input topic of {@code conf} exists, for at most {@link
     * StreamOptions#INPUT_WAIT}, saying every few seconds which ones it waits for: a stream may
     * start before its producer creates its topic. It never creates an input topic itself (its
     * partition count is the producer's choice).
     *
     * @throws IllegalArgumentException naming the input topics still missing at the deadline
     */
    public static void awaitInputs(Configuration conf, PrintStream progress) throws Exception {
        List<String> inputs = StreamPipelines.of(conf).topicsRead();
        Duration wait = conf.get(StreamOptions.INPUT_WAIT);
        long start = System.nanoTime();
        long lastReport = Long.MIN_VALUE;
        try (InputProbe probe = probe(conf)) {
            while (true) {
                Set<String> existing =
                        probe.await("listing topics", probe.admin().listTopics().names());
                List<String> missing = inputs.stream().filter(t -> !existing.contains(t)).toList();
                if (missing.isEmpty()) {
                    return;
                }
                long now = System.nanoTime();
                String names = (missing.size() == 1 ? "input topic " : "input topics ") + missing;
                if (now - start >= wait.toNanos()) {
                    throw new IllegalArgumentException(
                            names
                                    + (missing.size() == 1 ? " does" : " do")
                                    + " not exist on "
                                    + conf.get(StreamOptions.BOOTSTRAP_SERVERS)
                                    + " after "
                                    + wait.toSeconds()
                                    + " s of waiting (--input-wait): create "
                                    + (missing.size() == 1 ? "it" : "them")
                                    + " with the partition count the input needs, e.g. 'piper"
                                    + " produce --topic "
                                    + missing.get(0)
                                    + " --partitions 2 ...'");
                }
                if (lastReport == Long.MIN_VALUE || now - lastReport >= WAIT_REPORT.toNanos()) {
                    progress.printf(
                            "stream: waiting for %s on %s to be created (up to %d s more,"
                                    + " --input-wait)%n",
                            names,
                            conf.get(StreamOptions.BOOTSTRAP_SERVERS),
                            (wait.toNanos() - (now - start)) / 1_000_000_000L);
                    lastReport = now;
                }
                Thread.sleep(250);
            }
        }
    }

    /**
     * The input records the stream's consumer group has committed (the sum of its committed offsets
     * on the input topics): the source commits them only when a checkpoint completes, with that
     * checkpoint's output, so a positive count means a stream of this group committed output.
     */
    public static long committedInput(Configuration conf) {
        try (InputProbe probe = probe(conf)) {
            return probe.poll().committed();
        }
    }

    /**
     * Checks that the input topics exist and creates missing output topics: each pipeline's rows
     * with {@code --output-partitions} partitions (default: as many as its input) and a record
     * limit that list columns need (also those of a spec switched to later), and records in {@code
     * conf} the smallest limit of the rows topics ({@link StreamOptions#ROWS_RECORD_LIMIT}); dead
     * letters with as many partitions as its input, vocabulary, control and status topics with one
     * (so each column's entries, and specs, keep their order), all with the broker's default
     * replication. A topic that another client creates meanwhile (a second stream started at the
     * same moment) is checked as an existing one.
     *
     * <p>An existing rows topic must have the partitions the stream would create it with (a topic
     * that a reader's metadata request made the broker create has one, and a trainer of rank 1 of 4
     * would read nothing), unless {@code --output-partitions} names its count, and must take the
     * records the pipeline's spec makes.
     *
     * @throws IllegalArgumentException naming an input topic that does not exist, or an existing
     *     rows topic that does not fit, with both counts or limits
     */
    public static void prepareTopics(Configuration conf, PrintStream progress) throws Exception {
        StreamPipelines pipelines = StreamPipelines.of(conf);
        try (InputProbe probe = probe(conf)) {
            Set<String> existing =
                    probe.await("listing topics", probe.admin().listTopics().names());
            for (String input : pipelines.topicsRead()) {
                if (!existing.contains(input)) {
                    throw new IllegalArgumentException(
                            "input topic "
                                    + input
                                    + " does not exist on "
                                    + conf.get(StreamOptions.BOOTSTRAP_SERVERS));
                }
            }
            Map<String, NewTopic> missing = new LinkedHashMap<>();
            int blockBytes = conf.get(PiperOptions.BLOCK_BYTES);
            // Rows topics the stream creates take records of lists, so that a switch to a spec
            // with list columns fits them too; an existing one keeps its limit, recorded for the
            // control operator's checks.
            int roomy = KafkaOut.maxRecordBytes(blockBytes, true);
            Map<String, Integer> rowsPartitions = new LinkedHashMap<>();
            for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
                int partitions = probe.partitions(p.inputTopic());
                rowsPartitions.putIfAbsent(
                        p.outputTopic(),
                        conf.getOptional(StreamOptions.OUTPUT_PARTITIONS).orElse(partitions));
                if (!existing.contains(p.outputTopic())) {
                    NewTopic rows =
                            new NewTopic(
                                    p.outputTopic(),
                                    Optional.of(rowsPartitions.get(p.outputTopic())),
                                    Optional.empty());
                    rows.configs(Map.of(MAX_MESSAGE_BYTES, Integer.toString(roomy)));
                    missing.putIfAbsent(p.outputTopic(), rows);
                }
                if (!existing.contains(p.deadLetterTopic())) {
                    missing.putIfAbsent(
                            p.deadLetterTopic(),
                            new NewTopic(
                                    p.deadLetterTopic(),
                                    Optional.of(partitions),
                                    Optional.empty()));
                }
                if (p.vocabTopic() != null && !existing.contains(p.vocabTopic())) {
                    missing.putIfAbsent(
                            p.vocabTopic(),
                            new NewTopic(p.vocabTopic(), Optional.of(1), Optional.empty()));
                }
            }
            missingSingles(conf, existing, missing);
            Set<String> created = create(probe, missing.values(), progress);
            int recordLimit =
                    recordLimit(conf, probe, pipelines, created, rowsPartitions, roomy, progress);
            conf.set(StreamOptions.ROWS_RECORD_LIMIT, recordLimit);
        }
    }

    /** Adds the control, status and report topics the configuration names and lacks. */
    private static void missingSingles(
            Configuration conf, Set<String> existing, Map<String, NewTopic> missing) {
        for (Optional<String> single :
                List.of(
                        conf.getOptional(StreamOptions.CONTROL_TOPIC),
                        StreamOptions.statusTopic(conf),
                        conf.getOptional(StreamOptions.REPORT_TOPIC))) {
            single.filter(t -> !existing.contains(t))
                    .ifPresent(
                            t ->
                                    missing.putIfAbsent(
                                            t, new NewTopic(t, Optional.of(1), Optional.empty())));
        }
    }

    /**
     * The largest rows record every rows topic takes: {@code roomy} for the ones just {@code
     * created}; an existing one's is checked against its pipeline's starting spec (and its
     * partitions against {@code rowsPartitions}), and said when a switch to lists would not fit.
     */
    private static int recordLimit(
            Configuration conf,
            InputProbe probe,
            StreamPipelines pipelines,
            Set<String> created,
            Map<String, Integer> rowsPartitions,
            int roomy,
            PrintStream progress)
            throws Exception {
        int blockBytes = conf.get(PiperOptions.BLOCK_BYTES);
        int recordLimit = Integer.MAX_VALUE;
        for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
            if (created.contains(p.outputTopic())) {
                recordLimit = Math.min(recordLimit, roomy);
                continue;
            }
            checkPartitions(conf, probe, p.outputTopic(), rowsPartitions.get(p.outputTopic()));
            int needed = KafkaOut.maxRecordBytes(blockBytes, p.start().spec().layout().hasLists());
            int limit = checkRecordLimit(probe, p, needed);
            if (limit < roomy) {
                progress.printf(
                        "stream: rows topic %s takes records of at most %,d bytes (%s), enough"
                                + " for pipeline %s but less than the %,d of a rows topic the"
                                + " stream creates: a switch to a spec with list columns will"
                                + " be refused%n",
                        p.outputTopic(), limit, MAX_MESSAGE_BYTES, p.name(), roomy);
            }
            recordLimit = Math.min(recordLimit, limit);
        }
        return recordLimit;
    }

    /**
     * Creates {@code topics}, each on its own, and says so; a topic that exists by then (created by
     * another client since the listing) is left to the checks of existing topics.
     *
     * @return the names of the topics created here
     */
    static Set<String> create(InputProbe probe, Collection<NewTopic> topics, PrintStream progress) {
        Set<String> created = new HashSet<>();
        if (topics.isEmpty()) {
            return created;
        }
        Map<String, KafkaFuture<Void>> results = probe.admin().createTopics(topics).values();
        for (NewTopic t : topics) {
            try {
                probe.await("creating topic " + t.name(), results.get(t.name()));
                servedByItsLeaders(probe, t.name());
                created.add(t.name());
                progress.printf(
                        "stream: created topic %s (%s)%n",
                        t.name(), TopicCreation.partitions(t.numPartitions()));
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                progress.printf(
                        "stream: topic %s was created by another client meanwhile; checking it"
                                + " as an existing one%n",
                        t.name());
            }
        }
        return created;
    }

    /**
     * Waits until every partition of a topic just created is served by its leader ({@link
     * TopicCreation#awaitLeaders}), so that the stream's first transactions do not meet a leader
     * that has not opened its partition yet.
     */
    private static void servedByItsLeaders(InputProbe probe, String topic) {
        try {
            TopicCreation.awaitLeaders(probe.admin(), topic, Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for topic " + topic, e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(
                    "topic " + topic + " was created, but asking for its leaders failed: " + e, e);
        }
    }

    /**
     * Refuses an existing rows topic whose partition count is not {@code expected} (given with
     * {@code --output-partitions}, or its input's), naming both.
     */
    private static void checkPartitions(
            Configuration conf, InputProbe probe, String topic, int expected) {
        int actual =
                probe.await(
                                "describing topic " + topic,
                                probe.admin().describeTopics(List.of(topic)).allTopicNames())
                        .get(topic)
                        .partitions()
                        .size();
        if (actual == expected) {
            return;
        }
        boolean asked = conf.getOptional(StreamOptions.OUTPUT_PARTITIONS).isPresent();
        throw new IllegalArgumentException(
                "rows topic "
                        + topic
                        + " exists with "
                        + TopicCreation.partitions(actual)
                        + ", but "
                        + (asked
                                ? "--output-partitions asks for " + expected
                                : "the stream would create it with " + expected + " (its input's)")
                        + "; trainers reading it by rank would not get the share they expect."
                        + " A topic that a reader's metadata request made the broker create"
                        + " (auto.create.topics.enable) looks like this. Delete it and let the"
                        + " stream create it, or pass --output-partitions "
                        + actual
                        + " to use it as it is");
    }

    private static final String MAX_MESSAGE_BYTES = "max.message.bytes";

    /**
     * The record limit of an existing rows topic ({@code max.message.bytes}, the broker's default
     * where the topic sets none); refuses it if it is below what pipeline {@code p}'s records may
     * need (rows with list columns), rather than fail the running job on its first large block.
     */
    private static int checkRecordLimit(InputProbe probe, StreamPipelines.Pipeline p, int needed)
            throws Exception {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, p.outputTopic());
        Config config =
                probe.await(
                                "reading the configuration of " + p.outputTopic(),
                                probe.admin().describeConfigs(List.of(topic)).all())
                        .get(topic);
        ConfigEntry entry = config == null ? null : config.get(MAX_MESSAGE_BYTES);
        int limit =
                entry == null || entry.value() == null
                        ? KafkaOut.DEFAULT_RECORD_LIMIT
                        : (int) Math.min(Integer.MAX_VALUE, Long.parseLong(entry.value()));
        if (limit < needed) {
            throw new IllegalArgumentException(
                    "rows topic "
                            + p.outputTopic()
                            + " takes records of at most "
                            + limit
                            + " bytes ("
                            + MAX_MESSAGE_BYTES
                            + "), but pipeline "
                            + p.name()
                            + "'s list columns make records of up to "
                            + needed
                            + " bytes at this --block-bytes; raise it (kafka-configs.sh --alter"
                            + " --entity-type topics --entity-name "
                            + p.outputTopic()
                            + " --add-config "
                            + MAX_MESSAGE_BYTES
                            + "="
                            + needed
                            + "), lower --block-bytes, or let the stream create the topic");
        }
        return limit;
    }

    /** A watcher of {@code conf}'s input topics and its consumer group's progress. */
    static InputProbe probe(Configuration conf) {
        return new InputProbe(
                StreamOptions.required(conf, StreamOptions.BOOTSTRAP_SERVERS),
                StreamOptions.kafkaProperties(conf),
                StreamPipelines.of(conf).topicsRead(),
                StreamOptions.groupId(conf));
    }
}
