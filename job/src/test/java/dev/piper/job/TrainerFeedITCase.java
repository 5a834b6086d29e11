package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.piper.feed.LineProducer;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.pipeline.generate.ClickModel;
import dev.piper.pipeline.generate.CriteoGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
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
 * workers of a two-partition rows topic each receive rows and together exactly those written.
 *
 * <p>It measures freshness, so it runs alone (job/pom.xml); the trainer on feeds it does not time
 * is {@link TrainerOtherFeedsITCase}.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class TrainerFeedITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final int LINES = 200_000;
    private static final double RATE = 20_000;
    private static final Duration CHECKPOINTS = Duration.ofSeconds(1);

    @TempDir Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    @BeforeAll
    static void setUp() throws Exception {
        Trainers.assertInstalled();
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
        Trainers trainers = new Trainers(tmp, kafka.bootstrapServers());
        Process live = trainers.start("one", 0, 1, LINES, 45, "rows", "vocab");

        // First half: once the stream runs, the lines arrive at 20,000 a second; it stops with a
        // savepoint once idle. (Lines sent while a stream starts would wait for it: freshness
        // measures the running feed, not the start of a job.)
        long started = System.currentTimeMillis();
        CompletableFuture<StreamRunner.Result> run1 =
                CompletableFuture.supplyAsync(() -> runStream(conf));
        awaitCheckpointAfter(tmp.resolve("checkpoints"), started, run1);
        // and once the trainer reads (its start, Python and PyTorch loading, is not the feed's)
        awaitReading(live, trainers.log("one"));
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
        Process worker0 = trainers.start("rank0", 0, 2, null, 10, "rows", "vocab");
        Process worker1 = trainers.start("rank1", 1, 2, null, 10, "rows", "vocab");

        trainers.assertEndsWell("one", live);
        trainers.assertEndsWell("rank0", worker0);
        trainers.assertEndsWell("rank1", worker1);
        JsonNode one = trainers.metrics("one");
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
        JsonNode rank0 = trainers.metrics("rank0");
        JsonNode rank1 = trainers.metrics("rank1");
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
}
