package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.connectors.kafka.LineProducer;
import dev.piper.connectors.kafka.OutputConsumer;
import dev.piper.connectors.kafka.TestKafka;
import dev.piper.connectors.output.OutputLayout;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.generate.ClickModel;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecParser;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trainer client ({@code clients/python}, {@code python3 -m piper_feed.train}, Debian's
 * python3-torch and python3-confluent-kafka) on a real broker, fed by the stream at a paced 20,000
 * lines/s of a learnable click log, with the stream stopped with a savepoint and restarted from it
 * in the middle: one worker trains on exactly the rows written, reaches the hidden model's Bayes
 * AUC within 0.05 and sees rows at most the checkpoint interval + 2 s after their input record; two
 * workers of a two-partition rows topic each receive rows and together exactly those written. On a
 * feed whose vocabularies evict, a worker re-initialises the embedding row of every reused index,
 * once, before training on the rows that use it.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class TrainerFeedITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final int LINES = 200_000;
    private static final double RATE = 20_000;
    private static final Duration CHECKPOINTS = Duration.ofSeconds(1);

    /** The Python client, from the module's directory. */
    private static final Path CLIENT = Path.of("..", "clients", "python").toAbsolutePath();

    @TempDir Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    @BeforeAll
    static void setUp() throws Exception {
        Process check =
                new ProcessBuilder("/usr/bin/python3", "-c", "import torch, confluent_kafka, numpy")
                        .redirectErrorStream(true)
                        .start();
        String said = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(check.waitFor())
                .as(
                        "the trainer client needs Debian's python3-torch and"
                                + " python3-confluent-kafka (apt-get install; .ci/run does): %s",
                        said)
                .isZero();
    }

    @Test
    void trainersLearnFromTheFeedAcrossAStreamRestart() throws Exception {
        Path first = tmp.resolve("first.tsv");
        Path second = tmp.resolve("second.tsv");
        CriteoGenerator generator =
                new CriteoGenerator(21, 0.01, 0).withClickModel(new ClickModel(21), -1);
        try (OutputStream a = new BufferedOutputStream(Files.newOutputStream(first));
                OutputStream b = new BufferedOutputStream(Files.newOutputStream(second))) {
            generator.write(a, LINES / 2);
            generator.write(b, LINES / 2);
        }
        double bayes = generator.bayesAuc(0);
        warmUp();

        Configuration conf = pacedFeed("", tmp.resolve("checkpoints"));

        // One worker trains on the live feed (its freshness is measured); the pair of workers
        // reads the same committed feed after the stream ends, so that the paced run shares the
        // two cores with one trainer only.
        List<Process> trainers = new ArrayList<>();
        trainers.add(trainer("one", 0, 1, LINES, 45));

        // First half: once the stream runs, the lines arrive at 20,000 a second; it stops with a
        // savepoint once idle. (Lines sent while a stream starts would wait for it: freshness
        // measures the running feed, not the start of a job.)
        long started = System.currentTimeMillis();
        CompletableFuture<StreamRunner.Result> run1 =
                CompletableFuture.supplyAsync(() -> runStream(conf));
        awaitCheckpointAfter(tmp.resolve("checkpoints"), started, run1);
        // and once the trainer reads (its start, Python and PyTorch loading, is not the feed's)
        awaitReading(trainers.get(0), tmp.resolve("trainer-0.log"));
        LineProducer.produce(first, kafka.bootstrapServers(), "clicks", RATE, Map.of(), QUIET);
        String savepoint = run1.get(2, TimeUnit.MINUTES).savepoint().orElseThrow();

        // Second half: the stream restored from it; lines resume once it runs.
        Configuration next = new Configuration(conf);
        Streaming.restoreFrom(next, Path.of(URI.create(savepoint)), false);
        long restarted = System.currentTimeMillis();
        CompletableFuture<StreamRunner.Result> run2 =
                CompletableFuture.supplyAsync(() -> runStream(next));
        awaitCheckpointAfter(tmp.resolve("checkpoints"), restarted, run2);
        LineProducer.produce(second, kafka.bootstrapServers(), "clicks", RATE, Map.of(), QUIET);
        run2.get(2, TimeUnit.MINUTES);
        trainers.add(trainer("rank0", 0, 2, null, 10));
        trainers.add(trainer("rank1", 1, 2, null, 10));

        for (Process p : trainers) {
            assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("trainer ends").isTrue();
        }
        for (int i = 0; i < trainers.size(); i++) {
            assertThat(trainers.get(i).exitValue())
                    .as(Files.readString(tmp.resolve("trainer-" + i + ".log")))
                    .isZero();
        }
        JsonNode one = metrics("one");
        assertThat(one.get("rows").asLong()).isEqualTo(LINES);
        assertThat(one.get("duplicate_blocks").asInt()).isZero();
        double best = 0;
        for (JsonNode w : one.get("windows")) {
            best = Math.max(best, w.get("auc").asDouble());
        }
        assertThat(best).as("best window AUC, Bayes AUC %.4f", bayes).isGreaterThan(bayes - 0.05);
        System.out.println("trainer windows: " + one.get("windows"));
        assertThat(one.get("freshness_p99_s").asDouble())
                .as(
                        "freshness p99 (written by the stream p50 %.2f s p99 %.2f s; read by the"
                                + " trainer p50 %.2f s p99 %.2f s max %.2f s; trained max %.2f s;"
                                + " windows %s)",
                        one.get("written_p50_s").asDouble(),
                        one.get("written_p99_s").asDouble(),
                        one.get("delivery_p50_s").asDouble(),
                        one.get("delivery_p99_s").asDouble(),
                        one.get("delivery_max_s").asDouble(),
                        one.get("freshness_max_s").asDouble(),
                        one.get("windows"))
                .isLessThanOrEqualTo(CHECKPOINTS.toSeconds() + 2.0);
        JsonNode rank0 = metrics("rank0");
        JsonNode rank1 = metrics("rank1");
        assertThat(rank0.get("partitions").toString()).isEqualTo("[0]");
        assertThat(rank1.get("partitions").toString()).isEqualTo("[1]");
        assertThat(rank0.get("rows").asLong()).isPositive();
        assertThat(rank1.get("rows").asLong()).isPositive();
        assertThat(rank0.get("rows").asLong() + rank1.get("rows").asLong()).isEqualTo(LINES);
        assertThat(rank0.get("duplicate_blocks").asInt() + rank1.get("duplicate_blocks").asInt())
                .isZero();
        // Together every block of the input partition, once.
        assertThat(rank0.get("blocks").asLong() + rank1.get("blocks").asLong())
                .isEqualTo(one.get("blocks").asLong());
        System.out.printf(
                "trainer: Bayes AUC %.4f, best window %.4f, freshness p50 %.2f s p99 %.2f s"
                        + " (written p50 %.2f s p99 %.2f s, read p50 %.2f s p99 %.2f s);"
                        + " training %.1f s of %.1f s; workers %d + %d rows%n",
                bayes,
                best,
                one.get("freshness_p50_s").asDouble(),
                one.get("freshness_p99_s").asDouble(),
                one.get("written_p50_s").asDouble(),
                one.get("written_p99_s").asDouble(),
                one.get("delivery_p50_s").asDouble(),
                one.get("delivery_p99_s").asDouble(),
                one.get("step_seconds").asDouble(),
                one.get("seconds").asDouble(),
                rank0.get("rows").asLong(),
                rank1.get("rows").asLong());
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
                Streaming.configuration(
                        2, StateBackend.hashmap, tmp.resolve("checkpoints"), CHECKPOINTS);
        conf.set(
                PiperOptions.SPEC,
                new String(Presets.named("clicks-json").text(), StandardCharsets.UTF_8));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, "events-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, "events-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, "events-vocab");
        kafka.createTopic("events-in", 1);
        LineProducer.produce(events, kafka.bootstrapServers(), "events-in", null, Map.of(), QUIET);
        StreamTopics.prepareTopics(conf, QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);

        Process p = trainer("events", 0, 1, null, 10, "events-rows", "events-vocab");
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("trainer ends").isTrue();
        assertThat(p.exitValue()).as(Files.readString(tmp.resolve("trainer-4.log"))).isZero();
        JsonNode m = metrics("events");
        assertThat(m.get("rows").asLong()).isEqualTo(200_000);
        double best = 0;
        for (JsonNode w : m.get("windows")) {
            best = Math.max(best, w.get("auc").asDouble());
        }
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
        Configuration conf =
                Streaming.configuration(
                        2, StateBackend.hashmap, tmp.resolve("checkpoints"), CHECKPOINTS);
        conf.set(PiperOptions.SPEC, spec);
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, "evicting-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, "evicting-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, "evicting-vocab");
        kafka.createTopic("evicting-in", 1);
        LineProducer.produce(input, kafka.bootstrapServers(), "evicting-in", null, Map.of(), QUIET);
        StreamTopics.prepareTopics(conf, QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);

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

        Process p = trainer("evicting", 0, 1, null, 10, "evicting-rows", "evicting-vocab");
        assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("trainer ends").isTrue();
        assertThat(p.exitValue()).as(Files.readString(tmp.resolve("trainer-3.log"))).isZero();
        JsonNode m = metrics("evicting");
        assertThat(m.get("rows").asLong()).isEqualTo(50_000);
        assertThat(m.get("late_blocks").asInt()).isZero();
        assertThat(m.get("reinitialised_rows").asLong()).isEqualTo(reuses);
        // an evicting column's table: its buckets and at most its capacity
        assertThat(m.get("table_sizes").get("C2.0").asInt()).isBetween(3, 302);
    }

    /**
     * Runs {@link #WARM_UP_LINES} lines through a stream on topics of their own, so that the
     * broker, the cluster and the producer in this JVM have compiled their paths before the
     * measured run, as a deployment's have once it has run a while. In a fresh JVM the first
     * seconds of the paced feed took three times the CPU of the same 20,000 lines/s after the
     * restart (157% of the two cores against 53%: the broker's network threads, the C1 compiler,
     * the source, the producers, G1), which left the trainer 5% to 50% of a core and made the
     * stream itself lag its input by up to 1.5 s: the first half's freshness p99 was 2.3 to 3.4 s
     * and the warm second half's 1.1 to 1.5 s. After this warm-up the first half took 118%.
     */
    private void warmUp() throws Exception {
        Path lines = tmp.resolve("warm-up.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(lines))) {
            new CriteoGenerator(5, 0.01, 0).write(out, WARM_UP_LINES);
        }
        Configuration conf = pacedFeed("warm-up-", tmp.resolve("warm-up-checkpoints"));
        LineProducer.produce(
                lines, kafka.bootstrapServers(), "warm-up-clicks", null, Map.of(), QUIET);
        StreamRunner.Result warm =
                StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);
        assertThat(warm.inputRecords())
                .as("lines the warm-up stream read")
                .isEqualTo(WARM_UP_LINES);
    }

    private static final int WARM_UP_LINES = 100_000;

    /**
     * The stream of the paced run, on topics named {@code prefix} + clicks (one partition, made
     * here), rows (two partitions) and vocab, checkpointing into {@code checkpoints}.
     */
    private Configuration pacedFeed(String prefix, Path checkpoints) throws Exception {
        Configuration conf =
                Streaming.configuration(2, StateBackend.hashmap, checkpoints, CHECKPOINTS);
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, prefix + "clicks");
        conf.set(StreamOptions.OUTPUT_TOPIC, prefix + "rows");
        conf.set(StreamOptions.VOCAB_TOPIC, prefix + "vocab");
        conf.set(StreamOptions.OUTPUT_PARTITIONS, 2);
        kafka.createTopic(prefix + "clicks", 1);
        StreamTopics.prepareTopics(conf, QUIET);
        return conf;
    }

    private StreamRunner.Result runStream(Configuration conf) {
        try {
            // idle: no input for 8 s, longer than the stream takes to start before lines come
            return StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(8), QUIET);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Waits until a stream started at {@code since} has completed a checkpoint (so it runs): woken
     * by the file system on every change below {@code dir} (each new directory is watched as it
     * appears), at least once a second to see the run end, for two minutes at most.
     */
    private static void awaitCheckpointAfter(
            Path dir, long since, CompletableFuture<StreamRunner.Result> run) throws Exception {
        Files.createDirectories(dir);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        try (WatchService watcher = dir.getFileSystem().newWatchService()) {
            Set<Path> watched = new HashSet<>();
            while (true) {
                // watch first, then look: a file made in between is seen by the look
                for (Path d : directoriesBelow(dir)) {
                    if (watched.add(d)) {
                        try {
                            d.register(watcher, StandardWatchEventKinds.ENTRY_CREATE);
                        } catch (java.nio.file.NoSuchFileException removed) {
                            // a retained checkpoint subsumed between the walk and the register
                        }
                    }
                }
                if (checkpointAfter(dir, since)) {
                    return;
                }
                if (run.isDone()) {
                    run.get(); // its failure
                    throw new AssertionError("the stream ended before a checkpoint");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("the stream made no checkpoint in 2 minutes");
                }
                nextChange(watcher, left);
            }
        }
    }

    /**
     * Waits until the trainer writing {@code log} says it reads its topics ("train: reading"):
     * woken by the file system on every change of the log, at least once a second to see the
     * trainer end, for two minutes at most.
     */
    private static void awaitReading(Process trainer, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        try (WatchService watcher = log.getFileSystem().newWatchService()) {
            log.getParent().register(watcher, StandardWatchEventKinds.ENTRY_MODIFY);
            while (true) {
                // watch first, then look: a line written in between is seen by the look
                String said = Files.readString(log);
                if (said.contains("train: reading")) {
                    return;
                }
                if (!trainer.isAlive()) {
                    throw new AssertionError("the trainer ended before it read: " + said);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("the trainer did not read in 2 minutes: " + said);
                }
                nextChange(watcher, left);
            }
        }
    }

    /** Waits for {@code watcher}'s next change, a second and {@code leftNanos} at most. */
    private static void nextChange(WatchService watcher, long leftNanos)
            throws InterruptedException {
        WatchKey key =
                watcher.poll(
                        Math.min(leftNanos, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
        if (key != null) {
            key.pollEvents();
            key.reset();
        }
    }

    /** The directories below {@code dir}, itself included (those removed meanwhile left out). */
    private static List<Path> directoriesBelow(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(Files::isDirectory).toList();
        } catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException e) {
            return List.of(dir); // a checkpoint removed while walked: the next wake-up looks again
        }
    }

    /**
     * Whether a checkpoint's {@code _metadata} below {@code dir} was written at {@code since} or
     * later.
     */
    private static boolean checkpointAfter(Path dir, long since) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.anyMatch(
                    p -> {
                        try {
                            return p.getFileName().toString().equals("_metadata")
                                    && p.getParent().getFileName().toString().startsWith("chk-")
                                    && Files.getLastModifiedTime(p).toMillis() >= since;
                        } catch (IOException e) {
                            return false; // a checkpoint being removed
                        }
                    });
        } catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException e) {
            return false; // a directory removed while walked: the next wake-up looks again
        }
    }

    private Process trainer(String name, int rank, int world, Integer maxRows, int idleSeconds)
            throws IOException {
        return trainer(name, rank, world, maxRows, idleSeconds, "rows", "vocab");
    }

    private Process trainer(
            String name,
            int rank,
            int world,
            Integer maxRows,
            int idleSeconds,
            String rowsTopic,
            String vocabTopic)
            throws IOException {
        List<String> command =
                new ArrayList<>(
                        List.of(
                                "/usr/bin/python3",
                                "-m",
                                "piper_feed.train",
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--rows-topic",
                                rowsTopic,
                                "--vocab-topic",
                                vocabTopic,
                                "--rank",
                                Integer.toString(rank),
                                "--world",
                                Integer.toString(world),
                                "--idle-timeout",
                                Integer.toString(idleSeconds),
                                "--metrics-out",
                                tmp.resolve(name + ".json").toString()));
        if (maxRows != null) {
            command.addAll(List.of("--max-rows", Integer.toString(maxRows)));
        }
        ProcessBuilder pb = new ProcessBuilder(command).directory(CLIENT.toFile());
        pb.environment().put("PYTHONPATH", CLIENT.toString());
        int index = List.of("one", "rank0", "rank1", "evicting", "events").indexOf(name);
        pb.redirectErrorStream(true)
                .redirectOutput(tmp.resolve("trainer-" + index + ".log").toFile());
        return pb.start();
    }

    private JsonNode metrics(String name) throws IOException {
        return new ObjectMapper().readTree(tmp.resolve(name + ".json").toFile());
    }
}
