package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.Lanes;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamPipelinesTest {

    @TempDir Path tmp;

    private static byte[] spec(String name, String topic) {
        String text = new String(SpecParser.builtinText(), StandardCharsets.UTF_8);
        text = text.replace("\"name\": \"dlrm-criteo\"", "\"name\": \"" + name + "\"");
        if (topic != null) {
            text =
                    text.replace(
                            "\"format\": \"criteo-tsv\"",
                            "\"format\": \"criteo-tsv\", \"topic\": \"" + topic + "\"");
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Configuration several(byte[]... specs) throws Exception {
        Configuration conf = new Configuration();
        conf.set(StreamOptions.PIPELINES, StreamPipelines.toOption(List.of(specs)));
        return conf;
    }

    @Test
    void onePipelineIsIndexZeroOnTheCommandLinesTopics() {
        Configuration conf = new Configuration();
        conf.set(StreamOptions.INPUT_TOPIC, "in");
        conf.set(StreamOptions.OUTPUT_TOPIC, "out");
        StreamPipelines p = StreamPipelines.of(conf);
        assertThat(p.size()).isEqualTo(1);
        assertThat(p.get(0).name()).isEqualTo("dlrm-criteo");
        assertThat(p.get(0).deadLetterTopic()).isEqualTo("out-dead-letters");
        assertThat(p.get(0).vocabTopic()).isNull();
        assertThat(p.sinkTopics()).containsExactly("out", "out-dead-letters", null, null);
        assertThat(p.pipelineOfTopic()).containsEntry("in", 0);
    }

    @Test
    void severalPipelinesAreOrderedByNameWithTopicsFromTheTemplates() throws Exception {
        Configuration conf = several(spec("us", "clicks-us"), spec("eu", "clicks-eu"));
        conf.set(StreamOptions.VOCAB_TOPIC, "v-{pipeline}");
        StreamPipelines p = StreamPipelines.of(conf);
        assertThat(p.names()).containsExactly("eu", "us");
        assertThat(p.inputTopics()).containsExactly("clicks-eu", "clicks-us");
        assertThat(p.get(1).outputTopic()).isEqualTo("us-rows");
        assertThat(p.get(1).deadLetterTopic()).isEqualTo("us-rows-dead-letters");
        assertThat(p.get(1).vocabTopic()).isEqualTo("v-us");
        String[] topics = p.sinkTopics();
        assertThat(topics[KafkaOut.target(1, KafkaOut.ROWS)]).isEqualTo("us-rows");
        assertThat(topics[KafkaOut.target(0, KafkaOut.VOCAB)]).isEqualTo("v-eu");
        assertThat(StreamOptions.groupId(conf)).isEqualTo("piper-pipelines-rows");
        assertThat(Lanes.pipeline(Lanes.of(1, 7))).isEqualTo(1);
        assertThat(Lanes.partition(Lanes.of(1, 7))).isEqualTo(7);
    }

    @Test
    void contradictionsAreNamed() throws Exception {
        assertThatThrownBy(() -> StreamPipelines.of(several(spec("eu", null))))
                .hasMessageContaining("pipeline eu: input.topic is required");
        assertThatThrownBy(() -> StreamPipelines.of(several(spec("eu", "t"), spec("us", "t"))))
                .hasMessageContaining("topic t is read by another");
        assertThatThrownBy(() -> StreamPipelines.of(several(spec("eu", "a"), spec("eu", "b"))))
                .hasMessageContaining("pipeline eu is defined twice");
        Configuration fixedOutput = several(spec("eu", "a"));
        fixedOutput.set(StreamOptions.OUTPUT_TOPIC, "rows");
        assertThatThrownBy(() -> StreamPipelines.of(fixedOutput))
                .hasMessageContaining("need {pipeline} in their names");
        Configuration withInput = several(spec("eu", "a"));
        withInput.set(StreamOptions.INPUT_TOPIC, "x");
        assertThatThrownBy(() -> StreamPipelines.of(withInput))
                .hasMessageContaining("piper.kafka.input-topic is set next to");
    }

    /**
     * Pipelines of several layouts run in one job: another layout and a onehot spec are taken, each
     * pipeline's vocabularies get their own numbers, and its blocks hold as many rows as fit a
     * record of its rows' width.
     */
    @Test
    void pipelinesOfOtherLayoutsAndOnehotRunSideBySide() throws Exception {
        String wide =
                new String(spec("wide", "w"), StandardCharsets.UTF_8)
                        .replace("\"topic\": \"w\"", "\"topic\": \"w\", \"sparse\": 20")
                        .replace("C1..C26", "C1..C20");
        String onehot =
                new String(spec("oh", "o"), StandardCharsets.UTF_8)
                        .replace(
                                "\"I1..I13\": [\"decode\", \"fill_missing\", \"neg2zero\"]",
                                "\"I1\": [\"decode\", \"fill_missing\", {\"op\": \"onehot\","
                                        + " \"size\": 3}], \"I2..I13\": [\"decode\","
                                        + " \"fill_missing\", \"neg2zero\"]");
        StreamPipelines three =
                StreamPipelines.of(
                        several(
                                spec("eu", "a"),
                                wide.getBytes(StandardCharsets.UTF_8),
                                onehot.getBytes(StandardCharsets.UTF_8)));
        assertThat(three.names()).containsExactly("eu", "oh", "wide");
        RowLayout[] layouts =
                three.pipelines().stream()
                        .map(p -> p.start().spec().layout())
                        .toArray(RowLayout[]::new);
        assertThat(PreprocessJob.firstVocabularies(layouts)).containsExactly(0, 26, 52, 72);
        assertThat(three.get(1).start().program().rowBytes()).isEqualTo(41 * 4);
        assertThat(StreamJob.blockLines(4096, 160)).isEqualTo(4096);
        assertThat(StreamJob.blockLines(4096, 2_400)).isEqualTo(KafkaOut.MAX_ROW_BYTES / 2_400);
        assertThat(StreamJob.blockLines(4096, 4 << 20)).isEqualTo(1);
        assertThat(three.anyLists()).isFalse();
        assertThat(KafkaOut.maxRecordBytes(1 << 20, false)).isEqualTo(1 << 20);
        assertThat(KafkaOut.maxRecordBytes(1 << 20, true)).isEqualTo(5 << 20);
    }

    /**
     * A route is valid but runs nowhere yet: a spec with one is refused by preprocess's and the
     * stream's options alike, naming the field, rather than run with every line.
     */
    @Test
    void aSpecWithARouteIsRefusedRatherThanIgnored() throws Exception {
        String routed =
                new String(spec("eu", "a"), StandardCharsets.UTF_8)
                        .replace(
                                "\"topic\": \"a\"",
                                "\"topic\": \"a\", \"route\": {\"field\": \"C1\", \"value\": \"ab\"}");
        assertThat(routed).contains("route");
        Configuration one = new Configuration();
        one.set(PiperOptions.SPEC, routed);
        assertThatThrownBy(() -> PiperOptions.spec(one))
                .hasMessage(
                        "piper.spec: input.route: routing lines by a field's value is not run by"
                                + " preprocess or stream yet (every pipeline takes all the lines"
                                + " of its input); remove the route rather than have it ignored");
        assertThatThrownBy(() -> PiperOptions.decodeOptions(one))
                .hasMessageContaining("input.route");
        assertThatThrownBy(
                        () -> StreamPipelines.of(several(routed.getBytes(StandardCharsets.UTF_8))))
                .hasMessageContaining("piper.stream.pipelines[0]: input.route:");
    }

    @Test
    void anAvroSpecWithoutAWriterSchemaIsRefusedForKafka() {
        Configuration conf = new Configuration();
        conf.set(StreamOptions.INPUT_TOPIC, "in");
        conf.set(StreamOptions.OUTPUT_TOPIC, "out");
        conf.set(
                PiperOptions.SPEC,
                new String(
                        dev.piper.pipeline.spec.Presets.named("dlrm-criteo-avro").text(),
                        StandardCharsets.UTF_8));
        assertThatThrownBy(() -> StreamPipelines.of(conf))
                .hasMessage(
                        "pipeline dlrm-criteo-avro: an avro input read from Kafka needs its writer"
                                + " schema: input.schema (a .avsc file) for bare datums, or"
                                + " input.schema_registry for Confluent's wire format (a container"
                                + " file's own schema is for preprocess)");
    }

    @Test
    void aCheckpointDirectoryKeepsItsPipelines() throws Exception {
        StreamPipelines two = StreamPipelines.of(several(spec("a", "ta"), spec("b", "tb")));
        CheckpointDirectory.checkPipelines(tmp, two);
        assertThat(Files.readAllLines(tmp.resolve(CheckpointDirectory.PIPELINES_FILE)))
                .hasSize(2)
                .allMatch(l -> l.matches("[ab]\\t1\\tchains-sha256:[0-9a-f]{16}"));
        CheckpointDirectory.checkPipelines(tmp, two);
        StreamPipelines three =
                StreamPipelines.of(several(spec("a", "ta"), spec("b", "tb"), spec("c", "tc")));
        assertThatThrownBy(() -> CheckpointDirectory.checkPipelines(tmp, three))
                .hasMessageContaining("holds the state of pipelines [a, b], not [a, b, c]");

        Path single = tmp.resolve("single");
        Files.createDirectories(single);
        Configuration conf = new Configuration();
        conf.set(StreamOptions.INPUT_TOPIC, "in");
        conf.set(StreamOptions.OUTPUT_TOPIC, "out");
        CheckpointDirectory.checkPipelines(single, StreamPipelines.of(conf));
        // One pipeline is index 0 whatever its name: a renamed spec is fine, and so are another
        // version and other padding, as long as the columns' chains (their ids) stay.
        CheckpointDirectory.checkPipelines(single, StreamPipelines.of(several(spec("x", "in"))));
        assertThat(Files.readAllLines(single.resolve(CheckpointDirectory.PIPELINES_FILE)).get(0))
                .startsWith("x\t1\t");
        Configuration padded = new Configuration();
        padded.set(StreamOptions.INPUT_TOPIC, "in");
        padded.set(StreamOptions.OUTPUT_TOPIC, "out");
        padded.set(PiperOptions.PAD_MISSING_FIELDS, true);
        CheckpointDirectory.checkPipelines(single, StreamPipelines.of(padded));
        Configuration modulus = new Configuration();
        modulus.set(StreamOptions.INPUT_TOPIC, "in");
        modulus.set(StreamOptions.OUTPUT_TOPIC, "out");
        modulus.set(PiperOptions.MAX_IND_RANGE, 1000L);
        assertThatThrownBy(
                        () ->
                                CheckpointDirectory.checkPipelines(
                                        single, StreamPipelines.of(modulus)))
                .hasMessageContaining("column chains differ")
                .hasMessageContaining("--control-topic");
    }
}
