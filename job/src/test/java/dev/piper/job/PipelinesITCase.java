package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.convert.TsvToJson;
import dev.piper.feed.LineProducer;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.RowLayout;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * MiniPipe's several pipelines in one job: eight specs with different operator chains, each on its
 * own topic, run together at parallelism 2, two of them reading JSON events (one with its ids
 * hashed) and one CSV beside five reading Criteo text; each pipeline's committed output equals the
 * batch output of its spec over its own input, byte for byte, vocabularies included.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PipelinesITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final int PIPELINES = 8;
    private static final int LINES = 20_000;

    @TempDir static Path shared;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    /**
     * Pipeline {@code i}'s spec: every third has log on the dense columns, every third keeps their
     * negative values; every other has a modulus of its own on the sparse columns.
     */
    static String spec(int i) {
        String dense =
                switch (i % 3) {
                    case 0 -> "[\"decode\", \"fill_missing\", \"neg2zero\", \"log\"]";
                    case 1 -> "[\"decode\", \"fill_missing\", \"neg2zero\"]";
                    default -> "[\"decode\", \"fill_missing\"]";
                };
        String ids = i == 7 ? "hash64" : "hex2int";
        String sparse =
                i % 2 == 0
                        ? "[\"decode\", \"fill_missing\", \"hex2int\", {\"op\": \"modulus\", \"m\": "
                                + 500 * (i + 1)
                                + "}, \"vocab\"]"
                        : "[\"decode\", \"fill_missing\", \"" + ids + "\", \"vocab\"]";
        return """
               {"name": "p%d", "version": 1,
                "input": {%s, "topic": "multi-in-%d"},
                "columns": {"label": ["decode", "fill_missing"], "I1..I13": %s, "C1..C26": %s}}
               """
                .formatted(i, format(i), i, dense, sparse);
    }

    /**
     * The format pipeline {@code i} reads, as its spec's input gives it: JSON events (p3, and p7
     * with its ids hashed), CSV without a header (p5, its columns named as the layout's), or Criteo
     * text.
     */
    static String format(int i) {
        if (i % 4 == 3) {
            return "\"format\": \"json\"";
        }
        if (i == 5) {
            List<String> names = new ArrayList<>(List.of("\"label\""));
            for (int k = 1; k <= 13; k++) {
                names.add("\"I" + k + "\"");
            }
            for (int k = 1; k <= 26; k++) {
                names.add("\"C" + k + "\"");
            }
            return "\"format\": \"csv\", \"columns\": [" + String.join(", ", names) + "]";
        }
        return "\"format\": \"criteo-tsv\"";
    }

    @Test
    void eightPipelinesEachGiveTheBatchOutputOfTheirSpec() throws Exception {
        List<byte[]> specs = new ArrayList<>();
        List<Path> batches = new ArrayList<>();
        List<Preprocess.Summary> summaries = new ArrayList<>();
        for (int i = 0; i < PIPELINES; i++) {
            Path input = shared.resolve("input-" + i + ".tsv");
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
                new CriteoGenerator(100 + i, 0.01, 0.01).write(out, LINES);
            }
            if (format(i).contains("json")) {
                Path events = shared.resolve("input-" + i + ".jsonl");
                TsvToJson.convert(input, events, RowLayout.CRITEO, QUIET);
                input = events;
            } else if (format(i).contains("csv")) {
                Path csv = shared.resolve("input-" + i + ".csv");
                byte[] text = Files.readAllBytes(input);
                for (int k = 0; k < text.length; k++) {
                    text[k] = text[k] == '\t' ? (byte) ',' : text[k];
                }
                Files.write(csv, text);
                input = csv;
            }
            kafka.createTopic("multi-in-" + i, 1);
            LineProducer.produce(
                    input, kafka.bootstrapServers(), "multi-in-" + i, null, Map.of(), QUIET);
            specs.add(spec(i).getBytes(StandardCharsets.UTF_8));

            Path batch = shared.resolve("batch-" + i);
            Preprocess.prepareOutput(batch, false);
            Configuration batchConf = new Configuration();
            batchConf.set(PiperOptions.SPEC, spec(i));
            summaries.add(Preprocess.run(input, batch, 2, StateBackend.hashmap, batchConf, QUIET));
            batches.add(batch);
        }

        Configuration conf =
                Streaming.configuration(
                        2,
                        StateBackend.hashmap,
                        shared.resolve("checkpoints"),
                        Duration.ofSeconds(1));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.PIPELINES, StreamPipelines.toOption(specs));
        conf.set(StreamOptions.VOCAB_TOPIC, "{pipeline}-vocab");
        StreamPipelines pipelines = StreamPipelines.of(conf);
        assertThat(pipelines.names())
                .containsExactly("p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7");
        StreamTopics.prepareTopics(conf, QUIET);

        StreamRunner.Result run =
                StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(3), QUIET);
        assertThat(run.inputRecords()).isEqualTo((long) PIPELINES * LINES);

        for (int i = 0; i < PIPELINES; i++) {
            StreamPipelines.Pipeline p = pipelines.get(i);
            assertThat(p.outputTopic()).isEqualTo("p" + i + "-rows");
            Path out = shared.resolve("consumed-" + i);
            Configuration specConf = new Configuration();
            specConf.set(PiperOptions.SPEC, spec(i));
            OutputConsumer.Result r =
                    new OutputConsumer(
                                    kafka.bootstrapServers(),
                                    Map.of(),
                                    p.outputTopic(),
                                    p.vocabTopic(),
                                    p.deadLetterTopic())
                            .spec(PiperOptions.decodeOptions(specConf))
                            .consume(
                                    out,
                                    summaries.get(i).rowsWritten(),
                                    Duration.ofSeconds(5),
                                    QUIET);
            assertThat(r.rows()).as("p%d rows", i).isEqualTo(summaries.get(i).rowsWritten());
            assertThat(r.deadLetters())
                    .as("p%d dead letters", i)
                    .isEqualTo(summaries.get(i).deadLetters());
            SameOutput.assertRowsAndVocabulariesEqual(out, batches.get(i), "p" + i);
        }
    }
}
