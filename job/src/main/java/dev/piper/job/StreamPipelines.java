package dev.piper.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.Lanes;
import dev.piper.core.control.ActiveSpec;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.Configuration;

/**
 * The pipelines one stream job runs (MiniPipe's several pipelines on one device), each with its own
 * input topic, spec, vocabularies and output topics. A job started with {@code --spec} (or no spec)
 * runs one pipeline, index 0; one started with {@code --pipeline} files runs those, indexed in the
 * order of their names. The index is part of every lane ({@link Lanes}) and of every vocabulary's
 * key, so the set of pipelines is fixed for the life of a checkpoint directory.
 *
 * @param pipelines the pipelines, by index
 */
public record StreamPipelines(List<Pipeline> pipelines) {

    public StreamPipelines {
        pipelines = List.copyOf(pipelines);
        if (pipelines.isEmpty() || pipelines.size() > Lanes.MAX_PIPELINES) {
            throw new IllegalArgumentException(
                    "between 1 and " + Lanes.MAX_PIPELINES + " pipelines, not " + pipelines.size());
        }
        for (Pipeline p : pipelines) {
            var avro = p.start().spec().input().avro();
            if (avro != null && avro.schema() == null && !avro.registered()) {
                throw new IllegalArgumentException(
                        "pipeline "
                                + p.start().spec().name()
                                + ": an avro input read from Kafka needs its writer schema:"
                                + " input.schema (a .avsc file) for bare datums, or"
                                + " input.schema_registry for Confluent's wire format (a container"
                                + " file's own schema is for preprocess)");
            }
        }
    }

    /** The placeholder for the pipeline's name in the output topic options of several pipelines. */
    public static final String NAME = "{pipeline}";

    /**
     * One pipeline.
     *
     * @param index its position: the pipeline part of its lanes
     * @param start the spec it starts with
     * @param inputTopic the topic it reads
     * @param outputTopic its rows
     * @param deadLetterTopic its dead letters
     * @param vocabTopic its vocabulary records, or null for none
     */
    public record Pipeline(
            int index,
            ActiveSpec start,
            String inputTopic,
            String outputTopic,
            String deadLetterTopic,
            String vocabTopic) {

        public String name() {
            return start.name();
        }

        /**
         * The topics it reads: its input topic and, with a label join, each action stream's topic,
         * in the spec's order (a record's source is its index here).
         */
        public List<String> topicsRead() {
            List<String> topics = new ArrayList<>(List.of(inputTopic));
            LabelSpec labels = start.spec().labels();
            if (labels != null) {
                for (int s = 0; s < labels.sources().size(); s++) {
                    String topic = labels.sources().get(s).topic();
                    if (topic == null) {
                        throw new IllegalArgumentException(
                                "pipeline "
                                        + name()
                                        + ": labels.streams."
                                        + labels.streamNames().get(s)
                                        + ".topic is required when piper stream joins the"
                                        + " impressions with the actions");
                    }
                    if (topics.contains(topic)) {
                        throw new IllegalArgumentException(
                                "pipeline "
                                        + name()
                                        + ": topic "
                                        + topic
                                        + " is read twice (labels.streams."
                                        + labels.streamNames().get(s)
                                        + ".topic); each source of the join has a topic of its"
                                        + " own");
                    }
                    topics.add(topic);
                }
            }
            return topics;
        }
    }

    /** The pipelines {@code conf} describes ({@link StreamOptions}, {@link PiperOptions}). */
    public static StreamPipelines of(Configuration conf) {
        String several = conf.get(StreamOptions.PIPELINES);
        if (several == null) {
            String output = StreamOptions.required(conf, StreamOptions.OUTPUT_TOPIC);
            return new StreamPipelines(
                    List.of(
                            new Pipeline(
                                    0,
                                    ActiveSpec.initial(PiperOptions.spec(conf)),
                                    StreamOptions.required(conf, StreamOptions.INPUT_TOPIC),
                                    output,
                                    StreamOptions.deadLetterTopic(conf),
                                    conf.getOptional(StreamOptions.VOCAB_TOPIC).orElse(null))));
        }
        for (var option :
                List.of(
                        StreamOptions.INPUT_TOPIC,
                        PiperOptions.SPEC,
                        StreamOptions.DEAD_LETTER_TOPIC)) {
            if (conf.contains(option)) {
                throw new IllegalArgumentException(
                        option.key()
                                + " is set next to "
                                + StreamOptions.PIPELINES.key()
                                + ", whose specs name their input topics and outputs");
            }
        }
        List<PipelineSpec> specs = parseAll(several);
        String output = conf.getOptional(StreamOptions.OUTPUT_TOPIC).orElse(NAME + "-rows");
        String vocab = conf.getOptional(StreamOptions.VOCAB_TOPIC).orElse(null);
        for (String template : vocab == null ? List.of(output) : List.of(output, vocab)) {
            if (!template.contains(NAME)) {
                throw new IllegalArgumentException(
                        "output topics of several pipelines need "
                                + NAME
                                + " in their names, to be told apart: "
                                + template);
            }
        }
        specs.sort(Comparator.comparing(PipelineSpec::name));
        List<Pipeline> pipelines = new ArrayList<>();
        Set<String> topics = new HashSet<>();
        for (PipelineSpec spec : specs) {
            String topic =
                    spec.input()
                            .topic()
                            .orElseThrow(
                                    () ->
                                            new IllegalArgumentException(
                                                    "pipeline "
                                                            + spec.name()
                                                            + ": input.topic is required when a"
                                                            + " job runs several pipelines"));
            if (!topics.add(topic)) {
                throw new IllegalArgumentException(
                        "pipeline " + spec.name() + ": topic " + topic + " is read by another");
            }
            String out = output.replace(NAME, spec.name());
            pipelines.add(
                    new Pipeline(
                            pipelines.size(),
                            ActiveSpec.initial(spec),
                            topic,
                            out,
                            out + "-dead-letters",
                            vocab == null ? null : vocab.replace(NAME, spec.name())));
        }
        return new StreamPipelines(pipelines);
    }

    /** Parses the JSON array of specs held by {@link StreamOptions#PIPELINES}. */
    private static List<PipelineSpec> parseAll(String json) {
        ObjectMapper mapper = new ObjectMapper();
        JsonNode array;
        try {
            array = mapper.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    StreamOptions.PIPELINES.key() + ": not JSON: " + e.getMessage(), e);
        }
        if (!(array instanceof ArrayNode) || array.isEmpty()) {
            throw new IllegalArgumentException(
                    StreamOptions.PIPELINES.key() + ": a JSON array of specs expected");
        }
        List<PipelineSpec> specs = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < array.size(); i++) {
            String source = StreamOptions.PIPELINES.key() + "[" + i + "]";
            try {
                PipelineSpec spec =
                        PiperOptions.runnable(
                                PiperOptions.parsed(mapper.writeValueAsBytes(array.get(i)), source),
                                source);
                if (!names.add(spec.name())) {
                    throw new IllegalArgumentException(
                            source + ": pipeline " + spec.name() + " is defined twice");
                }
                specs.add(spec);
            } catch (SpecException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return specs;
    }

    /** The JSON text for {@link StreamOptions#PIPELINES} holding the given specs' texts. */
    public static String toOption(List<byte[]> specTexts) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode array = mapper.createArrayNode();
        for (byte[] text : specTexts) {
            array.add(mapper.readTree(new String(text, StandardCharsets.UTF_8)));
        }
        return mapper.writeValueAsString(array);
    }

    /** Whether any pipeline starts with list columns (records larger than Kafka's default). */
    public boolean anyLists() {
        return pipelines.stream().anyMatch(p -> p.start().spec().layout().hasLists());
    }

    public int size() {
        return pipelines.size();
    }

    public Pipeline get(int index) {
        return pipelines.get(index);
    }

    public List<String> names() {
        return pipelines.stream().map(Pipeline::name).toList();
    }

    public List<String> inputTopics() {
        return pipelines.stream().map(Pipeline::inputTopic).toList();
    }

    /** Every topic the job reads: each pipeline's {@link Pipeline#topicsRead()}. */
    public List<String> topicsRead() {
        return pipelines.stream().flatMap(p -> p.topicsRead().stream()).toList();
    }

    /** The rows topics of the pipelines, each once. */
    public List<String> outputTopics() {
        return pipelines.stream().map(Pipeline::outputTopic).distinct().toList();
    }

    /** Each input topic's pipeline index. */
    public Map<String, Integer> pipelineOfTopic() {
        Map<String, Integer> m = new HashMap<>();
        for (Pipeline p : pipelines) {
            m.put(p.inputTopic(), p.index());
        }
        return m;
    }

    /** The sink's topic per {@link KafkaOut#target() target}: pipeline * 4 + kind. */
    public String[] sinkTopics() {
        String[] topics = new String[KafkaOut.KINDS * pipelines.size()];
        for (Pipeline p : pipelines) {
            int base = KafkaOut.KINDS * p.index();
            topics[base + KafkaOut.ROWS] = p.outputTopic();
            topics[base + KafkaOut.DEAD_LETTERS] = p.deadLetterTopic();
            topics[base + KafkaOut.VOCAB] = p.vocabTopic();
        }
        return topics;
    }
}
