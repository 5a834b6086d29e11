package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.serve.Transform;
import dev.piper.core.serve.VocabularyPosition;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.feed.LineProducer;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.SkewCheck;
import dev.piper.feed.TestKafka;
import dev.piper.feed.TopicSnapshot;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.ServedRecords.Compared;
import dev.piper.job.ServedRecords.Run;
import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Serving without skew against a real broker (issue 44): streams at parallelism 2 over two input
 * partitions; for every rows record committed, the vocabularies at that record's position ({@code
 * piper.vocab.position}), cut from the vocabulary topic ({@link TopicSnapshot.History}), turn the
 * record's own input records ({@code piper.input.offsets}) into its rows and lists through the
 * serving transform ({@link Transform}). The first and the last record's snapshot, read from the
 * topic for that record alone ({@code piper vocab snapshot --at}), is the same file byte for byte.
 * The Python library ({@link PythonServing}) answers every record of the first stream alike, and
 * every record of the learning stream (below) as the Java transform does.
 *
 * <p>Float32 and onehot dense columns beside first-appearance columns, single and list, and columns
 * with OOV buckets whose {@code max_size} fills early: every record exactly, dead letters where the
 * feed made them, and the skew check ({@link SkewCheck}) finds none; a spec of other chains is
 * refused. Under {@code min_count} and LFU/TTL eviction a block's own admissions and evictions are
 * the one difference (docs/SERVING.md): a column's slots differ only in records whose block changed
 * that column's vocabulary, a first-appearance column beside them never, and the skew check counts
 * them as learning, not skew. A position ahead of the topic is refused naming the column. Streams
 * of click events as bare Avro datums and as Protobuf messages are served without skew as well.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class ServingSnapshotITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    @RegisterExtension static final TestKafka KAFKA = TestKafka.perClass();

    /**
     * Records per stream: {@code -Dpiper.serving.records=N} (default 12,000; docs/SERVING.md gives
     * a run at 100,000).
     */
    private static final int RECORDS = Integer.getInteger("piper.serving.records", 12_000);

    private static final RowLayout LAYOUT = new RowLayout(2, 4, List.of(2, 3), ',');

    private static final String GROWING =
            """
            {"name": "served", "version": 1,
             "input": {"format": "criteo-tsv", "dense": 2, "sparse": 4, "list_columns": ["C3..C4"]},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1": ["decode", "fill_missing", "neg2zero", "log"],
               "I2": ["decode", "fill_missing", "neg2zero",
                      {"op": "bucketize", "borders": [0, 1, 5, 20]}, {"op": "onehot", "size": 5}],
               "C1": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 5000}, "vocab"],
               "C2": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 5000},
                      {"op": "vocab", "oov_buckets": 4, "max_size": 300}],
               "C3": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 3000}, "vocab"],
               "C4": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 3000},
                      {"op": "vocab", "oov_buckets": 3}]
             }}
            """;

    private static final String LEARNING =
            """
            {"name": "learning", "version": 1,
             "input": {"format": "criteo-tsv", "dense": 2, "sparse": 4, "list_columns": ["C3..C4"]},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1": ["decode", "fill_missing", {"op": "cast", "to": "float32"},
                      {"op": "clamp", "lo": -0.5, "hi": 100.25}, {"op": "logit", "eps": 0.01}],
               "I2": ["decode", "fill_missing", {"op": "bucketize", "borders": [0, 2, 8]},
                      {"op": "onehot", "size": 4}],
               "C1": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 3000},
                      {"op": "vocab", "min_count": 2, "oov_buckets": 4}],
               "C2": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 3000},
                      {"op": "vocab", "capacity": 400, "evict": "lfu", "oov_buckets": 2}],
               "C3": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 2000},
                      {"op": "vocab", "capacity": 300, "evict": "ttl", "ttl": "500 rows",
                       "oov_buckets": 1}],
               "C4": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 2000}, "vocab"]
             }}
            """;

    @TempDir Path tmp;

    /** Sends a file's records to a topic. */
    private interface Producer {
        void produce(Path input, String topic) throws Exception;
    }

    private Run stream(String name, String spec, long seed) throws Exception {
        Path input = tmp.resolve(name + ".tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(LAYOUT, seed, 1.0, 0.01, 4).write(out, RECORDS);
        }
        return stream(
                name,
                spec,
                input,
                (file, topic) ->
                        LineProducer.produce(
                                file,
                                KAFKA.bootstrapServers(),
                                topic,
                                null,
                                // small batches: the sticky partitioner moves to another
                                // partition after each, so both input partitions get lines
                                // (with produce's 256 KiB batches, 12,000 lines may all land in
                                // one)
                                Map.of("batch.size", "16384"),
                                TestClusters.QUIET));
    }

    /** Streams the records {@code producer} sends of {@code input} under {@code spec}. */
    private Run stream(String name, String spec, Path input, Producer producer) throws Exception {
        Configuration conf =
                Streaming.configuration(
                        2,
                        StateBackend.hashmap,
                        tmp.resolve("ckpt-" + name),
                        Duration.ofSeconds(1));
        conf.set(PiperOptions.SPEC, spec);
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, name + "-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, name + "-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, name + "-vocab");
        conf.set(StreamOptions.BLOCK_LINES, 500);
        KAFKA.createTopic(name + "-in", 2);
        producer.produce(input, name + "-in");
        StreamTopics.prepareTopics(conf, TestClusters.QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), TestClusters.QUIET);

        Run run =
                Run.read(
                        KAFKA,
                        name + "-in",
                        name + "-rows",
                        name + "-vocab",
                        PiperOptions.decodeOptions(conf));
        assertThat(run.rows()).hasSizeGreaterThan(20);
        return run;
    }

    @Test
    void everyRowsRecordIsTheTransformOfItsInputsAtItsOwnPosition() throws Exception {
        Run run = stream("served", GROWING, 20261128);
        TopicSnapshot topic = new TopicSnapshot(KAFKA.bootstrapServers(), Map.of());
        TopicSnapshot.History history = ServedRecords.history(run, topic, tmp);
        long rows = 0;
        long unknown = 0;
        long c1Entries = 0; // the furthest position of C1, which every entry on the topic is in
        long[] furthest = null; // each column's furthest position over every record
        boolean[] inputPartitions = new boolean[2];
        PythonServing python = new PythonServing(tmp.resolve("python")); // each record too
        for (ConsumerRecord<byte[], byte[]> r : run.rows()) {
            Compared c = ServedRecords.compare(run, r, history);
            assertThat(c.differing()).as("%s: slots differing per column", r).containsOnly(0);
            rows += c.rows();
            unknown += c.unknown();
            c1Entries = Math.max(c1Entries, c.record().vocabPosition()[0]);
            long[] position = c.record().vocabPosition();
            furthest = furthest == null ? position.clone() : furthest;
            for (int col = 0; col < position.length; col++) {
                furthest[col] = Math.max(furthest[col], position[col]);
            }
            inputPartitions[c.record().inputPartition()] = true;
            python.add(PythonServing.Expected.fed(r, c.record()), c.inputs(), c.at());
        }
        assertThat(rows).isGreaterThan(RECORDS * 11L / 12);
        assertThat(inputPartitions).containsOnly(true);
        // C2's max_size filled: its later keys were buckets in the feed, unknown at serving
        assertThat(unknown).isPositive();
        // the Python library, each record at its own position too
        assertThat(python.check(GROWING)).isEqualTo(rows);

        // the skew check finds none on a sample; a spec of other chains is refused by name
        SkewCheck.Report report =
                new SkewCheck(KAFKA.bootstrapServers(), Map.of(), run.options(), "served/1")
                        .check(
                                "served-rows",
                                "served-vocab",
                                10,
                                7,
                                Duration.ofSeconds(30),
                                TestClusters.QUIET);
        assertThat(report.sampled()).isEqualTo(10);
        assertThat(report.ofPipeline()).isEqualTo(run.rows().size());
        assertThat(report.skew()).isZero();
        assertThat(report.columns()).allSatisfy(c -> assertThat(c.compared()).isPositive());
        assertThat(report.columns()).allSatisfy(c -> assertThat(c.learning()).isZero());
        DecodeOptions otherChains =
                SpecCompiler.decodeOptions(
                        SpecParser.parse(
                                GROWING.replace(
                                                "\"m\": 5000}, \"vocab\"",
                                                "\"m\": 4999}, \"vocab\"")
                                        .getBytes(StandardCharsets.UTF_8),
                                "other"),
                        1024);
        assertThatThrownBy(
                        () ->
                                new SkewCheck(
                                                KAFKA.bootstrapServers(),
                                                Map.of(),
                                                otherChains,
                                                "served/1")
                                        .check(
                                                "served-rows",
                                                "served-vocab",
                                                10,
                                                7,
                                                Duration.ofSeconds(30),
                                                TestClusters.QUIET))
                .hasMessageContaining("the rows were made by other chains than the spec's");

        ConsumerRecord<byte[], byte[]> last = run.rows().get(run.rows().size() - 1);
        VocabularyPosition end =
                topic.positionOf(
                        last.topic(), last.partition(), last.offset(), Duration.ofSeconds(30));
        assertThat(end.pipeline()).isEqualTo("served/1");

        // the stream's end (vocab snapshot --at served-rows@end): every column at the furthest
        // position any record states, whichever partition's record states it
        VocabularyPosition atEnd =
                topic.positionAtEnd("served-rows", "served-vocab", Duration.ofSeconds(30));
        assertThat(atEnd.pipeline()).isEqualTo("served/1");
        assertThat(atEnd.source()).startsWith("the end of served-rows and served-vocab (");
        assertThat(
                        atEnd.columns().stream()
                                .mapToLong(VocabularySnapshot.Column::position)
                                .toArray())
                .containsExactly(furthest);
        assertThat(atEnd.columns())
                .extracting(VocabularySnapshot.Column::oovBuckets)
                .isEqualTo(
                        end.columns().stream().map(VocabularySnapshot.Column::oovBuckets).toList());
        assertThat(
                        topic.read(
                                        "served-vocab",
                                        atEnd,
                                        Duration.ofSeconds(30),
                                        TestClusters.QUIET)
                                .entries(0))
                .isEqualTo(c1Entries);
        List<VocabularySnapshot.Column> ahead = new ArrayList<>(end.columns());
        VocabularySnapshot.Column c1 = ahead.get(0);
        ahead.set(
                0,
                new VocabularySnapshot.Column(
                        "C1", c1.epoch(), c1.oovBuckets(), c1Entries + 1_000_000));
        assertThatThrownBy(
                        () ->
                                topic.read(
                                        "served-vocab",
                                        new VocabularyPosition("served/1", "ahead", ahead),
                                        Duration.ofSeconds(2),
                                        TestClusters.QUIET))
                .hasMessageContaining(
                        "the position of ahead is not reached: C1 (epoch 0) has "
                                + c1Entries
                                + " of "
                                + (c1Entries + 1_000_000)
                                + " entries;");
    }

    /**
     * Streams of binary events, click events as bare Avro datums ({@code clicks-avro}, its schema
     * inline) and as Protobuf messages (the same chains over a descriptor set): every record is its
     * input's transform at its own position, and the skew check finds none.
     */
    @Test
    void avroAndProtobufStreamsAreServedWithoutSkew() throws Exception {
        Map<ClickEvents.Format, String> specs =
                Map.of(
                        ClickEvents.Format.AVRO,
                        new String(Presets.named("clicks-avro").text(), StandardCharsets.UTF_8),
                        ClickEvents.Format.PROTOBUF,
                        ClickEventFiles.protobufSpec(tmp.resolve("clicks.desc")));
        for (ClickEvents.Format format :
                List.of(ClickEvents.Format.AVRO, ClickEvents.Format.PROTOBUF)) {
            String name = format.name().toLowerCase(java.util.Locale.ROOT);
            Path input = tmp.resolve("clicks" + format.extension());
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
                new ClickEvents(17, 0.01, -1).write(format, out, RECORDS, done -> {});
            }
            Run run =
                    stream(
                            name,
                            specs.get(format),
                            input,
                            (file, topic) -> {
                                if (format == ClickEvents.Format.AVRO) {
                                    LineProducer.produceAvro(
                                            file,
                                            KAFKA.bootstrapServers(),
                                            topic,
                                            null,
                                            Map.of(),
                                            TestClusters.QUIET);
                                } else {
                                    LineProducer.produceDelimited(
                                            file,
                                            KAFKA.bootstrapServers(),
                                            topic,
                                            null,
                                            Map.of(),
                                            TestClusters.QUIET);
                                }
                            });
            TopicSnapshot.History history =
                    ServedRecords.history(
                            run, new TopicSnapshot(KAFKA.bootstrapServers(), Map.of()), tmp);
            long rows = 0;
            for (ConsumerRecord<byte[], byte[]> r : run.rows()) {
                Compared c = ServedRecords.compare(run, r, history);
                assertThat(c.differing()).as("%s: slots differing per column", r).containsOnly(0);
                rows += c.rows();
            }
            assertThat(rows).as(name).isEqualTo(RECORDS);
            SkewCheck.Report report =
                    new SkewCheck(
                                    KAFKA.bootstrapServers(),
                                    Map.of(),
                                    run.options(),
                                    "clicks-"
                                            + (format == ClickEvents.Format.AVRO ? "avro" : "json")
                                            + "/1")
                            .check(
                                    name + "-rows",
                                    name + "-vocab",
                                    10,
                                    7,
                                    Duration.ofSeconds(30),
                                    TestClusters.QUIET);
            assertThat(report.sampled()).as(name).isEqualTo(10);
            assertThat(report.skew()).as(name).isZero();
            assertThat(report.columns()).allSatisfy(c -> assertThat(c.compared()).isPositive());
        }
    }

    @Test
    void underMinCountAndEvictionOnlyABlocksOwnChangesDiffer() throws Exception {
        Run run = stream("learning", LEARNING, 20261129);
        TopicSnapshot topic = new TopicSnapshot(KAFKA.bootstrapServers(), Map.of());
        TopicSnapshot.History history = ServedRecords.history(run, topic, tmp);
        long[] differing = new long[4];
        long rows = 0;
        PythonServing python = new PythonServing(tmp.resolve("python"));
        for (ConsumerRecord<byte[], byte[]> r : run.rows()) {
            Compared c = ServedRecords.compare(run, r, history);
            RowsRecord record = c.record();
            rows += c.rows();
            // Python answers as Java's transform did, where the feed's block differs too
            python.add(
                    PythonServing.Expected.served(r, record, c.result().block()),
                    c.inputs(),
                    c.at());
            // an evicting column's assignments, else its entries, made by the block itself
            long[] own = new long[4];
            for (int col = 0; col < 4; col++) {
                own[col] = record.vocabPosition()[col] - record.assignmentsBefore()[col];
                if (c.differing()[col] > 0) {
                    assertThat(own[col])
                            .as("%s: C%d differs in %d slots", r, col + 1, c.differing()[col])
                            .isPositive();
                }
                differing[col] += c.differing()[col];
            }
        }
        // first appearance (C4) never differs; the others do, in blocks that changed them
        assertThat(differing[3]).isZero();
        assertThat(differing[0]).isPositive();
        assertThat(differing[1] + differing[2]).isPositive();
        assertThat(python.check(LEARNING)).isEqualTo(rows);

        // the skew check counts those as the blocks' own learning, not as skew; every record
        // sampled (C1's admissions end once its 3,000 keys are in: in a longer stream, a sample
        // of later records holds none)
        SkewCheck.Report report =
                new SkewCheck(KAFKA.bootstrapServers(), Map.of(), run.options(), "learning/1")
                        .check(
                                "learning-rows",
                                "learning-vocab",
                                run.rows().size(),
                                7,
                                Duration.ofSeconds(30),
                                TestClusters.QUIET);
        assertThat(report.skew()).as("%s", report.skewed()).isZero();
        assertThat(report.columns().get(0).learning()).isPositive();
        assertThat(report.columns().get(3).learning()).isZero();
    }
}
