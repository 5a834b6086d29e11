package dev.piper.job;

import dev.piper.connectors.kafka.InputProbe;
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
     * limit its list columns need, dead letters with as many partitions as its input, vocabulary,
     * control and status topics with one (so each column's entries, and specs, keep their order),
     * all with the broker's default replication.
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
            for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
                int partitions = probe.partitions(p.inputTopic());
                int rowsPartitions =
                        conf.getOptional(StreamOptions.OUTPUT_PARTITIONS).orElse(partitions);
                int recordBytes = StreamPipelines.maxRecordBytes(p, blockBytes);
                if (!existing.contains(p.outputTopic()) && planned.add(p.outputTopic())) {
                    NewTopic rows =
                            new NewTopic(
                                    p.outputTopic(), Optional.of(rowsPartitions), Optional.empty());
                    if (recordBytes > 1 << 20) {
                        rows.configs(Map.of(MAX_MESSAGE_BYTES, Integer.toString(recordBytes)));
                    }
                    missing.add(rows);
                } else if (existing.contains(p.outputTopic()) && recordBytes > 1 << 20) {
                    checkRecordLimit(probe, p, recordBytes);
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

    private static final String MAX_MESSAGE_BYTES = "max.message.bytes";

    /**
     * Refuses an existing rows topic whose record limit is below what pipeline {@code p}'s records
     * may need (rows with list columns), rather than fail the running job on its first large block.
     */
    private static void checkRecordLimit(InputProbe probe, StreamPipelines.Pipeline p, int needed)
            throws Exception {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, p.outputTopic());
        Config config =
                probe.await(
                                "reading the configuration of " + p.outputTopic(),
                                probe.admin().describeConfigs(List.of(topic)).all())
                        .get(topic);
        ConfigEntry limit = config == null ? null : config.get(MAX_MESSAGE_BYTES);
        if (limit != null && limit.value() != null && Long.parseLong(limit.value()) < needed) {
            throw new IllegalArgumentException(
                    "rows topic "
                            + p.outputTopic()
                            + " takes records of at most "
                            + limit.value()
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
