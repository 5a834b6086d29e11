package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.core.block.AssembledBlock;
import dev.piper.feed.LineProducer;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.StreamFormat;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.operators.block.BlockTypes;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * MiniPipe's run-time reconfiguration against a real broker: a spec published on the control topic
 * mid-stream changes C3's modulus and adds log to I5. The input has one partition and the second
 * half is produced only once the new spec is acknowledged, so the switch point is known: every row
 * of the first 100,000 lines must be the old pipeline's batch output, every later row the new
 * one's, with C3 in a new vocabulary epoch (ids from 0) and the other columns continuing theirs.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class SpecSwitchITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int LINES = 200_000;
    private static final int HALF = LINES / 2;
    private static final Duration WAIT = Duration.ofMinutes(2);

    /** The new spec: the built-in one, version 2, with C3 modulo 1000 and log on I5. */
    static final String V2 =
            """
            {"name": "dlrm-criteo", "version": 2, "input": {"format": "criteo-tsv"},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1..I4": ["decode", "fill_missing", "neg2zero"],
               "I5": ["decode", "fill_missing", "neg2zero", "log"],
               "I6..I13": ["decode", "fill_missing", "neg2zero"],
               "C1..C2": ["decode", "fill_missing", "hex2int", "vocab"],
               "C3": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 1000}, "vocab"],
               "C4..C26": ["decode", "fill_missing", "hex2int", "vocab"]
             }}
            """;

    @TempDir static Path shared;
    @TempDir Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();
    private static Path firstHalf;
    private static Path secondHalf;

    /** The old pipeline over all lines: rows, and the vocabularies of unchanged columns. */
    private static ReferencePreprocessor.Result oldAll;

    /** The old pipeline over the first half: C3's epoch 0 vocabulary, the switch row. */
    private static ReferencePreprocessor.Result oldFirst;

    /** The new pipeline over the second half alone: I5's values, C3's epoch 1. */
    private static ReferencePreprocessor.Result newSecond;

    @BeforeAll
    static void setUp() throws Exception {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        new CriteoGenerator(20261123, 0.01, 0.01).write(text, LINES);
        byte[] all = text.toByteArray();
        int half = 0;
        for (int n = 0; n < HALF; n++) {
            half = indexOf(all, (byte) '\n', half) + 1;
        }
        byte[] first = Arrays.copyOfRange(all, 0, half);
        byte[] second = Arrays.copyOfRange(all, half, all.length);
        firstHalf = Files.write(shared.resolve("first.tsv"), first);
        secondHalf = Files.write(shared.resolve("second.tsv"), second);

        oldAll = ReferencePreprocessor.run(all, -1, false, 65536);
        oldFirst = ReferencePreprocessor.run(first, -1, false, 65536);
        newSecond = v2Reference(second);
        assertThat(oldFirst.rowsWritten() + newSecond.rowsWritten())
                .as("the spec change rejects no other line")
                .isEqualTo(oldAll.rowsWritten());
    }

    /** The reference output of {@link #V2} over {@code lines}: C3 modulo 1000, log on I5. */
    static ReferencePreprocessor.Result v2Reference(byte[] lines) {
        long[] modulus = new long[26];
        Arrays.fill(modulus, -1);
        modulus[2] = 1000;
        boolean[] neg2zero = new boolean[14];
        Arrays.fill(neg2zero, 1, 14, true);
        boolean[] log = new boolean[14];
        log[5] = true;
        return ReferencePreprocessor.run(lines, modulus, neg2zero, log, false, 65536);
    }

    private static int indexOf(byte[] a, byte b, int from) {
        for (int i = from; i < a.length; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        throw new IllegalArgumentException("no more lines");
    }

    private Configuration streamConf(String name) {
        Configuration conf =
                Streaming.configuration(
                        2, StateBackend.hashmap, tmp.resolve("checkpoints"), Duration.ofSeconds(1));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, name + "-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, name + "-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, name + "-vocab");
        conf.set(StreamOptions.CONTROL_TOPIC, name + "-control");
        return conf;
    }

    private static JobClient start(StreamJob job, Configuration conf) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.configure(conf);
        env.setParallelism(2);
        job.build(env);
        return env.executeAsync("spec-switch");
    }

    /**
     * Creates {@code name}-in with one partition, produces the first half into it, starts the
     * stream of {@code conf} and waits until the first half's rows are committed, so that a spec
     * published next takes effect exactly at the second half.
     */
    private static JobClient startOnFirstHalf(String name, Configuration conf) throws Exception {
        kafka.createTopic(name + "-in", 1);
        LineProducer.produce(
                firstHalf, kafka.bootstrapServers(), name + "-in", null, Map.of(), QUIET);
        StreamTopics.prepareTopics(conf, QUIET);
        JobClient client = start(Streaming.job(conf), conf);
        awaitCommitted(
                name + "-rows", r -> rows(r) >= oldFirst.rowsWritten(), "the first half's rows");
        return client;
    }

    /** Stops the job with a canonical savepoint into the configured directory; its path. */
    static String stop(JobClient client, Configuration conf) throws Exception {
        String savepoint =
                client.stopWithSavepoint(
                                false,
                                conf.get(CheckpointingOptions.SAVEPOINT_DIRECTORY),
                                SavepointFormatType.CANONICAL)
                        .get(2, TimeUnit.MINUTES);
        client.getJobExecutionResult().get(2, TimeUnit.MINUTES);
        return savepoint;
    }

    private static void publish(Configuration conf, String spec) throws Exception {
        kafka.publish(conf.get(StreamOptions.CONTROL_TOPIC), spec.getBytes(StandardCharsets.UTF_8));
    }

    private static List<ConsumerRecord<byte[], byte[]>> awaitCommitted(
            String topic, Predicate<List<ConsumerRecord<byte[], byte[]>>> done, String what) {
        return kafka.awaitCommitted(topic, done, what, WAIT);
    }

    static long rows(List<ConsumerRecord<byte[], byte[]>> records) {
        long n = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            n += Integer.parseInt(header(r, RowsRecord.ROWS));
        }
        return n;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return TestKafka.header(r, name);
    }

    private static List<JsonNode> statuses(Configuration conf, Predicate<List<JsonNode>> done) {
        return statuses(kafka, conf, done);
    }

    /** The committed status records of {@code conf}'s control stream, once {@code done} holds. */
    static List<JsonNode> statuses(
            TestKafka kafka, Configuration conf, Predicate<List<JsonNode>> done) {
        List<JsonNode> parsed = new ArrayList<>();
        kafka.awaitCommitted(
                StreamOptions.statusTopic(conf).orElseThrow(),
                records -> {
                    parsed.clear();
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        try {
                            parsed.add(JSON.readTree(r.value()));
                        } catch (java.io.IOException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                    return done.test(parsed);
                },
                "status records",
                WAIT);
        return parsed;
    }

    private static long count(List<JsonNode> statuses, String status) {
        return statuses.stream().filter(s -> s.get("status").asText().equals(status)).count();
    }

    /**
     * The acceptance scenario: 100k lines, v2 published and acknowledged, then a bad spec and a
     * stale one, both rejected with the field at fault, then 100k more lines. The output splits
     * exactly at input offset 100,000, and the status topic says so.
     */
    @Test
    void aSpecPublishedMidStreamSwitchesExactlyAtTheAcknowledgedPoint() throws Exception {
        Configuration conf = streamConf("switch");
        JobClient client = startOnFirstHalf("switch", conf);
        publish(conf, V2);
        statuses(conf, s -> count(s, "accepted") == 1);
        publish(conf, V2.replace("\"version\": 2", "\"version\": 3").replace("1000", "0"));
        publish(conf, V2);
        publish(conf, "{\"name\": \"dlrm-criteo\", ");
        statuses(conf, s -> count(s, "rejected") == 3);
        LineProducer.produce(
                secondHalf, kafka.bootstrapServers(), "switch-in", null, Map.of(), QUIET);
        awaitCommitted("switch-rows", r -> rows(r) >= oldAll.rowsWritten(), "every row");
        stop(client, conf);

        assertSwitchedOutput(conf);
        List<JsonNode> status = statuses(conf, s -> count(s, "effective") >= 1);
        assertThat(status)
                .extracting(s -> s.get("status").asText())
                .containsExactly("accepted", "rejected", "rejected", "rejected", "effective");
        JsonNode accepted = status.get(0);
        assertThat(accepted.get("version").asInt()).isEqualTo(2);
        assertThat(accepted.get("previous_version").asInt()).isEqualTo(1);
        assertThat(accepted.get("changed").toString()).isEqualTo("[\"I5\",\"C3\"]");
        assertThat(accepted.get("new_epochs").toString()).isEqualTo("{\"C3\":1}");
        assertThat(accepted.get("source").asText()).isEqualTo("switch-control/0@0");
        assertThat(status.get(1).get("problems").toString())
                .contains("columns.C3[3]: modulus")
                .contains("not 0");
        assertThat(status.get(1).get("active_version").asInt()).isEqualTo(2);
        assertThat(status.get(2).get("problems").toString())
                .contains("version: 2 is not above the active version 2");
        assertThat(status.get(3).get("pipeline").isNull()).isTrue();
        assertThat(status.get(3).get("problems").size()).isPositive();
        JsonNode effective = status.get(4);
        assertThat(effective.get("version").asInt()).isEqualTo(2);
        assertThat(effective.get("partition").asInt()).isZero();
        assertThat(effective.get("offset").asLong()).isEqualTo(HALF);
    }

    /**
     * The cost report follows a switch: reports of the first half are version 1's, of the second
     * half version 2's, each pricing its own chains (C3 with v2's modulus, I5 with its log only in
     * version 2's), their rows adding up to at most each version's rows; the output is the
     * switch's.
     */
    @Test
    void aReportPricesEachVersionsChainsAcrossASwitch() throws Exception {
        Configuration conf = streamConf("priced");
        conf.set(ReportOptions.ENABLED, true);
        conf.set(ReportOptions.INTERVAL_LINES, 25_000L);
        conf.set(StreamOptions.REPORT_TOPIC, "priced-report");
        JobClient client = startOnFirstHalf("priced", conf);
        publish(conf, V2);
        statuses(conf, s -> count(s, "accepted") == 1);
        LineProducer.produce(
                secondHalf, kafka.bootstrapServers(), "priced-in", null, Map.of(), QUIET);
        awaitCommitted("priced-rows", r -> rows(r) >= oldAll.rowsWritten(), "every row");
        List<ConsumerRecord<byte[], byte[]>> reports =
                awaitCommitted(
                        "priced-report",
                        r -> r.stream().anyMatch(x -> version(x) == 2 && reportRows(x) > 0),
                        "a report of version 2");
        stop(client, conf);
        assertSwitchedOutput(conf);

        long[] rowsByVersion = new long[3];
        for (ConsumerRecord<byte[], byte[]> r : reports) {
            JsonNode report = JSON.readTree(r.value());
            int version = report.get("pipeline_version").asInt();
            assertThat(version).isIn(1, 2);
            rowsByVersion[version] += report.get("report").get("rows").asLong();
            JsonNode columns = report.get("columns");
            String c3 = columns.get(13 + 2).get("ops").toString();
            String i5 = columns.get(4).get("ops").toString();
            assertThat(columns.get(13 + 2).get("column").asText()).isEqualTo("C3");
            if (version == 1) {
                assertThat(c3).doesNotContain("modulus");
                assertThat(i5).doesNotContain("log");
            } else {
                assertThat(c3).contains("modulus");
                assertThat(i5).contains("log");
            }
        }
        assertThat(rowsByVersion[1]).isPositive().isLessThanOrEqualTo(oldFirst.rowsWritten());
        assertThat(rowsByVersion[2]).isPositive().isLessThanOrEqualTo(newSecond.rowsWritten());
    }

    /**
     * A switch that changes the rows' shape (I2 bucketized into a onehot of 5, so 3 more slots) and
     * gives C1 a vocabulary with an OOV bucket: every rows record states its own version's columns
     * and buckets, C1's new epoch announces its entries from index 1, and {@code consume}, whose
     * files hold rows of one shape, stops at the first wider record naming it.
     */
    @Test
    void aSwitchThatWidensTheRowsIsStatedInEveryRecord() throws Exception {
        Configuration conf = streamConf("wide");
        JobClient client = startOnFirstHalf("wide", conf);
        String v2 =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace("\"version\": 1", "\"version\": 2")
                        .replace(
                                "\"I1..I13\": [\"decode\", \"fill_missing\", \"neg2zero\"]",
                                "\"I1\": [\"decode\", \"fill_missing\", \"neg2zero\"],"
                                        + " \"I2\": [\"decode\", \"fill_missing\","
                                        + " {\"op\": \"bucketize\", \"borders\": [0, 1, 10, 100]},"
                                        + " {\"op\": \"onehot\", \"size\": 5}],"
                                        + " \"I3..I13\": [\"decode\", \"fill_missing\","
                                        + " \"neg2zero\"]")
                        .replace(
                                "\"C1..C26\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " \"vocab\"]",
                                "\"C1\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " {\"op\": \"vocab\", \"oov_buckets\": 1}],"
                                        + " \"C2..C26\": [\"decode\", \"fill_missing\","
                                        + " \"hex2int\", \"vocab\"]");
        publish(conf, v2);
        statuses(conf, s -> count(s, "accepted") == 1);
        LineProducer.produce(
                secondHalf, kafka.bootstrapServers(), "wide-in", null, Map.of(), QUIET);
        List<ConsumerRecord<byte[], byte[]>> records =
                awaitCommitted("wide-rows", r -> rows(r) >= oldAll.rowsWritten(), "every row");
        stop(client, conf);

        long widened = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            RowsRecord rows = RowsRecord.of(r); // checks the value against the headers
            String columns = header(r, RowsRecord.ROW_COLUMNS);
            if (header(r, RowsRecord.PIPELINE).equals("dlrm-criteo/2")) {
                assertThat(columns).startsWith("label,I1,I2_0,I2_1,I2_2,I2_3,I3,");
                assertThat(rows.rowBytes()).isEqualTo(43 * 4);
                assertThat(header(r, StreamFormat.OOV_BUCKETS)).startsWith("1,0,0,");
                assertThat(header(r, RowsRecord.EPOCHS)).startsWith("1,0,0,");
                widened += rows.rows();
            } else {
                assertThat(columns).startsWith("label,I1,I2,I3,");
                assertThat(header(r, StreamFormat.OOV_BUCKETS)).isNull();
            }
        }
        assertThat(widened).isPositive();
        List<ConsumerRecord<byte[], byte[]>> vocab = kafka.readCommitted("wide-vocab");
        assertThat(vocab)
                .filteredOn(
                        r ->
                                header(r, StreamFormat.COLUMN).equals("C1")
                                        && header(r, StreamFormat.EPOCH).equals("1"))
                .isNotEmpty()
                .allSatisfy(r -> assertThat(header(r, StreamFormat.OOV_BUCKETS)).isEqualTo("1"))
                .anySatisfy(r -> assertThat(header(r, StreamFormat.FIRST_INDEX)).isEqualTo("1"));
        assertThatThrownBy(
                        () ->
                                new OutputConsumer(
                                                kafka.bootstrapServers(),
                                                Map.of(),
                                                "wide-rows",
                                                "wide-vocab",
                                                null)
                                        .consume(
                                                tmp.resolve("wide-consumed"),
                                                0,
                                                Duration.ofSeconds(5),
                                                QUIET))
                .hasMessageContaining("(dlrm-criteo/2, block ")
                .hasMessageContaining("a spec switch changed the rows' shape");
    }

    /**
     * A switch to another input layout: after the first half (Criteo's 13 + 26), version 2 reads
     * lines of 13 dense and 30 sparse columns. Its records say so (44 columns), every sparse column
     * starts a new vocabulary epoch, and so the rows of each version, read back from the topic, are
     * {@code preprocess}'s of that version's lines under its spec, byte for byte, and each column's
     * entries of the new epoch are its vocabulary file.
     */
    @Test
    void aSwitchToAnotherLayoutIsANewVersionWhoseRecordsSaySo() throws Exception {
        Configuration conf = streamConf("layout");
        JobClient client = startOnFirstHalf("layout", conf);
        String v2 =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace("\"version\": 1", "\"version\": 2")
                        .replace(
                                "\"input\": {\"format\": \"criteo-tsv\"}",
                                "\"input\": {\"format\": \"criteo-tsv\", \"sparse\": 30}")
                        .replace("C1..C26", "C1..C30");
        publish(conf, v2);
        List<JsonNode> accepted = statuses(conf, s -> count(s, "accepted") == 1);
        assertThat(accepted.get(0).get("layout").asText())
                .isEqualTo("13 dense, 26 sparse -> 13 dense, 30 sparse");
        RowLayout wide = new RowLayout(13, 30);
        Path wideLines = tmp.resolve("wide.tsv");
        try (OutputStream out = Files.newOutputStream(wideLines)) {
            new CriteoGenerator(wide, 7, 0.01, 0.01).write(out, 20_000);
        }
        LineProducer.produce(
                wideLines, kafka.bootstrapServers(), "layout-in", null, Map.of(), QUIET);
        Configuration batchConf = new Configuration();
        batchConf.set(PiperOptions.SPEC, v2);
        Path batch = tmp.resolve("wide-batch");
        Preprocess.prepareOutput(batch, false);
        Preprocess.Summary wideSummary =
                Preprocess.run(wideLines, batch, 2, StateBackend.hashmap, batchConf, QUIET);
        List<ConsumerRecord<byte[], byte[]>> records =
                awaitCommitted(
                        "layout-rows",
                        r -> rows(r) >= oldFirst.rowsWritten() + wideSummary.rowsWritten(),
                        "every row");
        stop(client, conf);

        ByteArrayOutputStream first = new ByteArrayOutputStream();
        ByteArrayOutputStream second = new ByteArrayOutputStream();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            RowsRecord rows = RowsRecord.of(r);
            boolean switched = rows.pipeline().equals("dlrm-criteo/2");
            assertThat(rows.rowBytes()).isEqualTo(switched ? 44 * 4 : 40 * 4);
            assertThat(header(r, RowsRecord.EPOCHS))
                    .isEqualTo(
                            String.join(
                                    ",",
                                    java.util.Collections.nCopies(
                                            switched ? 30 : 26, switched ? "1" : "0")));
            (switched ? second : first).write(r.value());
        }
        assertThat(first.toByteArray()).isEqualTo(oldFirst.rows());
        assertThat(Files.mismatch(batch.resolve(OutputLayout.ROWS), writeTo(second, "second.bin")))
                .as("the second version's rows")
                .isEqualTo(-1);

        // Each column's entries of epoch 1, in index order, are the batch vocabulary.
        Map<String, java.util.TreeMap<Integer, String>> entries = new java.util.HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readCommitted("layout-vocab")) {
            if (header(r, StreamFormat.EPOCH).equals("1")) {
                entries.computeIfAbsent(
                                header(r, StreamFormat.COLUMN), k -> new java.util.TreeMap<>())
                        .put(
                                Integer.parseInt(header(r, StreamFormat.FIRST_INDEX)),
                                new String(r.value(), StandardCharsets.US_ASCII));
            }
        }
        for (int c = 0; c < 30; c++) {
            String name = "C" + (c + 1);
            String streamed =
                    String.join("", entries.getOrDefault(name, new java.util.TreeMap<>()).values());
            assertThat(streamed)
                    .as(name + " epoch 1")
                    .isEqualTo(Files.readString(batch.resolve(OutputLayout.vocabFile(c))));
        }
        List<JsonNode> status = statuses(conf, s -> count(s, "effective") >= 1);
        JsonNode effective =
                status.stream()
                        .filter(s -> s.get("status").asText().equals("effective"))
                        .findFirst()
                        .orElseThrow();
        assertThat(effective.get("offset").asLong()).isEqualTo(HALF);
    }

    private Path writeTo(ByteArrayOutputStream bytes, String name) throws java.io.IOException {
        return Files.write(tmp.resolve(name), bytes.toByteArray());
    }

    private static int version(ConsumerRecord<byte[], byte[]> r) {
        try {
            return JSON.readTree(r.value()).get("pipeline_version").asInt();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long reportRows(ConsumerRecord<byte[], byte[]> r) {
        try {
            return JSON.readTree(r.value()).get("report").get("rows").asLong();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The switch across a savepoint and a failure: the job stops with a savepoint right after v2
     * was accepted (before any block used it), restarts from it, and fails once at the first block
     * decoded under v2. The restored broadcast state still holds v2, and the output is exactly the
     * same as without either.
     */
    @Test
    void aSwitchSurvivesASavepointAndAFailureAtTheFirstSwitchedBlock() throws Exception {
        Configuration conf = streamConf("restore");
        JobClient client = startOnFirstHalf("restore", conf);
        publish(conf, V2);
        statuses(conf, s -> count(s, "accepted") == 1);
        String savepoint = stop(client, conf);

        LineProducer.produce(
                secondHalf, kafka.bootstrapServers(), "restore-in", null, Map.of(), QUIET);
        Configuration restored = new Configuration(conf);
        Streaming.restoreFrom(
                restored,
                savepoint.startsWith("file:") ? Path.of(URI.create(savepoint)) : Path.of(savepoint),
                false);
        FailAtFirstSwitchedBlock.FAILED.set(false);
        StreamJob job =
                Streaming.job(restored)
                        .beforeOutput(
                                s ->
                                        s.map(new FailAtFirstSwitchedBlock())
                                                .returns(BlockTypes.ASSEMBLED_BLOCK)
                                                .name("inject-failure"));
        StreamRunner.run(job, restored, Duration.ofSeconds(3), QUIET);

        assertThat(FailAtFirstSwitchedBlock.FAILED).as("the failure was injected").isTrue();
        assertSwitchedOutput(conf);
        List<JsonNode> status = statuses(conf, s -> count(s, "effective") >= 1);
        assertThat(status)
                .extracting(s -> s.get("status").asText())
                .containsExactly("accepted", "effective");
        assertThat(status.get(1).get("offset").asLong()).isEqualTo(HALF);
    }

    /** The committed status lines of a control directory's status files. */
    private static List<JsonNode> statusFiles(Path dir) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (var files = Files.list(dir)) {
            for (Path f :
                    files.filter(f -> !f.getFileName().toString().startsWith("."))
                            .sorted()
                            .toList()) {
                for (String line : Files.readAllLines(f)) {
                    out.add(JSON.readTree(line));
                }
            }
        }
        return out;
    }

    private static List<JsonNode> awaitStatusFiles(Path dir, Predicate<List<JsonNode>> done)
            throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            List<JsonNode> s = statusFiles(dir);
            if (done.test(s)) {
                return s;
            }
            if (System.nanoTime() > deadline) {
                List<String> listing;
                try (var walk = Files.walk(dir.getParent())) {
                    listing = walk.map(Path::toString).toList();
                }
                org.assertj.core.api.Assertions.fail(
                        "status files within " + WAIT + "; read " + s + "; files " + listing);
            }
        }
    }

    /** Writes {@code text} as {@code name} into {@code dir} the safe way: elsewhere, then moved. */
    private void drop(Path dir, String name, String text) throws Exception {
        Path staged = Files.writeString(tmp.resolve(name + ".staged"), text);
        Files.move(staged, dir.resolve(name), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * The same switch through a control directory ({@code --control-dir}): a spec file moved into
     * it switches the stream, a bad one (and a file that is not JSON) is rejected, and the status
     * lands in committed JSON-lines files.
     */
    @Test
    void aSpecFileMovedIntoTheControlDirectorySwitchesToo() throws Exception {
        Configuration conf = streamConf("dir");
        conf.removeConfig(StreamOptions.CONTROL_TOPIC);
        Path control = Files.createDirectories(tmp.resolve("control"));
        Path status = control.resolve("status");
        conf.set(StreamOptions.CONTROL_DIR, control.toString());
        JobClient client = startOnFirstHalf("dir", conf);

        drop(control, "v2.json", V2);
        awaitStatusFiles(status, s -> count(s, "accepted") == 1);
        drop(
                control,
                "v3.json",
                V2.replace("\"version\": 2", "\"version\": 3").replace("1000", "0"));
        drop(control, "notes.json", "not json at all");
        awaitStatusFiles(status, s -> count(s, "rejected") == 2);
        LineProducer.produce(secondHalf, kafka.bootstrapServers(), "dir-in", null, Map.of(), QUIET);
        awaitCommitted("dir-rows", r -> rows(r) >= oldAll.rowsWritten(), "every row");
        stop(client, conf);

        assertSwitchedOutput(conf);
        List<JsonNode> s = awaitStatusFiles(status, l -> count(l, "effective") == 1);
        assertThat(s).hasSize(4);
        JsonNode accepted =
                s.stream()
                        .filter(n -> n.get("status").asText().equals("accepted"))
                        .findFirst()
                        .get();
        assertThat(accepted.get("source").asText()).endsWith("/control/v2.json");
        assertThat(accepted.get("new_epochs").toString()).isEqualTo("{\"C3\":1}");
        assertThat(s.toString()).contains("columns.C3[3]: modulus").contains("notes.json");
        JsonNode effective =
                s.stream()
                        .filter(n -> n.get("status").asText().equals("effective"))
                        .findFirst()
                        .get();
        assertThat(effective.get("offset").asLong()).isEqualTo(HALF);
    }

    /** Fails the job once, at the first block decoded under spec version 2. */
    static final class FailAtFirstSwitchedBlock
            implements MapFunction<AssembledBlock, AssembledBlock> {
        private static final long serialVersionUID = 1L;
        static final AtomicBoolean FAILED = new AtomicBoolean();

        @Override
        public AssembledBlock map(AssembledBlock block) {
            if (block.version() == 2 && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure at the first switched block");
            }
            return block;
        }
    }

    /**
     * The committed output against the references: rows of the first half as the old pipeline's,
     * later rows with I5 and C3 from the new pipeline over the second half alone, every other
     * column continuing the old ids; C3's vocabulary split into epochs 0 and 1; the rows records
     * stamped with their version and epochs.
     */
    private void assertSwitchedOutput(Configuration conf) throws Exception {
        Path out = tmp.resolve("consumed");
        OutputConsumer.Result r =
                new OutputConsumer(
                                kafka.bootstrapServers(),
                                Map.of(),
                                conf.get(StreamOptions.OUTPUT_TOPIC),
                                conf.get(StreamOptions.VOCAB_TOPIC),
                                StreamOptions.deadLetterTopic(conf))
                        .consume(out, oldAll.rowsWritten(), Duration.ofSeconds(10), QUIET);
        assertThat(r.rows()).isEqualTo(oldAll.rowsWritten());
        assertThat(r.deadLetters()).isEqualTo(oldAll.rejected().size());

        byte[] expected = oldAll.rows().clone();
        ByteBuffer exp = ByteBuffer.wrap(expected).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer next = ByteBuffer.wrap(newSecond.rows()).order(ByteOrder.LITTLE_ENDIAN);
        int rowBytes = 40 * Integer.BYTES;
        long switchRow = oldFirst.rowsWritten();
        for (long row = switchRow; row < oldAll.rowsWritten(); row++) {
            int at = (int) (row * rowBytes);
            int from = (int) ((row - switchRow) * rowBytes);
            for (int field : new int[] {5, 14 + 2}) {
                exp.putInt(at + field * 4, next.getInt(from + field * 4));
            }
        }
        byte[] actual = Files.readAllBytes(out.resolve(OutputLayout.ROWS));
        assertThat(actual.length).isEqualTo(expected.length);
        assertThat(Arrays.mismatch(actual, expected)).as("first differing byte").isEqualTo(-1);

        for (int c = 0; c < 26; c++) {
            String want = c == 2 ? oldFirst.vocabFiles().get(c) : oldAll.vocabFiles().get(c);
            assertThat(Files.readString(out.resolve(OutputLayout.vocabFile(c))))
                    .as(OutputLayout.vocabFile(c))
                    .isEqualTo(want);
        }
        assertThat(Files.readString(out.resolve(OutputLayout.vocabFile(2, 1))))
                .as("C3 epoch 1")
                .isEqualTo(newSecond.vocabFiles().get(2));
        assertThat(r.vocabSizes()).containsKey("C3.epoch1").doesNotContainKey("C4.epoch1");

        List<String> versions = Files.readAllLines(out.resolve(OutputLayout.VERSIONS));
        String zeros = "[" + String.join(",", java.util.Collections.nCopies(26, "0")) + "]";
        assertThat(versions)
                .containsExactly(
                        "first_row\trows\tpipeline\tepochs",
                        "0\t" + switchRow + "\tdlrm-criteo/1\t" + zeros,
                        switchRow
                                + "\t"
                                + newSecond.rowsWritten()
                                + "\tdlrm-criteo/2\t"
                                + zeros.replaceFirst("0,0,0", "0,0,1"));
    }
}
