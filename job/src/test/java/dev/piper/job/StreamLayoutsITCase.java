package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.feed.LineProducer;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.spec.Presets;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every spec {@code preprocess} runs, streamed (issue 22): lines of a spec's layout through one
 * input partition and a rows topic of two partitions (the blocks spread over both), consumed back
 * into the batch files, equal {@code preprocess} of the same lines byte for byte: rows, list files
 * and vocabularies. A real broker in the test JVM, a MiniCluster at parallelism 2.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StreamLayoutsITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    private static final PrintStream QUIET = TestClusters.QUIET;

    @TempDir Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    /**
     * PreSto's RM1 (13 dense columns with log, hence float32; 13 generated bucketized columns) and
     * RM3 (504 dense, 42 generated, 42 list columns of 20 ids on average): the stream's files are
     * preprocess's.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rm1", "rm3"})
    void presetsStreamAsPreprocessRunsThem(String name) throws Exception {
        Presets.Preset preset = Presets.named(name);
        RowLayout layout = preset.spec().layout();
        Path input = tmp.resolve(name + ".tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(layout, 2026, 0.001, 0.01, preset.meanListLength())
                    .write(out, layout.hasLists() ? 3_000 : 20_000);
        }
        Map<String, String> headers =
                streamAndCompare(name, new String(preset.text(), StandardCharsets.UTF_8), input);
        assertThat(headers.get(RowsRecord.ROW_COLUMNS).split(","))
                .hasSize(preset.spec().layout().rowBytes() / 4);
        assertThat(headers.get(RowsRecord.FLOAT32_COLUMNS)).startsWith("I1,I2,");
        if (layout.hasLists()) {
            assertThat(headers.get(RowsRecord.LIST_COLUMNS).split(","))
                    .hasSize(layout.listColumns().size());
        }
    }

    /** A onehot column widens the stream's rows as it widens the batch ones. */
    @Test
    void onehotWidensTheStreamsRows() throws Exception {
        String spec =
                """
                {"name": "oh", "version": 1, "input": {"format": "criteo-tsv"},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1": ["decode", "fill_missing", "neg2zero"],
                   "I2": ["decode", "fill_missing",
                          {"op": "bucketize", "borders": [0, 1, 10, 100]},
                          {"op": "onehot", "size": 5}],
                   "I3..I13": ["decode", "fill_missing", "neg2zero"],
                   "C1..C26": ["decode", "fill_missing", "hex2int", "vocab"]
                 }}
                """;
        Path input = tmp.resolve("oh.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(7, 0.01, 0.01).write(out, 20_000);
        }
        Map<String, String> headers = streamAndCompare("oh", spec, input);
        assertThat(headers.get(RowsRecord.ROW_COLUMNS))
                .startsWith("label,I1,I2_0,I2_1,I2_2,I2_3,I3,");
    }

    /**
     * Issue 42's event time in the stream: JSON click events under a spec whose user column's
     * vocabulary evicts entries unseen for 20 s of event time and whose Hotline windows are 30 s of
     * event time; the stream's files (rows, vocabularies and assignments, Hotline's split, event
     * times) are preprocess's.
     */
    @Test
    void eventTimeTtlsAndWindowsStreamAsPreprocessRunsThem() throws Exception {
        Path input = ClickEventFiles.json(tmp.resolve("timed.jsonl"), 11, 8_000);
        String preset = ClickEventFiles.preset();
        String spec =
                preset.replace("\"name\": \"clicks-json\"", "\"name\": \"timed\"")
                        .replace(
                                "\"C1..C5\"",
                                "\"C1\": [\"decode\", \"fill_missing\", \"hash64\", {\"op\":"
                                        + " \"vocab\", \"capacity\": 300, \"evict\": \"ttl\","
                                        + " \"ttl\": \"20s\", \"oov_buckets\": 4}], \"C2..C5\"");
        spec =
                spec.substring(0, spec.lastIndexOf('}'))
                        + ", \"hotline\": {\"budget\": 8192, \"window\": \"30s\", \"sample\": 0.2}}";
        assertThat(spec).contains("\"20s\"", "\"30s\"", "\"name\": \"timed\"");
        streamAndCompare("timed", spec, input);
        Path batch = tmp.resolve("timed-batch");
        assertThat(Files.readAllLines(batch.resolve(OutputLayout.assignmentsFile(0))))
                .as("C1's assignments: some reuse an evicted key's index")
                .anySatisfy(line -> assertThat(line.split("\t", -1)[3]).isNotEmpty());
        assertThat(Files.readAllLines(batch.resolve(OutputLayout.HOTLINE_HOT_SETS)))
                .hasSizeGreaterThan(1)
                .allSatisfy(line -> assertThat(line).contains("\"start_ms\""));
        assertThat(
                        Files.mismatch(
                                tmp.resolve("timed-consumed").resolve(OutputLayout.EVENT_TIMES),
                                batch.resolve(OutputLayout.EVENT_TIMES)))
                .isEqualTo(-1);
    }

    /**
     * Streams {@code input} under {@code spec} through one input partition into a two-partition
     * rows topic, consumes it and compares with preprocess; returns the headers of a rows record.
     */
    private Map<String, String> streamAndCompare(String name, String spec, Path input)
            throws Exception {
        Configuration batchConf = new Configuration();
        batchConf.set(PiperOptions.SPEC, spec);
        Path batch = tmp.resolve(name + "-batch");
        Preprocess.prepareOutput(batch, false);
        Preprocess.Summary summary =
                Preprocess.run(input, batch, 2, StateBackend.hashmap, batchConf, QUIET);

        Configuration conf =
                Streaming.configuration(
                        2, StateBackend.hashmap, tmp.resolve("checkpoints"), Duration.ofSeconds(1));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, name + "-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, name + "-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, name + "-vocab");
        conf.set(StreamOptions.OUTPUT_PARTITIONS, 2);
        conf.set(PiperOptions.SPEC, spec);
        kafka.createTopic(name + "-in", 1);
        LineProducer.produce(input, kafka.bootstrapServers(), name + "-in", null, Map.of(), QUIET);
        StreamTopics.prepareTopics(conf, QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);

        Path consumed = tmp.resolve(name + "-consumed");
        OutputConsumer.Result r =
                new OutputConsumer(
                                kafka.bootstrapServers(),
                                Map.of(),
                                name + "-rows",
                                name + "-vocab",
                                name + "-rows-dead-letters")
                        // the presets are known from the records; the other specs are the test's
                        .spec(name.startsWith("rm") ? null : PiperOptions.decodeOptions(conf))
                        .consume(consumed, summary.rowsWritten(), Duration.ofSeconds(20), QUIET);
        assertThat(r.rows()).isEqualTo(summary.rowsWritten());
        assertThat(r.deadLetters()).isEqualTo(summary.deadLetters());
        SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "stream of " + name);

        // The blocks of the one input partition are spread over both rows partitions.
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readCommitted(name + "-rows");
        Map<Integer, Integer> perPartition = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            RowsRecord rows = RowsRecord.of(record);
            assertThat(record.partition()).isEqualTo((int) (rows.block() % 2));
            perPartition.merge(record.partition(), 1, Integer::sum);
        }
        assertThat(perPartition).containsOnlyKeys(0, 1);
        Map<String, String> headers = new HashMap<>();
        for (var h : records.get(0).headers()) {
            headers.put(h.key(), new String(h.value(), StandardCharsets.US_ASCII));
        }
        return headers;
    }

    /**
     * The cost report prices every layout: a stream of PreSto's RM3 with a report topic builds, its
     * graph holding the cost-model operator.
     */
    @Test
    void aReportOfAListLayoutIsPartOfTheStream() throws Exception {
        Configuration conf =
                Streaming.configuration(
                        2, StateBackend.hashmap, tmp.resolve("checkpoints"), Duration.ofSeconds(1));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, "x-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, "x-rows");
        conf.set(
                PiperOptions.SPEC, new String(Presets.named("rm3").text(), StandardCharsets.UTF_8));
        conf.set(ReportOptions.ENABLED, true);
        conf.set(StreamOptions.REPORT_TOPIC, "x-report");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Streaming.job(conf).build(env);
        List<String> operators = new ArrayList<>();
        env.getStreamGraph().getStreamNodes().forEach(n -> operators.add(n.getOperatorName()));
        assertThat(operators).anyMatch(name -> name.contains("cost-model"));
    }
}
