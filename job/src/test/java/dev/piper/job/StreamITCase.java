package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.core.block.AssembledBlock;
import dev.piper.feed.LineProducer;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.StreamFormat;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.SpecParser;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka stream job end to end, against a real broker in the test JVM and a shared MiniCluster
 * (2 task managers x 2 slots), at parallelism 2.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES) // a stream that never goes idle fails, not hangs
class StreamITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final int LINES = 200_000;

    @TempDir static Path shared;
    @TempDir Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    /** 200k generated lines, 1% malformed of every kind. */
    private static Path generated;

    /** The batch run's output of {@link #generated}, the expected stream output. */
    private static Path batch;

    private static Preprocess.Summary batchSummary;

    /** The batch run's output of {@link #generated} with Hotline's split ({@link #hotline()}). */
    private static Path batchHotline;

    /** Hotline's split, windows of 30,000 rows, 20,000 entries of dim 16. */
    private static Configuration hotline() {
        Configuration conf = new Configuration();
        conf.set(HotlineOptions.BUDGET, 20_000L * 16 * Float.BYTES);
        conf.set(HotlineOptions.WINDOW, 30_000L);
        conf.set(HotlineOptions.TRACKER_ENTRIES, 1 << 16);
        return conf;
    }

    @BeforeAll
    static void setUp() throws Exception {
        generated = shared.resolve("generated.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(generated))) {
            new CriteoGenerator(20261123, 0.01, 0.01).write(out, LINES);
        }
        batch = shared.resolve("batch");
        Preprocess.prepareOutput(batch, false);
        batchSummary =
                Preprocess.run(
                        generated, batch, 2, StateBackend.hashmap, new Configuration(), QUIET);
        batchHotline = shared.resolve("batch-hotline");
        Preprocess.prepareOutput(batchHotline, false);
        Preprocess.run(generated, batchHotline, 2, StateBackend.hashmap, hotline(), QUIET);
    }

    /** The stream configuration for topics named after {@code name}. */
    private Configuration streamConf(String name, Duration checkpointInterval) {
        Configuration conf =
                Streaming.configuration(
                        2, StateBackend.hashmap, tmp.resolve("checkpoints"), checkpointInterval);
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, name + "-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, name + "-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, name + "-vocab");
        return conf;
    }

    /**
     * A consumer of the stream's rows, vocabulary and dead-letter topics; given the stream's spec
     * when it is the test's own (the built-in one it knows from the records).
     */
    private static OutputConsumer consumer(Configuration conf) {
        return new OutputConsumer(
                        kafka.bootstrapServers(),
                        Map.of(),
                        conf.get(StreamOptions.OUTPUT_TOPIC),
                        conf.get(StreamOptions.VOCAB_TOPIC),
                        StreamOptions.deadLetterTopic(conf))
                .spec(conf.contains(PiperOptions.SPEC) ? PiperOptions.decodeOptions(conf) : null);
    }

    private Path consume(Configuration conf, long rows) throws Exception {
        Path out = tmp.resolve("consumed");
        OutputConsumer.Result r = consumer(conf).consume(out, rows, Duration.ofSeconds(20), QUIET);
        assertThat(r.rows()).isEqualTo(rows);
        assertThat(r.deadLetters()).isEqualTo(batchSummary.deadLetters());
        return out;
    }

    private static void assertSameAsBatch(Path consumed) throws Exception {
        SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "stream");
    }

    @Test
    void onePartitionGivesTheBatchOutputByteForByte() throws Exception {
        Configuration conf = streamConf("one", Duration.ofSeconds(1));
        kafka.createTopic("one-in", 1);
        LineProducer.produce(generated, kafka.bootstrapServers(), "one-in", null, Map.of(), QUIET);
        StreamTopics.prepareTopics(conf, QUIET);

        StreamRunner.Result run =
                StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);

        assertThat(run.savepoint()).isPresent();
        assertThat(run.inputRecords()).isEqualTo(LINES);
        // the last input was committed before the idle wait and the savepoint ended the run
        assertThat(run.caughtUpSeconds()).isPositive().isLessThan(run.seconds());
        assertThat(run.caughtUpRate()).isEqualTo(LINES / run.caughtUpSeconds());
        assertSameAsBatch(consume(conf, batchSummary.rowsWritten()));
    }

    /**
     * Vocabulary policies over Kafka (one partition, so arrival order is input order): a threshold
     * with OOV buckets, a bounded vocabulary and a warm start give the batch run's rows and
     * vocabulary files under the same spec, byte for byte; the consumer learns each column's
     * buckets from the records' headers.
     */
    @Test
    void vocabularyPoliciesGiveTheBatchOutputOfTheSameSpec() throws Exception {
        Path imported = Files.writeString(tmp.resolve("C4.tsv"), "1\t0\n2\t12345\n");
        String sparse = "[\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]";
        String spec =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace(
                                "\"C1..C26\": " + sparse,
                                ("\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\","
                                                + " {\"op\": \"vocab\", \"min_count\": 2, \"oov_buckets\": 4}],"
                                                + " \"C3\": [\"decode\", \"fill_missing\", \"hex2int\","
                                                + " {\"op\": \"vocab\", \"oov_buckets\": 1, \"max_size\": 100}],"
                                                + " \"C4\": [\"decode\", \"fill_missing\", \"hex2int\","
                                                + " {\"op\": \"vocab\", \"oov_buckets\": 1, \"import\": \"%s\"}],"
                                                + " \"C5..C26\": %s")
                                        .formatted(imported, sparse));
        assertThat(spec).contains("min_count");
        Configuration batchConf = new Configuration();
        batchConf.set(PiperOptions.SPEC, spec);
        Path policyBatch = tmp.resolve("policy-batch");
        Preprocess.prepareOutput(policyBatch, false);
        Preprocess.Summary summary =
                Preprocess.run(generated, policyBatch, 2, StateBackend.hashmap, batchConf, QUIET);

        Configuration conf = streamConf("pol", Duration.ofSeconds(1));
        conf.set(PiperOptions.SPEC, spec);
        kafka.createTopic("pol-in", 1);
        LineProducer.produce(generated, kafka.bootstrapServers(), "pol-in", null, Map.of(), QUIET);
        StreamTopics.prepareTopics(conf, QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);

        Path consumed = consume(conf, summary.rowsWritten());
        SameOutput.assertRowsAndVocabulariesEqual(consumed, policyBatch, "stream with policies");
        assertThat(Files.readString(consumed.resolve(OutputLayout.vocabFile(3))))
                .startsWith("1\t0\n2\t12345\n");
        assertThat(Files.readString(consumed.resolve(OutputLayout.vocabFile(0)))).startsWith("4\t");
    }

    /**
     * Three input partitions read by two readers: lanes interleave, so ids follow the arrival
     * order, but every output row still maps back, through the vocabulary topic, to exactly the
     * keys of its input line; each (column, key) has one index; each partition's blocks come in
     * input order; rows and dead letters add up to the input.
     */
    /**
     * {@code --report-topic}: the stream's output is unchanged, and the report topic receives a
     * report per interval (here every 50,000 decoded lines) in the batch report's schema, keyed by
     * the pipeline, whose intervals never count more rows than were written.
     */
    @Test
    void aReportTopicReceivesTheCostReportsAndTheOutputIsUnchanged() throws Exception {
        Configuration conf = streamConf("rep", Duration.ofSeconds(1));
        conf.set(ReportOptions.ENABLED, true);
        conf.set(ReportOptions.INTERVAL_LINES, 50_000L);
        conf.set(StreamOptions.REPORT_TOPIC, "rep-report");
        kafka.createTopic("rep-in", 1);
        LineProducer.produce(generated, kafka.bootstrapServers(), "rep-in", null, Map.of(), QUIET);
        StreamTopics.prepareTopics(conf, QUIET);

        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);

        assertSameAsBatch(consume(conf, batchSummary.rowsWritten()));
        var records = kafka.readCommitted("rep-report");
        assertThat(records.size()).isGreaterThanOrEqualTo(3);
        ObjectMapper json = new ObjectMapper();
        long rows = 0;
        int index = 0;
        for (var r : records) {
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("dlrm-criteo");
            JsonNode report = json.readTree(r.value());
            assertThat(report.get("report").get("index").asInt()).isEqualTo(index++);
            assertThat(report.get("report").get("final").asBoolean()).isFalse();
            assertThat(report.get("columns")).hasSize(39);
            assertThat(report.get("columns").get(0).get("values").asLong())
                    .isEqualTo(report.get("report").get("rows").asLong());
            assertThat(report.get("device").get("fpga_bound").asText())
                    .isIn("decode", "compute", "datapath", "link");
            rows += report.get("report").get("rows").asLong();
        }
        assertThat(rows).isPositive().isLessThanOrEqualTo(batchSummary.rowsWritten());
    }

    @Test
    void threePartitionsMapBackToTheirInputLines() throws Exception {
        Configuration conf = streamConf("three", Duration.ofSeconds(1));
        kafka.createTopic("three-in", 3);
        LineProducer.produce(
                generated, kafka.bootstrapServers(), "three-in", null, Map.of(), QUIET);
        StreamTopics.prepareTopics(conf, QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);

        Map<String, byte[]> input = new HashMap<>();
        Set<Integer> partitions = new TreeSet<>();
        for (var r : kafka.readCommitted("three-in")) {
            input.put(r.partition() + "@" + r.offset(), r.value());
            partitions.add(r.partition());
        }
        assertThat(partitions).containsExactly(0, 1, 2);
        assertThat(input).hasSize(LINES);

        ObjectMapper json = new ObjectMapper();
        Map<String, String> deadReason = new HashMap<>();
        for (var r : kafka.readCommitted(StreamOptions.deadLetterTopic(conf))) {
            JsonNode d = json.readTree(r.value());
            assertThat(d.get("topic").asText()).isEqualTo("three-in");
            assertThat(d.get("line_in_record").asInt()).isZero();
            deadReason.put(
                    d.get("partition").asInt() + "@" + d.get("offset").asLong(),
                    d.get("reason").asText());
        }

        Path vocabDir = tmp.resolve("vocab-read");
        new OutputConsumer(kafka.bootstrapServers(), Map.of(), "three-rows", "three-vocab", null)
                .consume(vocabDir, 0, Duration.ofSeconds(2), QUIET);
        List<List<String>> vocab = new ArrayList<>();
        for (int c = 0; c < 26; c++) {
            List<String> keys = new ArrayList<>();
            for (String line : Files.readAllLines(vocabDir.resolve(OutputLayout.vocabFile(c)))) {
                String[] f = line.split("\t");
                assertThat(Integer.parseInt(f[0])).isEqualTo(keys.size());
                keys.add(f[1]);
            }
            assertThat(new HashSet<>(keys)).as("C%d keys are unique", c + 1).hasSize(keys.size());
            vocab.add(keys);
        }

        Map<Integer, Long> nextBlock = new HashMap<>();
        Map<Integer, Long> nextOffset = new HashMap<>();
        long rows = 0;
        long lines = 0;
        // An input partition's blocks are spread over the rows partitions, block b of input
        // partition p on partition (p + b) mod 3, in order within each; read back in block order.
        List<ConsumerRecord<byte[], byte[]>> rowRecords =
                new ArrayList<>(kafka.readCommitted("three-rows"));
        Map<String, Long> lastBlockSeen = new HashMap<>();
        for (var r : rowRecords) {
            int p = Integer.parseInt(header(r, StreamFormat.INPUT_PARTITION));
            long block = Long.parseLong(header(r, StreamFormat.BLOCK));
            assertThat(r.partition())
                    .as("block %d of partition %d", block, p)
                    .isEqualTo((int) ((p + block) % 3));
            Long before = lastBlockSeen.put(r.partition() + "/" + p, block);
            assertThat(before == null || before < block)
                    .as("blocks in order within a partition")
                    .isTrue();
        }
        rowRecords.sort(
                java.util.Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(
                                r -> Integer.parseInt(header(r, StreamFormat.INPUT_PARTITION)))
                        .thenComparingLong(r -> Long.parseLong(header(r, StreamFormat.BLOCK))));
        for (var r : rowRecords) {
            int p = Integer.parseInt(header(r, StreamFormat.INPUT_PARTITION));
            String[] range = header(r, RowsRecord.INPUT_OFFSETS).split("-");
            long first = Long.parseLong(range[0]);
            long last = Long.parseLong(range[1]);
            assertThat(Long.parseLong(header(r, StreamFormat.BLOCK)))
                    .as("partition %d's blocks in order", p)
                    .isEqualTo(nextBlock.getOrDefault(p, 0L));
            assertThat(first)
                    .as("partition %d's offsets contiguous", p)
                    .isEqualTo(nextOffset.getOrDefault(p, 0L));
            nextBlock.merge(p, 1L, Long::sum);
            nextOffset.put(p, last + 1);
            ByteBuffer out = ByteBuffer.wrap(r.value()).order(ByteOrder.LITTLE_ENDIAN);
            int row = 0;
            for (long o = first; o <= last; o++) {
                byte[] value = input.get(p + "@" + o);
                byte[] line = Arrays.copyOf(value, value.length + 1);
                line[value.length] = '\n';
                ReferencePreprocessor.Result ref =
                        ReferencePreprocessor.run(
                                line, -1, false, DecodeOptions.DEFAULT_MAX_LINE_BYTES);
                lines++;
                String dead = deadReason.get(p + "@" + o);
                if (!ref.rejected().isEmpty()) {
                    assertThat(dead).as("%d@%d", p, o).isEqualTo(ref.rejected().get(0).reason());
                    continue;
                }
                assertThat(dead).as("%d@%d", p, o).isNull();
                int base = row * 160;
                assertThat(Arrays.copyOfRange(r.value(), base, base + 56))
                        .isEqualTo(Arrays.copyOfRange(ref.rows(), 0, 56));
                for (int c = 0; c < 26; c++) {
                    String key = ref.vocabFiles().get(c).split("[\t\n]")[1];
                    int index = out.getInt(base + 56 + 4 * c);
                    assertThat(vocab.get(c).get(index)).as("%d@%d C%d", p, o, c + 1).isEqualTo(key);
                }
                row++;
            }
            assertThat(row * 160).isEqualTo(r.value().length);
            rows += row;
        }
        assertThat(lines).isEqualTo(LINES);
        assertThat(rows + deadReason.size()).isEqualTo(LINES);
        assertThat(rows).isEqualTo(batchSummary.rowsWritten());
    }

    /**
     * A savepoint taken at parallelism 2 after the first half of the input, restored at parallelism
     * 1 and, separately, at 3 for the second half: each continuation, appended to the first run's
     * output, is the batch output of the whole input (ids preserved across the rescale, no row lost
     * or repeated).
     */
    @Test
    void aSavepointRestoresAtParallelismOneAndThree() throws Exception {
        restoresAt("rescale", StateBackend.hashmap, new Configuration(), 1, 3);
    }

    /**
     * The vocabularies kept as one RocksDB entry per key ({@code piper.vocab.store: entries}): a
     * savepoint taken at parallelism 2 restores at 3 (the entries spread over other subtasks by key
     * group), and the output is still the batch run's.
     */
    @Test
    void theEntriesStoreRestoresAtAnotherParallelism() throws Exception {
        Configuration entries = new Configuration();
        entries.set(PiperOptions.VOCAB_STORE, "entries");
        entries.set(PiperOptions.VOCAB_CACHE_ENTRIES, 1024);
        restoresAt("entries", StateBackend.rocksdb, entries, 3);
    }

    /**
     * The first half of the input streamed at parallelism 2 into topics named after {@code name},
     * stopped with a savepoint, then the second half from that savepoint at each of {@code
     * parallelisms} into topics of its own: the two runs' rows and vocabularies together are the
     * batch output.
     */
    private void restoresAt(
            String name, StateBackend backend, Configuration extra, int... parallelisms)
            throws Exception {
        byte[] all = Files.readAllBytes(generated);
        int half = nthNewline(all, LINES / 2) + 1;
        Path first = tmp.resolve(name + "-first.tsv");
        Path second = tmp.resolve(name + "-second.tsv");
        Files.write(first, Arrays.copyOfRange(all, 0, half));
        Files.write(second, Arrays.copyOfRange(all, half, all.length));

        Configuration conf = streamConf(name, Duration.ofSeconds(1));
        conf.addAll(
                Streaming.configuration(
                        2, backend, tmp.resolve(name + "-checkpoints"), Duration.ofSeconds(1)));
        conf.addAll(extra);
        conf.setString("state.backend.rocksdb.localdir", tmp.resolve(name + "-rocks").toString());
        kafka.createTopic(name + "-in", 1);
        LineProducer.produce(first, kafka.bootstrapServers(), name + "-in", null, Map.of(), QUIET);
        StreamTopics.prepareTopics(conf, QUIET);
        String savepoint =
                StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET)
                        .savepoint()
                        .orElseThrow();
        LineProducer.produce(second, kafka.bootstrapServers(), name + "-in", null, Map.of(), QUIET);

        for (int parallelism : parallelisms) {
            Configuration next =
                    Streaming.configuration(
                            parallelism,
                            backend,
                            tmp.resolve(name + "-checkpoints-p" + parallelism),
                            Duration.ofSeconds(1));
            conf.toMap()
                    .forEach(
                            (k, v) -> {
                                if (k.startsWith("piper.")) {
                                    next.setString(k, v);
                                }
                            });
            next.set(StreamOptions.OUTPUT_TOPIC, name + "-rows-p" + parallelism);
            next.set(StreamOptions.DEAD_LETTER_TOPIC, name + "-dead-p" + parallelism);
            next.set(StreamOptions.VOCAB_TOPIC, name + "-vocab-p" + parallelism);
            next.set(StreamOptions.TRANSACTIONAL_ID_PREFIX, name + "-p" + parallelism);
            next.set(StreamOptions.GROUP_ID, name + "-p" + parallelism);
            Streaming.restoreFrom(next, Path.of(java.net.URI.create(savepoint)), false);
            StreamTopics.prepareTopics(next, QUIET);
            StreamRunner.Result r =
                    StreamRunner.run(Streaming.job(next), next, Duration.ofSeconds(2), QUIET);
            assertThat(r.savepoint()).isPresent();

            java.io.ByteArrayOutputStream rows = new java.io.ByteArrayOutputStream();
            List<Map<Integer, String>> vocab = new ArrayList<>();
            for (int c = 0; c < 26; c++) {
                vocab.add(new java.util.TreeMap<>());
            }
            for (String topic : List.of(name + "-rows", name + "-rows-p" + parallelism)) {
                for (var rec : kafka.readCommitted(topic)) {
                    rows.write(rec.value());
                }
            }
            for (String topic : List.of(name + "-vocab", name + "-vocab-p" + parallelism)) {
                for (var rec : kafka.readCommitted(topic)) {
                    int c = Integer.parseInt(header(rec, StreamFormat.COLUMN).substring(1)) - 1;
                    for (String line :
                            new String(rec.value(), StandardCharsets.US_ASCII).split("\n")) {
                        String[] f = line.split("\t");
                        assertThat(vocab.get(c).put(Integer.parseInt(f[0]), f[1]))
                                .as("C%d index %s assigned once", c + 1, f[0])
                                .isNull();
                    }
                }
            }
            assertThat(rows.toByteArray())
                    .as("parallelism %d", parallelism)
                    .isEqualTo(Files.readAllBytes(batch.resolve(OutputLayout.ROWS)));
            for (int c = 0; c < 26; c++) {
                StringBuilder file = new StringBuilder();
                vocab.get(c).forEach((i, k) -> file.append(i).append('\t').append(k).append('\n'));
                assertThat(file.toString())
                        .as("C%d at parallelism %d", c + 1, parallelism)
                        .isEqualTo(Files.readString(batch.resolve(OutputLayout.vocabFile(c))));
            }
        }
    }

    /**
     * Input written by a transactional producer: an aborted transaction between two committed ones,
     * and a commit marker as the partition's last offset. The stream reads committed input only,
     * and --until-idle still ends the run although the source's committed offset stays one short of
     * the end (FLINK-33484).
     */
    @Test
    void transactionalInputSkipsAbortedRecordsAndStillEndsWhenIdle() throws Exception {
        List<byte[]> lines = new ArrayList<>();
        byte[] all = Files.readAllBytes(generated);
        for (int start = 0, i = 0; i < 2500; i++) {
            int nl = start;
            while (all[nl] != '\n') {
                nl++;
            }
            lines.add(Arrays.copyOfRange(all, start, nl));
            start = nl + 1;
        }
        kafka.createTopic("txn-in", 1);
        Map<String, Object> producerConf =
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers(),
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        "stream-itcase-input",
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                        ByteArraySerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                        ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConf)) {
            producer.initTransactions();
            int[][] batches = {{0, 1000}, {1000, 1500}, {1500, 2500}};
            for (int b = 0; b < batches.length; b++) {
                producer.beginTransaction();
                for (int i = batches[b][0]; i < batches[b][1]; i++) {
                    producer.send(new ProducerRecord<>("txn-in", lines.get(i)));
                }
                if (b == 1) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
        Path committed = tmp.resolve("committed.tsv");
        try (OutputStream out = Files.newOutputStream(committed)) {
            for (int i = 0; i < 2500; i++) {
                if (i < 1000 || i >= 1500) {
                    out.write(lines.get(i));
                    out.write('\n');
                }
            }
        }
        Path expected = tmp.resolve("expected");
        Preprocess.prepareOutput(expected, false);
        Preprocess.Summary summary =
                Preprocess.run(
                        committed, expected, 2, StateBackend.hashmap, new Configuration(), QUIET);

        Configuration conf = streamConf("txn", Duration.ofSeconds(1));
        StreamTopics.prepareTopics(conf, QUIET);
        StreamRunner.Result run =
                StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);
        assertThat(run.savepoint()).as("stopped by --until-idle").isPresent();

        Path out = tmp.resolve("txn-out");
        new OutputConsumer(kafka.bootstrapServers(), Map.of(), "txn-rows", "txn-vocab", null)
                .consume(out, summary.rowsWritten(), Duration.ofSeconds(20), QUIET);
        assertThat(Files.readAllBytes(out.resolve(OutputLayout.ROWS)))
                .isEqualTo(Files.readAllBytes(expected.resolve(OutputLayout.ROWS)));
    }

    /**
     * What consume reads is checked: a rows record whose length disagrees with its header, a gap in
     * a column's vocabulary, a topic that does not exist.
     */
    @Test
    void consumeRefusesInconsistentOutput() throws Exception {
        kafka.createTopic("forged-rows", 1);
        kafka.createTopic("forged-vocab", 1);
        Map<String, Object> producerConf =
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConf)) {
            ProducerRecord<byte[], byte[]> rows =
                    new ProducerRecord<>("forged-rows", new byte[4], new byte[100]);
            rows.headers().add(RowsRecord.ROWS, "2".getBytes(StandardCharsets.US_ASCII));
            producer.send(rows).get();
            for (int first : new int[] {0, 5}) {
                ProducerRecord<byte[], byte[]> v =
                        new ProducerRecord<>(
                                "forged-vocab",
                                "C1".getBytes(StandardCharsets.US_ASCII),
                                (first + "\t7\n").getBytes(StandardCharsets.US_ASCII));
                v.headers().add(StreamFormat.COLUMN, "C1".getBytes(StandardCharsets.US_ASCII));
                v.headers()
                        .add(
                                StreamFormat.FIRST_INDEX,
                                Integer.toString(first).getBytes(StandardCharsets.US_ASCII));
                v.headers().add(StreamFormat.COUNT, "1".getBytes(StandardCharsets.US_ASCII));
                producer.send(v).get();
            }
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                new OutputConsumer(
                                                kafka.bootstrapServers(),
                                                Map.of(),
                                                "forged-rows",
                                                null,
                                                null)
                                        .consume(
                                                tmp.resolve("f1"), 0, Duration.ofSeconds(2), QUIET))
                .hasMessageContaining(
                        "forged-rows/0@0: 2 rows of 160 bytes take 320 bytes, the value has 100");
        kafka.createTopic("forged-empty-rows", 1);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                new OutputConsumer(
                                                kafka.bootstrapServers(),
                                                Map.of(),
                                                "forged-empty-rows",
                                                "forged-vocab",
                                                null)
                                        .consume(
                                                tmp.resolve("f2"), 0, Duration.ofSeconds(2), QUIET))
                .hasMessageContaining(
                        "C1: vocabulary entries from index 1 never arrived (next present: 5)");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                new OutputConsumer(
                                                kafka.bootstrapServers(),
                                                Map.of(),
                                                "no-such-topic",
                                                null,
                                                null)
                                        .consume(
                                                tmp.resolve("f3"), 0, Duration.ofSeconds(2), QUIET))
                .hasMessageContaining("topic no-such-topic does not exist");

        // Issue 40: a negative index was written to rows.bin (exit 0); rows read twice under new
        // block numbers were written twice.
        kafka.createTopic("forged-negative", 1);
        kafka.createTopic("forged-again", 1);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConf)) {
            producer.send(criteoRows("forged-negative", 0, "0-9", -5)).get();
            producer.send(criteoRows("forged-again", 0, "0-9", 3)).get();
            producer.send(criteoRows("forged-again", 1, "5-14", 4)).get();
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                new OutputConsumer(
                                                kafka.bootstrapServers(),
                                                Map.of(),
                                                "forged-negative",
                                                null,
                                                null)
                                        .consume(
                                                tmp.resolve("f4"), 0, Duration.ofSeconds(2), QUIET))
                .hasMessage(
                        "forged-negative/0@0: column C1, row 0 of block 0 of in/0: vocabulary"
                                + " index -5 is negative (indices start at 0)");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                new OutputConsumer(
                                                kafka.bootstrapServers(),
                                                Map.of(),
                                                "forged-again",
                                                null,
                                                null)
                                        .consume(
                                                tmp.resolve("f5"), 0, Duration.ofSeconds(2), QUIET))
                .hasMessage(
                        "forged-again/0@1: block 1 of in/0 holds input offsets 5-14, but the"
                                + " blocks before it reached offset 9: rows of those offsets seen"
                                + " twice");
    }

    /** A rows record of one row in Criteo's layout (format 1) whose C1 index is {@code c1}. */
    private static ProducerRecord<byte[], byte[]> criteoRows(
            String topic, int block, String offsets, int c1) {
        java.nio.ByteBuffer row =
                java.nio.ByteBuffer.allocate(160).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        row.putInt(14 * Integer.BYTES, c1);
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, new byte[4], row.array());
        r.headers().add(RowsRecord.ROWS, "1".getBytes(StandardCharsets.US_ASCII));
        r.headers().add(StreamFormat.INPUT_TOPIC, "in".getBytes(StandardCharsets.US_ASCII));
        r.headers().add(StreamFormat.INPUT_PARTITION, "0".getBytes(StandardCharsets.US_ASCII));
        r.headers()
                .add(
                        StreamFormat.BLOCK,
                        Integer.toString(block).getBytes(StandardCharsets.US_ASCII));
        r.headers().add(RowsRecord.INPUT_OFFSETS, offsets.getBytes(StandardCharsets.US_ASCII));
        return r;
    }

    static int nthNewline(byte[] text, int n) {
        int seen = 0;
        for (int i = 0; i < text.length; i++) {
            if (text[i] == '\n' && ++seen == n) {
                return i;
            }
        }
        throw new IllegalArgumentException("fewer than " + n + " lines");
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return TestKafka.header(r, name);
    }

    /**
     * Failures injected before the first checkpoint and at a random block after one, with restarts:
     * the committed output is still exactly the batch output (no row lost, none duplicated, every
     * id as in the batch run).
     */
    @Test
    void failuresBeforeAndAfterCheckpointsLoseAndDuplicateNothing() throws Exception {
        // The second half of the input is produced only once a checkpoint has completed, so
        // blocks always flow after one (where the second failure waits), however fast the
        // first half went through.
        byte[] all = Files.readAllBytes(generated);
        int half = nthNewline(all, LINES / 2) + 1;
        Path first = tmp.resolve("fail-first.tsv");
        Path second = tmp.resolve("fail-second.tsv");
        Files.write(first, Arrays.copyOfRange(all, 0, half));
        Files.write(second, Arrays.copyOfRange(all, half, all.length));
        for (long seed : new long[] {7, 8, 9}) {
            String name = "fail" + seed;
            Configuration conf = streamConf(name, Duration.ofSeconds(2));
            // Hotline's split restores with the rest: its flags and hot sets are the batch's
            conf.addAll(hotline());
            kafka.createTopic(name + "-in", 1);
            LineProducer.produce(
                    first, kafka.bootstrapServers(), name + "-in", null, Map.of(), QUIET);
            StreamTopics.prepareTopics(conf, QUIET);
            FailureInjector.arm(seed);

            CompletableFuture<StreamRunner.Result> run = FailureInjector.runUntilCheckpointed(conf);
            LineProducer.produce(
                    second, kafka.bootstrapServers(), name + "-in", null, Map.of(), QUIET);
            run.get(4, TimeUnit.MINUTES);

            assertThat(FailureInjector.failures()).as("seed %d", seed).isEqualTo(2);
            Path out = consume(conf, batchSummary.rowsWritten());
            SameOutput.assertRowsAndVocabulariesEqual(
                    out, batchHotline, "stream with Hotline, seed " + seed);
            if (seed == 7) {
                // a consume stopped early lists the windows of the rows it read, and no later one
                Path part = tmp.resolve("part");
                OutputConsumer.Result r =
                        consumer(conf).consume(part, 50_000, Duration.ofSeconds(20), QUIET);
                List<String> windows =
                        Files.readAllLines(part.resolve(OutputLayout.HOTLINE_HOT_SETS));
                long covered = 0;
                for (String line : windows) {
                    JsonNode w = new ObjectMapper().readTree(line);
                    assertThat(w.get("first_row").asLong()).isEqualTo(covered);
                    covered += w.get("rows").asLong();
                }
                assertThat(covered).isEqualTo(r.rows());
                assertThat(windows).hasSize((int) ((r.rows() + 29_999) / 30_000));
                assertThat(Files.size(part.resolve(OutputLayout.HOTLINE_POPULAR)))
                        .isEqualTo(r.rows());
            }
            Files.walk(out)
                    .sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        }
    }

    /**
     * Fails the job twice per run: at block {@code k1} (1..3) while no checkpoint has completed,
     * and at the {@code k2}-th block (1..12) after the first completed checkpoint. Counts are
     * static: the MiniCluster runs every attempt in this JVM.
     */
    static final class FailureInjector
            implements MapFunction<AssembledBlock, AssembledBlock>, CheckpointListener {

        private static final long serialVersionUID = 1L;

        private static final AtomicInteger BLOCKS = new AtomicInteger();
        private static final AtomicInteger BLOCKS_AFTER_CHECKPOINT = new AtomicInteger();
        private static final AtomicInteger FAILURES = new AtomicInteger();
        private static volatile boolean checkpointed;
        private static volatile boolean failedBefore;
        private static volatile boolean failedAfter;
        private static volatile int k1;
        private static volatile int k2;

        static void arm(long seed) {
            java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
            k1 = 1 + random.nextInt(3);
            k2 = 1 + random.nextInt(12);
            BLOCKS.set(0);
            BLOCKS_AFTER_CHECKPOINT.set(0);
            FAILURES.set(0);
            checkpointed = false;
            failedBefore = false;
            failedAfter = false;
        }

        static int failures() {
            return FAILURES.get();
        }

        /**
         * Runs the stream of {@code conf} with failures injected before its output (after {@link
         * #arm}) in the background, idle for 10 s before it stops, and returns once it has
         * completed a checkpoint (two minutes at most).
         */
        static CompletableFuture<StreamRunner.Result> runUntilCheckpointed(Configuration conf)
                throws Exception {
            StreamJob job =
                    Streaming.job(conf)
                            .beforeOutput(
                                    s ->
                                            s.map(new FailureInjector())
                                                    .returns(
                                                            dev.piper.operators.block.BlockTypes
                                                                    .ASSEMBLED_BLOCK)
                                                    .name("inject-failures"));
            CompletableFuture<StreamRunner.Result> run =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    // Idle long enough to outlast the wait for the checkpoint.
                                    return StreamRunner.run(
                                            job, conf, Duration.ofSeconds(10), QUIET);
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            });
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (!checkpointed) {
                assertThat(System.nanoTime())
                        .as("a checkpoint within 2 minutes")
                        .isLessThan(deadline);
                try {
                    run.get(50, TimeUnit.MILLISECONDS);
                    org.assertj.core.api.Assertions.fail("the run ended before any checkpoint");
                } catch (java.util.concurrent.TimeoutException stillRunning) {
                    // waiting for the checkpoint
                }
            }
            return run;
        }

        @Override
        public AssembledBlock map(AssembledBlock block) {
            int n = BLOCKS.incrementAndGet();
            if (!failedBefore && !checkpointed && n >= k1) {
                failedBefore = true;
                FAILURES.incrementAndGet();
                throw new IllegalStateException("injected failure before the first checkpoint");
            }
            if (checkpointed && !failedAfter && BLOCKS_AFTER_CHECKPOINT.incrementAndGet() >= k2) {
                failedAfter = true;
                FAILURES.incrementAndGet();
                throw new IllegalStateException("injected failure after a checkpoint");
            }
            return block;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointed = true;
        }
    }
}
