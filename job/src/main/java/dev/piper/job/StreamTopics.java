package dev.piper.job;

import dev.piper.connectors.kafka.InputProbe;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.NewTopic;

/** The topics of a stream: its inputs checked, its missing outputs created. */
public final class StreamTopics {

    private StreamTopics() {}

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

    /** A watcher of {@code conf}'s input topics and its consumer group's progress. */
    static InputProbe probe(Configuration conf) {
        return new InputProbe(
                StreamOptions.required(conf, StreamOptions.BOOTSTRAP_SERVERS),
                StreamOptions.kafkaProperties(conf),
                StreamPipelines.of(conf).inputTopics(),
                StreamOptions.groupId(conf));
    }
}
