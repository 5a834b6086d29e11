package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.convert.TsvToAvro;
import dev.piper.convert.TsvToCsv;
import dev.piper.convert.TsvToJson;
import dev.piper.feed.LineProducer;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.TestKafka;
import dev.piper.feed.TopicSnapshot;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.ServedRecords.Compared;
import dev.piper.job.ServedRecords.Run;
import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.generate.CriteoAvro;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecParser;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Serving without skew for every spec that ships (issue 44): each preset, {@code rap-criteo}, and
 * the click events as Protobuf messages, fourteen pipelines streamed together in one job at
 * parallelism 2 on a real broker, each over two input partitions of its own records in its own
 * format (Criteo text of its layout with 1% malformed lines, the same lines as JSON events, CSV
 * lines and Avro datums, click events as JSON, CSV, Avro and Protobuf). For every rows record of
 * every pipeline, the Java transform and the Python library, at the vocabulary position the record
 * names, turn the record's own input records into exactly its rows, lists and dead letters; rows
 * and dead letters add up to the records sent.
 *
 * <p>{@code -Dpiper.presets.records=N} sets the records per spec (default 2,000, which the suite
 * runs in about a minute); docs/SERVING.md gives the figures of a run at 100,000:
 *
 * <pre>
 * mvn -o verify -pl job -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dit.test=PresetsServedITCase -Dpiper.presets.records=100000 -Dtest.heap=12g
 * </pre>
 */
@Timeout(value = 60, unit = TimeUnit.MINUTES)
class PresetsServedITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    @RegisterExtension static final TestKafka KAFKA = TestKafka.perClass();

    private static final int RECORDS = Integer.getInteger("piper.presets.records", 2_000);

    /** Cardinalities of Kaggle's columns times this: vocabularies of thousands of keys. */
    private static final double SCALE = 0.001;

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path tmp;

    /** Sends a file's records to a topic; returns how many. */
    private interface Producer {
        long produce(Path input, String topic) throws Exception;
    }

    /** One of {@link LineProducer}'s ways to send a file: lines, Avro datums, Protobuf messages. */
    private interface Sender {
        LineProducer.Result send(
                Path input,
                String bootstrap,
                String topic,
                Double rate,
                Map<String, String> extra,
                PrintStream progress)
                throws Exception;
    }

    /** A spec to stream: its text (naming its input topic), its input file, how it is sent. */
    private record Served(
            String name, String spec, Path input, Producer producer, boolean framed) {}

    @Test
    void everyRecordOfEverySpecThatShipsIsServedAsTheFeedMadeIt() throws Exception {
        List<Served> served = new ArrayList<>();
        long seed = 44;
        for (Presets.Preset p : Presets.ALL) {
            served.add(served(p.name(), p.text(), p.meanListLength(), seed++));
        }
        byte[] rap;
        try (var in = Presets.class.getResourceAsStream("/specs/rap-criteo.json")) {
            rap = in.readAllBytes();
        }
        served.add(served("rap-criteo", rap, 0, seed++));
        served.add(
                served(
                        "clicks-protobuf",
                        ClickEventFiles.protobufSpec(tmp.resolve("clicks.desc"))
                                .getBytes(StandardCharsets.UTF_8),
                        0,
                        seed));

        List<byte[]> specs = new ArrayList<>();
        long[] sent = new long[served.size()];
        for (int i = 0; i < served.size(); i++) {
            Served s = served.get(i);
            KAFKA.createTopic(s.name() + "-in", 2);
            sent[i] = s.producer().produce(s.input(), s.name() + "-in");
            specs.add(s.spec().getBytes(StandardCharsets.UTF_8));
        }
        Configuration conf =
                Streaming.configuration(
                        2, StateBackend.hashmap, tmp.resolve("checkpoints"), Duration.ofSeconds(1));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers());
        conf.set(StreamOptions.PIPELINES, StreamPipelines.toOption(specs));
        conf.set(StreamOptions.VOCAB_TOPIC, "{pipeline}-vocab");
        conf.set(StreamOptions.BLOCK_LINES, 500);
        StreamPipelines pipelines = StreamPipelines.of(conf);
        StreamTopics.prepareTopics(conf, TestClusters.QUIET);
        long streamed = System.nanoTime();
        StreamRunner.Result result =
                StreamRunner.run(
                        Streaming.job(conf), conf, Duration.ofSeconds(3), TestClusters.QUIET);
        assertThat(result.inputRecords()).isEqualTo(Arrays.stream(sent).sum());
        System.out.printf(
                "%d pipelines streamed %,d records in %.1f s%n",
                served.size(), result.inputRecords(), (System.nanoTime() - streamed) / 1e9);

        TopicSnapshot topic = new TopicSnapshot(KAFKA.bootstrapServers(), Map.of());
        // Python checks a spec's requests (one process, 2 to 10 s) while Java compares the next
        // specs': two at a time, the two cores busy instead of one
        ExecutorService pythons = Executors.newFixedThreadPool(2);
        List<Future<String>> checks = new ArrayList<>();
        for (int i = 0; i < served.size(); i++) {
            Served s = served.get(i);
            StreamPipelines.Pipeline pipeline = pipelines.get(pipelines.names().indexOf(s.name()));
            Configuration specConf = new Configuration();
            specConf.set(PiperOptions.SPEC, s.spec());
            Run run =
                    Run.read(
                            KAFKA,
                            pipeline.inputTopic(),
                            pipeline.outputTopic(),
                            pipeline.vocabTopic(),
                            PiperOptions.decodeOptions(specConf));
            TopicSnapshot.History history =
                    ServedRecords.history(
                            run, topic, Files.createDirectories(tmp.resolve(s.name())));
            long start = System.nanoTime();
            PythonServing python = new PythonServing(tmp.resolve(s.name() + "-python"), s.framed());
            long rows = 0;
            long deadLetters = 0;
            boolean[] inputPartitions = new boolean[2];
            for (ConsumerRecord<byte[], byte[]> r : run.rows()) {
                Compared c = ServedRecords.compare(run, r, history);
                assertThat(c.differing()).as("%s: slots differing per column", r).containsOnly(0);
                rows += c.rows();
                deadLetters += Integer.parseInt(TestKafka.header(r, RowsRecord.DEAD_LETTERS));
                inputPartitions[c.record().inputPartition()] = true;
                python.add(PythonServing.Expected.fed(r, c.record()), c.inputs(), c.at());
            }
            assertThat(rows + deadLetters).as(s.name()).isEqualTo(sent[i]);
            assertThat(rows).as(s.name()).isGreaterThan(RECORDS * 9L / 10);
            assertThat(inputPartitions).as(s.name()).containsOnly(true);
            String javaDone =
                    String.format(
                            "%s: %,d records, %,d rows and %,d dead letters in %,d rows records;"
                                    + " Java at each record's position (and Python's requests"
                                    + " written) %.1f s",
                            s.name(),
                            sent[i],
                            rows,
                            deadLetters,
                            run.rows().size(),
                            (System.nanoTime() - start) / 1e9);
            long expected = rows;
            checks.add(
                    pythons.submit(
                            () -> {
                                long python0 = System.nanoTime();
                                assertThat(python.check(s.spec())).as(s.name()).isEqualTo(expected);
                                return String.format(
                                        "%s, Python %.1f s",
                                        javaDone, (System.nanoTime() - python0) / 1e9);
                            }));
        }
        try {
            for (Future<String> check : checks) {
                try {
                    System.out.println(check.get());
                } catch (ExecutionException e) {
                    // the check's own failure (an assertion, Python's exit), not the wrapper
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    throw e;
                }
            }
        } finally {
            pythons.shutdownNow();
        }
    }

    /**
     * Spec {@code text} named {@code name}, reading topic {@code name-in}, with {@link #RECORDS}
     * generated records of its format.
     */
    private Served served(String name, byte[] text, int meanListLength, long seed)
            throws Exception {
        ObjectNode spec = (ObjectNode) JSON.readTree(text);
        spec.put("name", name);
        ObjectNode input = (ObjectNode) spec.get("input");
        input.put("topic", name + "-in");
        String format = input.path("format").asText("criteo-tsv");
        PipelineSpec parsed = SpecParser.parse(JSON.writeValueAsBytes(spec), name);
        Path dir = Files.createDirectories(tmp.resolve(name + "-input"));
        boolean clicks = name.startsWith("clicks-");
        if (clicks) {
            ClickEvents.Format events = ClickEvents.Format.of(format);
            Path file = dir.resolve("events" + events.extension());
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
                new ClickEvents(seed, 0.01, -1).write(events, out, RECORDS, done -> {});
            }
            return served(name, spec, format, file);
        }
        // Criteo text of the spec's layout with 1% malformed lines, then in the spec's format (a
        // line the converter cannot convert goes to its rejected file, not to the topic)
        RowLayout layout = parsed.layout();
        Path lines = dir.resolve("lines.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(lines))) {
            new CriteoGenerator(layout, seed, SCALE, 0.01, meanListLength).write(out, RECORDS);
        }
        Path file =
                switch (format) {
                    case "criteo-tsv" -> lines;
                    case "json" -> {
                        Path events = dir.resolve("events.jsonl");
                        TsvToJson.convert(lines, events, layout, TestClusters.QUIET);
                        yield events;
                    }
                    case "csv" -> {
                        Path csv = dir.resolve("lines.csv");
                        TsvToCsv.convert(lines, csv, layout, TestClusters.QUIET);
                        yield csv;
                    }
                    case "avro" -> {
                        Path schema = dir.resolve("criteo.avsc");
                        CriteoAvro avro = new CriteoAvro(layout);
                        Files.writeString(schema, avro.schema().toString(true));
                        input.put("schema", schema.toString());
                        Path datums = dir.resolve("lines.avro");
                        TsvToAvro.convert(lines, datums, avro, "null", TestClusters.QUIET);
                        yield datums;
                    }
                    default -> throw new IllegalArgumentException(name + ": format " + format);
                };
        return served(name, spec, format, file);
    }

    private Served served(String name, ObjectNode spec, String format, Path file)
            throws IOException {
        // both partitions get records: the producer's partitioner moves on after each batch's
        // bytes to a partition drawn at random (adaptive partitioning, which favours the partition
        // of shorter queues, once sent all 2,000 Avro datums of a run to one), so 4 KiB batches
        // make 50 draws of even the smallest input
        Map<String, String> batches =
                Map.of("batch.size", "4096", "partitioner.adaptive.partitioning.enable", "false");
        Sender sender =
                switch (format) {
                    case "avro" -> LineProducer::produceAvro;
                    case "protobuf" -> LineProducer::produceDelimited;
                    default -> LineProducer::produce;
                };
        Producer producer =
                (in, topic) ->
                        sender.send(
                                        in,
                                        KAFKA.bootstrapServers(),
                                        topic,
                                        null,
                                        batches,
                                        TestClusters.QUIET)
                                .lines();
        if (format.equals("csv")) {
            file = withoutHeader(file); // Kafka records are lines without one
        }
        return new Served(
                name,
                JSON.writeValueAsString(spec),
                file,
                producer,
                format.equals("avro") || format.equals("protobuf"));
    }

    /** {@code file} without its first line (bytes: a malformed line may be no UTF-8). */
    private static Path withoutHeader(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int from = 0;
        while (bytes[from++] != '\n') {}
        Path out = file.resolveSibling("records-" + file.getFileName());
        Files.write(out, Arrays.copyOfRange(bytes, from, bytes.length));
        return out;
    }
}
