package dev.piper.job;

import dev.piper.connectors.kafka.InputProbe;
import dev.piper.connectors.kafka.TopicCreation;
import dev.piper.operators.block.KafkaOut;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;

/** The topics of a stream: its inputs checked, its missing outputs created. */
public final class StreamTopics {

    private StreamTopics() {}

    /**
     * Checks that the input topics exist and creates missing output topics: each pipeline's rows
     * with {@code --output-partitions} partitions (default: as many as its input) and a record
     * limit that list columns need (also those of a spec switched to later), and records in {@code
     * conf} the smallest limit of the rows topics ({@link StreamOptions#ROWS_RECORD_LIMIT}); dead
     * letters with as many partitions as its input, vocabulary, control and status topics with one
     * (so each column's entries, and specs, keep their order), all with the broker's default
     * replication.
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
            int blockBytes = conf.get(PiperOptions.BLOCK_BYTES);
            // Rows topics the stream creates take records of lists, so that a switch to a spec
            // with list columns fits them too; an existing one keeps its limit, recorded for the
            // control operator's checks.
            int roomy = KafkaOut.maxRecordBytes(blockBytes, true);
            int recordLimit = Integer.MAX_VALUE;
            for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
                int partitions = probe.partitions(p.inputTopic());
                int rowsPartitions =
                        conf.getOptional(StreamOptions.OUTPUT_PARTITIONS).orElse(partitions);
                if (!existing.contains(p.outputTopic())) {
                    if (planned.add(p.outputTopic())) {
                        NewTopic rows =
                                new NewTopic(
                                        p.outputTopic(),
                                        Optional.of(rowsPartitions),
                                        Optional.empty());
                        rows.configs(Map.of(MAX_MESSAGE_BYTES, Integer.toString(roomy)));
                        missing.add(rows);
                    }
                    recordLimit = Math.min(recordLimit, roomy);
                } else {
                    int needed =
                            KafkaOut.maxRecordBytes(
                                    blockBytes, p.start().spec().layout().hasLists());
                    recordLimit = Math.min(recordLimit, checkRecordLimit(probe, p, needed));
                }
                if (!existing.contains(p.deadLetterTopic()) && planned.add(p.deadLetterTopic())) {
                    missing.add(
                            new NewTopic(
                                    p.deadLetterTopic(),
                                    Optional.of(partitions),
                                    Optional.empty()));
                }
                if (p.vocabTopic() != null
                        && !existing.contains(p.vocabTopic())
                        && planned.add(p.vocabTopic())) {
                    missing.add(new NewTopic(p.vocabTopic(), Optional.of(1), Optional.empty()));
                }
            }
            conf.set(StreamOptions.ROWS_RECORD_LIMIT, recordLimit);
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
                            "stream: created topic %s (%s)%n",
                            t.name(), TopicCreation.partitions(t.numPartitions()));
                }
            }
        }
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
                StreamPipelines.of(conf).inputTopics(),
                StreamOptions.groupId(conf));
    }
}
