package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.pipeline.join.NegativeSampling;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The label join in {@code stream}: impressions and clicks on two topics of two partitions each,
 * out of order within the bound, with late, duplicate, after-window and orphan clicks and late and
 * duplicate impressions, streamed at parallelism 2, commit the rows that {@code preprocess} of the
 * same logs (one file per partition) writes, byte for byte, and their vocabulary; the join's dead
 * letters reach the dead-letter topic with their reasons and sources. The stream's watermark stays
 * behind the last records of each partition (their rows wait for later input), so each partition
 * ends with a record far later than the rest, whose rows only the batch join's end emits.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class LabelJoinStreamITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    private static final long WINDOW = 60_000;
    private static final long BOUND = 2_000;
    private static final int IMPRESSIONS = 20_000;

    /** {@link LabelJoinITCase}'s spec, the clicks read from topic {@code clicks}. */
    private static final String SPEC =
            LabelJoinITCase.SPEC.replace(
                    "\"window\": \"1m\"", "\"window\": \"1m\", \"topic\": \"clicks\"");

    /**
     * The same, the clicks joined {@code negative-first} and the negatives sampled at 0.5: the rows
     * carry their weight ({@code I4}) and whether each is a positive copy ({@code I5}).
     */
    private static final String NEGATIVE_FIRST_SPEC =
            SPEC.replace("\"dense\": 3", "\"dense\": 5")
                    .replace(
                            "\"C1\": \"user\"}",
                            "\"I4\": \"labels.weight\", \"I5\": \"labels.copy\", \"C1\": \"user\"}")
                    .replace("\"I1..I3\"", "\"I1..I5\"")
                    .replace(
                            "\"window\": \"1m\"",
                            "\"window\": \"1m\", \"policy\": \"negative-first\"")
                    .replace(
                            "{\"max_out_of_orderness\": \"2s\",",
                            "{\"max_out_of_orderness\": \"2s\", \"negative_sample_rate\": 0.5,");

    private static final double NEGATIVE_RATE = 0.5;

    @TempDir static Path tmp;

    /** Per partition, its records' lines in the order they arrive. */
    static final List<List<String>> IMPS = List.of(new ArrayList<>(), new ArrayList<>());

    static final List<List<String>> CLICKS = List.of(new ArrayList<>(), new ArrayList<>());

    /** The same records in one partition each, in order of arrival. */
    static final List<String> ONE_IMPS = new ArrayList<>();

    static final List<String> ONE_CLICKS = new ArrayList<>();

    private record Timed(long arrival, String line) {}

    /**
     * Impressions about 25 ms apart, each on the partition of its key's hash, arriving within half
     * the bound of their time (1% far behind: late); a tenth clicked after an exponential delay
     * (mean 15 s; 1 in 30 after the window), 1 in 20 clicks sent twice; 1 in 200 clicks for an
     * impression never logged; 1 in 100 impressions logged twice.
     */
    @BeforeAll
    static void writeTheLogs() throws Exception {
        SplittableRandom rnd = new SplittableRandom(20261207);
        List<List<Timed>> imps = List.of(new ArrayList<>(), new ArrayList<>());
        List<List<Timed>> clicks = List.of(new ArrayList<>(), new ArrayList<>());
        long t = 1_795_737_600_000L;
        for (int i = 0; i < IMPRESSIONS; i++) {
            t += rnd.nextInt(50);
            String key = "r" + i;
            int p = Math.floorMod(key.hashCode(), 2);
            String line =
                    "{\"rid\":\"%s\",\"ts\":%d,\"price\":%d,\"user\":\"u%d\"}"
                            .formatted(key, t, rnd.nextInt(1000), rnd.nextInt(500));
            imps.get(p).add(new Timed(arrival(t, rnd), line));
            if (rnd.nextInt(100) == 0) {
                imps.get(p).add(new Timed(arrival(t + 1, rnd), line)); // logged twice
            }
            if (rnd.nextInt(10) == 0) {
                long delay = (long) (-Math.log(1 - rnd.nextDouble()) * 15_000);
                if (rnd.nextInt(30) == 0) {
                    delay = WINDOW + rnd.nextInt(1, 30_000);
                }
                String click =
                        "{\"rid\":\"%s\",\"ts\":%d,\"cid\":\"c%d\"}".formatted(key, t + delay, i);
                int q = rnd.nextInt(2);
                clicks.get(q).add(new Timed(arrival(t + delay, rnd), click));
                if (rnd.nextInt(20) == 0) {
                    clicks.get(1 - q).add(new Timed(arrival(t + delay, rnd), click));
                }
            }
            if (rnd.nextInt(200) == 0) {
                String orphan = "{\"rid\":\"x%d\",\"ts\":%d,\"cid\":\"o%d\"}".formatted(i, t, i);
                clicks.get(rnd.nextInt(2)).add(new Timed(arrival(t, rnd), orphan));
            }
        }
        long end = t + 10 * WINDOW;
        List<Timed> all = new ArrayList<>(imps.get(0));
        all.addAll(imps.get(1));
        sort(all, ONE_IMPS);
        all = new ArrayList<>(clicks.get(0));
        all.addAll(clicks.get(1));
        sort(all, ONE_CLICKS);
        ONE_IMPS.add("{\"rid\":\"end\",\"ts\":%d,\"price\":0,\"user\":\"u0\"}".formatted(end));
        ONE_CLICKS.add("{\"rid\":\"end\",\"ts\":%d,\"cid\":\"e\"}".formatted(end));
        write(tmp.resolve("one-impressions.jsonl"), ONE_IMPS);
        write(tmp.resolve("one-clicks.jsonl"), ONE_CLICKS);
        for (int p = 0; p < 2; p++) {
            sort(imps.get(p), IMPS.get(p));
            sort(clicks.get(p), CLICKS.get(p));
            // the closing records: every partition's watermark passes the logs' last windows
            IMPS.get(p)
                    .add(
                            "{\"rid\":\"end%d\",\"ts\":%d,\"price\":0,\"user\":\"u0\"}"
                                    .formatted(p, end));
            CLICKS.get(p).add("{\"rid\":\"end%d\",\"ts\":%d,\"cid\":\"e%d\"}".formatted(p, end, p));
        }
        Files.createDirectories(tmp.resolve("impressions"));
        for (int p = 0; p < 2; p++) {
            write(tmp.resolve("impressions/" + p + ".jsonl"), IMPS.get(p));
            write(tmp.resolve("clicks-" + p + ".jsonl"), CLICKS.get(p));
        }
    }

    private static long arrival(long t, SplittableRandom rnd) {
        return rnd.nextInt(100) == 0
                ? t + 5 * BOUND + rnd.nextLong(BOUND)
                : t + rnd.nextLong(BOUND / 2);
    }

    private static void sort(List<Timed> timed, List<String> into) {
        timed.sort(Comparator.comparingLong(Timed::arrival));
        timed.forEach(x -> into.add(x.line()));
    }

    private static void write(Path file, List<String> lines) throws Exception {
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            for (String l : lines) {
                w.write(l);
                w.write('\n');
            }
        }
    }

    /** The batch join of the logs, once: its output directory. */
    private static Path batch() throws Exception {
        return batch(SPEC, "batch");
    }

    /** The batch join of the logs under {@code spec}, once, into {@code dir}. */
    private static synchronized Path batch(String spec, String dir) throws Exception {
        Path batch = tmp.resolve(dir);
        if (Files.exists(batch.resolve("metadata.json"))) {
            return batch;
        }
        Configuration pre = new Configuration();
        pre.set(PiperOptions.SPEC, spec);
        pre.set(
                PiperOptions.LABEL_ACTIONS,
                "click="
                        + tmp.resolve("clicks-0.jsonl")
                        + ",click="
                        + tmp.resolve("clicks-1.jsonl"));
        Preprocess.prepareOutput(batch, false);
        Preprocess.run(
                tmp.resolve("impressions"),
                batch,
                2,
                StateBackend.hashmap,
                pre,
                TestClusters.QUIET);
        return batch;
    }

    /** The stream's configuration at {@code parallelism}, its topics named after {@code name}. */
    private static Configuration streamConf(String name, int parallelism) {
        return streamConf(name, parallelism, StateBackend.hashmap);
    }

    /** As above, its keyed state in {@code backend}. */
    private static Configuration streamConf(String name, int parallelism, StateBackend backend) {
        return streamConf(name, parallelism, backend, SPEC);
    }

    /** As above, under {@code spec} (whose clicks' topic is {@code clicks}). */
    private static Configuration streamConf(
            String name, int parallelism, StateBackend backend, String spec) {
        Configuration conf =
                Streaming.configuration(
                        parallelism,
                        backend,
                        tmp.resolve(name + "-checkpoints"),
                        Duration.ofSeconds(1));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, name + "-impressions");
        conf.set(StreamOptions.OUTPUT_TOPIC, name + "-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, name + "-vocab");
        conf.set(StreamOptions.OUTPUT_PARTITIONS, 2);
        conf.set(StreamOptions.GROUP_ID, name);
        conf.set(StreamOptions.TRANSACTIONAL_ID_PREFIX, name);
        conf.set(PiperOptions.SPEC, spec.replace("\"clicks\"", "\"" + name + "-clicks\""));
        return conf;
    }

    /** Sends the share {@code [from, to)} of every partition's lines to {@code name}'s topics. */
    private static void publish(String name, double from, double to) throws Exception {
        for (int p = 0; p < 2; p++) {
            kafka.publishLines(name + "-impressions", p, part(IMPS.get(p), from, to));
            kafka.publishLines(name + "-clicks", p, part(CLICKS.get(p), from, to));
        }
    }

    private static List<String> part(List<String> lines, double from, double to) {
        return lines.subList((int) (lines.size() * from), (int) (lines.size() * to));
    }

    @Test
    void theStreamCommitsTheBatchJoinOfTheSameLogs() throws Exception {
        Path batch = batch();
        JsonNode join =
                new ObjectMapper()
                        .readTree(batch.resolve("metadata.json").toFile())
                        .get("label_join");
        Map<String, Long> batchDead = new TreeMap<>();
        join.get("dead_letters_by_reason")
                .fields()
                .forEachRemaining(e -> batchDead.put(e.getKey(), e.getValue().asLong()));
        assertThat(batchDead)
                .containsKeys(
                        "late_impression",
                        "duplicate_impression",
                        "late_action",
                        "action_after_window",
                        "orphan_action",
                        "duplicate_action");

        kafka.createTopic("once-impressions", 2);
        kafka.createTopic("once-clicks", 2);
        publish("once", 0, 1);
        Configuration conf = streamConf("once", 2);
        conf.set(StreamOptions.JOIN_LINES, StreamOptions.JoinLines.topic);
        StreamTopics.prepareTopics(conf, TestClusters.QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(3), TestClusters.QUIET);
        assertCommittedIsTheBatchJoin("once", conf);

        // the join's dead letters: the batch's (the closing clicks join the closing impressions
        // there, and wait in the stream)
        Map<String, Long> streamDead = new TreeMap<>();
        ObjectMapper json = new ObjectMapper();
        for (ConsumerRecord<byte[], byte[]> d : kafka.readCommitted("once-rows-dead-letters")) {
            JsonNode letter = json.readTree(new String(d.value(), StandardCharsets.UTF_8));
            streamDead.merge(letter.get("reason").asText(), 1L, Long::sum);
            assertThat(letter.get("source").asText()).isIn("impressions", "click");
            assertThat(letter.get("topic").asText())
                    .isEqualTo(
                            letter.get("source").asText().equals("click")
                                    ? "once-clicks"
                                    : "once-impressions");
            if (letter.get("source").asText().equals("impressions")) {
                // held by position, its bytes read back from the topic for its dead letter
                assertThat(letter.get("raw").asText())
                        .isEqualTo(
                                IMPS.get(letter.get("partition").asInt())
                                        .get(letter.get("offset").asInt()));
            }
        }
        batchDead.values().removeIf(n -> n == 0);
        assertThat(streamDead).isEqualTo(batchDead);
    }

    /**
     * The clicks joined {@code negative-first}, the negatives sampled at 0.5: each impression's row
     * goes out once the watermark passes it, as a negative kept by its key's hash (weight 2), and
     * again as a positive copy when a click joins it in its window (its line kept until then). The
     * stream commits the batch join's rows, weights and copies included, byte for byte.
     */
    @Test
    void negativeFirstWithSampledNegativesCommitsTheBatchJoin() throws Exception {
        Path batch = batch(NEGATIVE_FIRST_SPEC, "negative-first-batch");
        JsonNode join =
                new ObjectMapper()
                        .readTree(batch.resolve("metadata.json").toFile())
                        .get("label_join");
        assertThat(join.get("sampled_out").asLong()).isPositive();
        assertThat(join.get("positive_copies").asLong()).isPositive();
        kafka.createTopic("first-impressions", 2);
        kafka.createTopic("first-clicks", 2);
        publish("first", 0, 1);
        Configuration conf = streamConf("first", 2, StateBackend.hashmap, NEGATIVE_FIRST_SPEC);
        // every positive copy's line read back from behind the forward reader
        conf.set(StreamOptions.JOIN_LINES, StreamOptions.JoinLines.topic);
        StreamTopics.prepareTopics(conf, TestClusters.QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(3), TestClusters.QUIET);
        // the closing impressions' rows wait in the stream: each one's positive copy (its closing
        // click joins it) and its negative where the sampling keeps it
        int waiting = 2;
        for (String key : List.of("end0", "end1")) {
            waiting += NegativeSampling.keeps(key, NEGATIVE_RATE) ? 1 : 0;
        }
        byte[] rows = assertCommittedIsTheBatchJoin("first", conf, batch, waiting, 7);
        // weights of 2 (kept negatives) and positive copies are among them
        java.nio.ByteBuffer b =
                java.nio.ByteBuffer.wrap(rows).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int weighted = 0;
        int copies = 0;
        for (int r = 0; r < rows.length / (7 * 4); r++) {
            weighted += b.getInt((r * 7 + 4) * 4) > 0 ? 1 : 0;
            copies += b.getInt((r * 7 + 5) * 4) > 0 ? 1 : 0;
        }
        assertThat(weighted).isPositive();
        assertThat(copies).isPositive();
    }

    /**
     * A stream stopped with a savepoint while windows are open (impressions waiting for their
     * clicks, clicks for the watermark, rows for their order), restored at parallelism 3 with the
     * rest of the logs, commits the same rows: the keys' state, the partitions' times and the
     * waiting rows restore, onto other subtasks.
     */
    @Test
    void aStreamRestoredAtAnotherParallelismCommitsTheSameRows() throws Exception {
        stopWithWindowsOpenAndRestoreAtThree(
                "resumed", StateBackend.hashmap, StreamOptions.JoinLines.state);
    }

    /**
     * The same with the join's state in RocksDB (a conversion window holds days of impressions,
     * more than a heap): each key's join is read and written through its serializer at every step,
     * the savepoint holds it in RocksDB's format, and the restore at parallelism 3 rebuilds the due
     * keys' queue by iterating RocksDB's keys.
     */
    @Test
    void aStreamWithItsJoinInRocksDbRestoredAtAnotherParallelismCommitsTheSameRows()
            throws Exception {
        stopWithWindowsOpenAndRestoreAtThree(
                "rocks", StateBackend.rocksdb, StreamOptions.JoinLines.topic);
    }

    /**
     * Streams the first 40% of the logs to {@code name}'s topics at parallelism 2, the waiting
     * impressions' lines kept {@code first}, stops with a savepoint, restores it at parallelism 3
     * over the rest with the lines in the topic (a restore from lines in state then holds both: the
     * restored impressions' lines, the new ones' positions), and checks the committed rows.
     */
    private static void stopWithWindowsOpenAndRestoreAtThree(
            String name, StateBackend backend, StreamOptions.JoinLines first) throws Exception {
        batch();
        kafka.createTopic(name + "-impressions", 2);
        kafka.createTopic(name + "-clicks", 2);
        publish(name, 0, 0.4);
        Configuration conf = streamConf(name, 2, backend);
        conf.set(StreamOptions.JOIN_LINES, first);
        StreamTopics.prepareTopics(conf, TestClusters.QUIET);
        String savepoint =
                StreamRunner.run(
                                Streaming.job(conf),
                                conf,
                                Duration.ofSeconds(3),
                                TestClusters.QUIET)
                        .savepoint()
                        .orElseThrow();
        publish(name, 0.4, 1);
        Configuration next = streamConf(name, 3, backend);
        next.set(StreamOptions.JOIN_LINES, StreamOptions.JoinLines.topic);
        Streaming.restoreFrom(next, Path.of(java.net.URI.create(savepoint)), false);
        StreamRunner.run(Streaming.job(next), next, Duration.ofSeconds(3), TestClusters.QUIET);
        assertCommittedIsTheBatchJoin(name, next);
    }

    /**
     * Topics of one partition each, streamed at parallelism 3: the join reads them with two
     * subtasks (a third, without a partition, would hold the watermark back for ever) and commits
     * the batch join of the two files.
     */
    @Test
    void topicsOfFewerPartitionsThanTheParallelismJoin() throws Exception {
        Path batch = tmp.resolve("one-batch");
        Configuration pre = new Configuration();
        pre.set(PiperOptions.SPEC, SPEC);
        pre.set(PiperOptions.LABEL_ACTIONS, "click=" + tmp.resolve("one-clicks.jsonl"));
        Preprocess.prepareOutput(batch, false);
        Preprocess.run(
                tmp.resolve("one-impressions.jsonl"),
                batch,
                2,
                StateBackend.hashmap,
                pre,
                TestClusters.QUIET);
        kafka.createTopic("one-impressions", 1);
        kafka.createTopic("one-clicks", 1);
        kafka.publishLines("one-impressions", 0, ONE_IMPS);
        kafka.publishLines("one-clicks", 0, ONE_CLICKS);
        Configuration conf = streamConf("one", 3);
        StreamTopics.prepareTopics(conf, TestClusters.QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(3), TestClusters.QUIET);
        assertCommittedIsTheBatchJoin("one", conf, batch, 1, 5);
    }

    /**
     * The rows and vocabulary committed to {@code name}'s topics are the batch join's, but for its
     * last two rows: the closing impressions', which wait in the stream for a later watermark.
     */
    private static void assertCommittedIsTheBatchJoin(String name, Configuration conf)
            throws Exception {
        assertCommittedIsTheBatchJoin(name, conf, batch(), 2, 5);
    }

    /**
     * As above, against {@code batch} of rows of {@code columns} 4-byte values, whose last {@code
     * waiting} rows wait in the stream: returns the rows committed.
     */
    private static byte[] assertCommittedIsTheBatchJoin(
            String name, Configuration conf, Path batch, int waiting, int columns)
            throws Exception {
        byte[] batchRows = Files.readAllBytes(batch.resolve("rows.bin"));
        long rows = batchRows.length / (columns * 4) - waiting;
        Path consumed = tmp.resolve(name + "-consumed");
        OutputConsumer.Result r =
                new OutputConsumer(
                                kafka.bootstrapServers(),
                                Map.of(),
                                name + "-rows",
                                name + "-vocab",
                                null)
                        .spec(PiperOptions.decodeOptions(conf))
                        .consume(consumed, rows, Duration.ofSeconds(20), TestClusters.QUIET);
        assertThat(r.rows()).isEqualTo(rows);
        byte[] committed = Files.readAllBytes(consumed.resolve("rows.bin"));
        assertThat(committed).isEqualTo(Arrays.copyOf(batchRows, (int) rows * columns * 4));
        assertThat(Files.readAllBytes(consumed.resolve("vocab/C1.tsv")))
                .isEqualTo(Files.readAllBytes(batch.resolve("vocab/C1.tsv")));
        return committed;
    }
}
