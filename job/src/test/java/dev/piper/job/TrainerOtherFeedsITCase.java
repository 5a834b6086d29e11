package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.piper.feed.LineProducer;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.generate.ImpressionLog;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecParser;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trainer client ({@code clients/python}, Debian's python3-torch and python3-confluent-kafka)
 * on feeds other than {@link TrainerFeedITCase}'s paced Criteo log, each stream run to its end
 * before the trainer reads it: JSON click events with string ids, impressions joined with their
 * clicks with the negatives sampled, and vocabularies that evict; and the client's benchmark on a
 * Criteo feed. Nothing here is timed, so these tests share the cores with the others (job/pom.xml).
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class TrainerOtherFeedsITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final Duration CHECKPOINTS = Duration.ofSeconds(1);

    @TempDir Path tmp;

    @BeforeAll
    static void setUp() throws Exception {
        Trainers.assertInstalled();
    }

    /**
     * Issue 42: a stream of JSON click events ({@code generate --events json}: string ids, a nested
     * user, a list of recently viewed items) read by the {@code clicks-json} preset; the trainer
     * learns from the feed to within 0.05 of the hidden model's Bayes AUC, and the vocabularies
     * consumed from the feed name their entries by the original strings.
     */
    @Test
    void aTrainerLearnsFromAStreamOfJsonClickEvents() throws Exception {
        Path events = tmp.resolve("events.jsonl");
        ClickEvents generator = new ClickEvents(31, 0.01, -1);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(events))) {
            generator.write(ClickEvents.Format.JSON, out, 200_000, done -> {});
        }
        double bayes = generator.bayesAuc(0);
        Configuration conf =
                streamToItsEnd(
                        "events",
                        new String(Presets.named("clicks-json").text(), StandardCharsets.UTF_8),
                        events);

        Trainers trainers = new Trainers(tmp, kafka.bootstrapServers());
        trainers.assertEndsWell(
                "events", trainers.start("events", 0, 1, null, 10, "events-rows", "events-vocab"));
        JsonNode m = trainers.metrics("events");
        assertThat(m.get("rows").asLong()).isEqualTo(200_000);
        double best = bestWindowAuc(m);
        assertThat(best)
                .as("best window AUC, Bayes AUC %.4f: %s", bayes, m.get("windows"))
                .isGreaterThan(bayes - 0.05);
        System.out.printf(
                "trainer on JSON click events: Bayes AUC %.4f, best window %.4f%n", bayes, best);

        Path consumed = tmp.resolve("events-consumed");
        new OutputConsumer(
                        kafka.bootstrapServers(),
                        Map.of(),
                        "events-rows",
                        "events-vocab",
                        StreamOptions.deadLetterTopic(conf))
                .spec(PiperOptions.decodeOptions(conf))
                .consume(consumed, 200_000, Duration.ofSeconds(20), QUIET);
        List<String> users = Files.readAllLines(consumed.resolve(OutputLayout.vocabFile(0)));
        assertThat(users.get(0)).matches("0\\t[0-9]+\\tu_[0-9a-z]+");
        assertThat(Files.readAllLines(consumed.resolve(OutputLayout.vocabFile(5))).get(0))
                .matches("0\\t[0-9]+\\ti_[0-9]+");
    }

    /**
     * Issue 66: impressions and their clicks (200,000 impressions; late, duplicate, orphan and
     * out-of-order records at {@code piper generate --actions}' rates) joined by the stream with
     * the negatives kept at 0.25, each row's weight in column I4: the trainer, weighing each row's
     * loss by it ({@code --weight-column I4}), learns to within 0.05 of the hidden model's Bayes
     * AUC, and its mean predicted CTR over the population the rows stand for is within 5% of the
     * observed one.
     */
    @Test
    void aTrainerOnJoinedImpressionsWithSampledNegativesIsCalibrated() throws Exception {
        ClickEvents events = new ClickEvents(11, 0.01, -1);
        Path impressions = tmp.resolve("impressions.jsonl");
        Path clicks = tmp.resolve("clicks.jsonl");
        try (OutputStream i = new BufferedOutputStream(Files.newOutputStream(impressions));
                OutputStream c = new BufferedOutputStream(Files.newOutputStream(clicks))) {
            new ImpressionLog(events, 11, new ImpressionLog.Rates(10_000, 2_000, 0.01, 0.01, 0.005))
                    .write(200_000, i, c, done -> {});
        }
        double bayes = events.bayesAuc(0);
        String spec =
                ImpressionLog.spec(2_000, "1m", 0.25)
                        .replace("\"topic\": \"clicks\"", "\"topic\": \"sampled-clicks\"");
        kafka.createTopic("sampled-clicks", 1);
        LineProducer.produce(
                clicks, kafka.bootstrapServers(), "sampled-clicks", null, Map.of(), QUIET);
        streamToItsEnd("sampled", spec, impressions);

        Trainers trainers = new Trainers(tmp, kafka.bootstrapServers());
        trainers.assertEndsWell(
                "sampled",
                trainers.start(
                        "sampled",
                        0,
                        1,
                        null,
                        10,
                        "sampled-rows",
                        "sampled-vocab",
                        // more, smaller steps than Criteo's defaults: the sampled feed is short
                        List.of(
                                "--weight-column", "I4",
                                "--batch-rows", "256",
                                "--lr", "0.003",
                                "--calibration-after-rows", "20000")));
        JsonNode m = trainers.metrics("sampled");
        // about the positives (20%) and a quarter of the negatives, less the last window's
        assertThat(m.get("rows").asLong()).isBetween(60_000L, 80_000L);
        double best = bestWindowAuc(m);
        assertThat(best)
                .as("best window AUC, Bayes AUC %.4f: %s", bayes, m.get("windows"))
                .isGreaterThan(bayes - 0.05);
        assertThat(m.get("calibration").asDouble())
                .as("mean predicted CTR over observed: %s", m)
                .isBetween(0.95, 1.05);
        // the population's click rate (the kept negatives counted 4 times), not the sample's
        assertThat(m.get("observed_ctr").asDouble()).isBetween(0.17, 0.23);
        System.out.printf(
                "trainer on joined impressions, negatives at 0.25: Bayes AUC %.4f, best window"
                        + " %.4f; mean predicted CTR %.4f against observed %.4f (%.3f)%n",
                bayes,
                best,
                m.get("mean_predicted_ctr").asDouble(),
                m.get("observed_ctr").asDouble(),
                m.get("calibration").asDouble());
    }

    /**
     * Three columns evicting (LFU, TTL, LFU with min_count) at capacities far below their distinct
     * keys: the trainer applies the assignment records before each block, and re-initialises as
     * many embedding rows as the feed reused indices (counted from what consume replays).
     */
    @Test
    void aTrainerReinitialisesEveryIndexAnEvictingFeedReuses() throws Exception {
        Path input = tmp.resolve("evicting.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(27, 0.01, 0).write(out, 50_000);
        }
        String sparse = "[\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]";
        String spec =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace(
                                "\"C1..C26\": " + sparse,
                                "\"C1\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " {\"op\": \"vocab\", \"capacity\": 300, \"evict\": \"lfu\", \"oov_buckets\": 1}],"
                                        + " \"C2\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " {\"op\": \"vocab\", \"capacity\": 300, \"evict\": \"ttl\","
                                        + " \"ttl\": \"2000 rows\", \"oov_buckets\": 2}],"
                                        + " \"C3\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " {\"op\": \"vocab\", \"capacity\": 300, \"evict\": \"lfu\","
                                        + " \"min_count\": 2, \"oov_buckets\": 1}],"
                                        + " \"C4..C26\": "
                                        + sparse);
        assertThat(spec).contains("\"evict\": \"ttl\"");
        Configuration conf = streamToItsEnd("evicting", spec, input);

        Path consumed = tmp.resolve("consumed");
        new OutputConsumer(
                        kafka.bootstrapServers(),
                        Map.of(),
                        "evicting-rows",
                        "evicting-vocab",
                        StreamOptions.deadLetterTopic(conf))
                .consume(consumed, 50_000, Duration.ofSeconds(20), QUIET);
        long reuses = 0;
        for (int c = 0; c < 3; c++) {
            for (String line :
                    Files.readAllLines(consumed.resolve(OutputLayout.assignmentsFile(c)))) {
                reuses += line.endsWith("\t") ? 0 : 1;
            }
        }
        assertThat(reuses).as("indices the feed reused").isGreaterThan(1_000);

        Trainers trainers = new Trainers(tmp, kafka.bootstrapServers());
        trainers.assertEndsWell(
                "evicting",
                trainers.start("evicting", 0, 1, null, 10, "evicting-rows", "evicting-vocab"));
        JsonNode m = trainers.metrics("evicting");
        assertThat(m.get("rows").asLong()).isEqualTo(50_000);
        assertThat(m.get("late_blocks").asInt()).isZero();
        assertThat(m.get("reinitialised_rows").asLong()).isEqualTo(reuses);
        // an evicting column's table: its buckets and at most its capacity
        assertThat(m.get("table_sizes").get("C2.0").asInt()).isBetween(3, 302);
    }

    /**
     * Issue 43's client benchmark ({@code piper_feed.bench.feed}) on a streamed Criteo feed: each
     * reader (the plain consumer, the feed, the prefetcher, the prefetcher under a training loop)
     * reads every row in each pass, or the tool fails, and it prints each round and the medians.
     */
    @Test
    void theFeedBenchmarkReadsEveryRowEachWay() throws Exception {
        Path input = tmp.resolve("bench.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(43, 0.01, 0).write(out, 20_000);
        }
        streamToItsEnd(
                "bench", new String(SpecParser.builtinText(), StandardCharsets.UTF_8), input);

        Path log = tmp.resolve("bench-feed.log");
        Process bench =
                PythonClient.module(
                                "piper_feed.bench.feed",
                                List.of(
                                        "--bootstrap-servers", kafka.bootstrapServers(),
                                        "--rows-topic", "bench-rows",
                                        "--vocab-topic", "bench-vocab",
                                        "--rounds", "1",
                                        "--passes", "2",
                                        "--idle-s", "1",
                                        "--step-ms", "1"))
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        PythonClient.assertEndsWell(bench, "bench.feed", log, Duration.ofMinutes(3));
        String out = Files.readString(log);
        assertThat(out)
                .containsPattern(
                        "round 1: 20,000 rows x 2 passes; rows/s plain [0-9,]+, feed [0-9,]+,"
                                + " prefetch [0-9,]+; loop with 1 ms steps: [0-9.]+ s,"
                                + " [0-9.]+ s stepping, [0-9.]+ s blocked on the feed")
                .containsPattern(
                        "medians rows/s: plain [0-9,]+, feed [0-9,]+ \\([0-9.]+\\), prefetch"
                                + " [0-9,]+ \\([0-9.]+\\); loop blocked [0-9.]+ s of [0-9.]+ s");
    }

    /**
     * Streams {@code input} under {@code spec} from topic {@code name}-in into {@code name}-rows
     * and {@code name}-vocab until idle (2 s) and returns the stream's configuration.
     */
    private Configuration streamToItsEnd(String name, String spec, Path input) throws Exception {
        Configuration conf =
                Streaming.configuration(
                        2, StateBackend.hashmap, tmp.resolve(name + "-checkpoints"), CHECKPOINTS);
        conf.set(PiperOptions.SPEC, spec);
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, name + "-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, name + "-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, name + "-vocab");
        kafka.createTopic(name + "-in", 1);
        LineProducer.produce(input, kafka.bootstrapServers(), name + "-in", null, Map.of(), QUIET);
        StreamTopics.prepareTopics(conf, QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);
        return conf;
    }

    /** The best AUC of a trainer's windows. */
    private static double bestWindowAuc(JsonNode metrics) {
        double best = 0;
        for (JsonNode w : metrics.get("windows")) {
            best = Math.max(best, w.get("auc").asDouble());
        }
        return best;
    }
}
