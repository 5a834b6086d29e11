package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.cli.cluster.FlinkRest;
import dev.piper.cli.local.LocalFlinkCluster;
import dev.piper.cli.local.LocalKafka;
import dev.piper.feed.LineProducer;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.TopicCreation;
import dev.piper.job.SameOutput;
import dev.piper.pipeline.generate.CriteoGenerator;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos soak (issue 23): the Kafka feed on a local Flink cluster (a JobManager and a
 * TaskManager process) and a local broker (a process), fed at a steady rate for a set time, while
 * at seeded random moments the TaskManager is killed (SIGKILL, then started again), the broker is
 * killed (SIGKILL, then started again on its data) and the job is cancelled without a savepoint
 * (then submitted again, resuming from its latest checkpoint). Afterwards the committed output must
 * equal {@code preprocess} of the same lines: nothing lost, nothing twice.
 *
 * <p>Every 5 s it samples each process's resident memory and the job's consumer lag (input end
 * offset minus the offset committed at the last checkpoint) into {@code soak.tsv}, and writes a
 * summary ({@code soak-summary.txt}). In the suite it runs 2 minutes; for longer
 * (docs/RELIABILITY.md):
 *
 * <pre>
 * mvn -B -pl cli verify -Dit.test=ChaosSoakITCase -Dpiper.soak.seconds=1800 -Dpiper.soak.rate=2000 \
 *     -Dpiper.soak.dir=/tmp/soak
 * </pre>
 */
@Timeout(value = 120, unit = TimeUnit.MINUTES)
class ChaosSoakITCase {

    private static final Duration START = Duration.ofMinutes(2);

    enum Fault {
        TASK_MANAGER,
        BROKER,
        JOB
    }

    @TempDir Path tmp;

    private static long rssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process is gone
        }
        return -1;
    }

    @Test
    void theFeedSurvivesKilledTaskManagersBrokersAndJobsExactlyOnce() throws Exception {
        long seconds = Long.getLong("piper.soak.seconds", 120);
        int rate = Integer.getInteger("piper.soak.rate", 1_000);
        long seed = Long.getLong("piper.soak.seed", 20261124L);
        Path dir =
                System.getProperty("piper.soak.dir") == null
                        ? tmp
                        : Files.createDirectories(Path.of(System.getProperty("piper.soak.dir")));
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        Path home = Path.of(System.getProperty("piper.home"));
        Path jar = Path.of(System.getProperty("piper.job.jar"));
        assertThat(jar).as("the job jar (mvn package builds it)").isRegularFile();

        long lines = seconds * rate;
        Path input = dir.resolve("input.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(seed, 0.01, 0.01).write(out, lines);
        }
        Path batch = dir.resolve("batch");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                "" + input,
                                "--output",
                                "" + batch,
                                "--overwrite"))
                .isZero();

        LocalKafka broker = new LocalKafka(dir.resolve("kafka"), LocalKafka.classpathFile(home));
        LocalFlinkCluster cluster =
                new LocalFlinkCluster(
                        dir.resolve("cluster"), LocalFlinkCluster.classpathFile(home));
        int kafkaPort = TestPorts.free();
        int controllerPort = TestPorts.free();
        // its own metrics ports too: the defaults' 9249 and 9250 are the README's, which
        // ReadmeITCase's cluster takes when the two run at once
        LocalFlinkCluster.Settings settings =
                LocalFlinkCluster.Settings.defaults()
                        .withPorts(TestPorts.free(), TestPorts.free())
                        .withMetricsPort(TestPorts.consecutive(2));
        Path samples = dir.resolve("soak.tsv");
        Path summary = dir.resolve("soak-summary.txt");
        try (PrintWriter tsv = new PrintWriter(Files.newBufferedWriter(samples))) {
            String bootstrap =
                    broker.start(kafkaPort, controllerPort, "512m", START, quiet).bootstrap();
            String rest = cluster.start(settings, START, quiet).restUrl();
            FlinkRest flink = new FlinkRest(URI.create(rest), Duration.ofSeconds(10));
            TopicCreation.createIfAbsent(bootstrap, Map.of(), "soak-in", 1, quiet);
            Path checkpoints = dir.resolve("checkpoints");
            String[] submit = {
                "submit",
                "--rest",
                rest,
                "--jar",
                jar.toString(),
                "--parallelism",
                "2",
                "--",
                "stream",
                "--bootstrap-servers",
                bootstrap,
                "--input-topic",
                "soak-in",
                "--output-topic",
                "soak-rows",
                "--vocab-topic",
                "soak-vocab",
                "--checkpoint-dir",
                checkpoints.toString(),
                "--checkpoint-interval",
                "2s"
            };
            String job = submit(submit);

            // Generous producer timeouts: the broker may be down for a while; the producer is
            // idempotent, so its retries are not duplicates.
            Map<String, String> producer =
                    Map.of(
                            "delivery.timeout.ms", "900000",
                            "max.block.ms", "900000",
                            "request.timeout.ms", "20000");
            CompletableFuture<LineProducer.Result> producing =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return LineProducer.produce(
                                            input,
                                            bootstrap,
                                            "soak-in",
                                            (double) rate,
                                            producer,
                                            quiet);
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            });

            // The faults: each kind once (in a seeded order), then seeded draws, spread over the
            // run at random gaps around their mean.
            Random random = new Random(seed);
            int events = (int) Math.max(3, seconds / 60);
            List<Fault> plan = new ArrayList<>(List.of(Fault.values()));
            Collections.shuffle(plan, random);
            while (plan.size() < events) {
                plan.add(Fault.values()[random.nextInt(Fault.values().length)]);
            }
            double meanGap = (double) seconds / (events + 1);
            long start = System.nanoTime();
            long next = start + (long) (meanGap * (0.5 + random.nextDouble()) * 1e9);
            Map<Fault, Integer> done = new EnumMap<>(Fault.class);
            tsv.println("second\tjobmanager_rss_kb\ttaskmanager_rss_kb\tbroker_rss_kb\tlag\tevent");
            int fault = 0;
            long lastSample = 0;
            while (!producing.isDone() || fault < plan.size()) {
                long now = System.nanoTime();
                String event = "";
                if (fault < plan.size() && now >= next) {
                    Fault f = plan.get(fault++);
                    event = f.name().toLowerCase();
                    switch (f) {
                        case TASK_MANAGER -> {
                            long pid = cluster.status().orElseThrow().taskManagerPid();
                            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                            awaitExit(pid);
                            cluster.startTaskManager(START);
                        }
                        case BROKER -> {
                            long pid = broker.status().orElseThrow().pid();
                            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                            awaitExit(pid);
                            broker.start(kafkaPort, controllerPort, "512m", START, quiet);
                        }
                        case JOB -> {
                            flink.cancel(job);
                            flink.awaitEnd(job, START);
                            job = submit(submit);
                        }
                    }
                    done.merge(f, 1, Integer::sum);
                    next = now + (long) (meanGap * (0.5 + random.nextDouble()) * 1e9);
                }
                if (now - lastSample >= 5_000_000_000L || !event.isEmpty()) {
                    lastSample = now;
                    var running = cluster.status();
                    tsv.printf(
                            "%d\t%d\t%d\t%d\t%d\t%s%n",
                            (now - start) / 1_000_000_000L,
                            running.map(r -> rssKb(r.jobManagerPid())).orElse(-1L),
                            running.map(r -> rssKb(r.taskManagerPid())).orElse(-1L),
                            broker.status().map(r -> rssKb(r.pid())).orElse(-1L),
                            lag(bootstrap),
                            event);
                    tsv.flush();
                }
                watch(broker, 500);
            }
            assertThat(producing.get().lines()).isEqualTo(lines);
            long produced = (System.nanoTime() - start) / 1_000_000_000L;

            // The job catches up: all input committed (lag 0), then the output is read whole.
            long deadline = System.nanoTime() + START.toNanos() * 2;
            while (lag(bootstrap) != 0) {
                assertThat(System.nanoTime()).as("the job catches up").isLessThan(deadline);
                assertThat(flink.job(job).terminal()).as("the job runs").isFalse();
                watch(broker, 1000);
            }
            Path consumed = dir.resolve("consumed");
            OutputConsumer.Result r =
                    new OutputConsumer(
                                    bootstrap,
                                    Map.of(),
                                    "soak-rows",
                                    "soak-vocab",
                                    "soak-rows-dead-letters")
                            .consume(consumed, 0, Duration.ofSeconds(5), quiet);
            SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "the soaked feed");
            String report =
                    String.format(
                            "soak: %d s at %d lines/s (seed %d): %,d lines produced in %d s,"
                                    + " faults %s; consumed %,d rows and %,d dead letters, equal"
                                    + " to preprocess: 0 lost, 0 duplicated; samples in %s%n",
                            seconds,
                            rate,
                            seed,
                            lines,
                            produced,
                            done,
                            r.rows(),
                            r.deadLetters(),
                            samples);
            Files.writeString(summary, report);
            System.out.print(report);
            assertThat(done.keySet()).containsExactlyInAnyOrder(Fault.values());
            flink.cancel(job);
        } finally {
            cluster.stop(Duration.ofSeconds(30));
            broker.stop(Duration.ofSeconds(30));
        }
    }

    /** Submits the stream; returns its job id. */
    private static String submit(String[] args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertThat(PiperCli.execute(args)).as("submit").isZero();
        } finally {
            System.setOut(saved);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        var m = java.util.regex.Pattern.compile("job ([0-9a-f]{32})").matcher(printed);
        assertThat(m.find()).as(printed).isTrue();
        return m.group(1);
    }

    /**
     * Waits up to {@code millis} for the broker to exit, which it must not: between two looks at
     * the run, the one process whose end would stop it is watched.
     */
    private static void watch(LocalKafka broker, long millis) throws Exception {
        var running = broker.status();
        assertThat(running).as("the broker runs").isPresent();
        var handle = ProcessHandle.of(running.get().pid());
        if (handle.isPresent()) {
            try {
                handle.get().onExit().get(millis, TimeUnit.MILLISECONDS);
            } catch (TimeoutException stillRunning) {
                return;
            }
        }
        throw new AssertionError("the broker exited unasked");
    }

    private static void awaitExit(long pid) throws Exception {
        var handle = ProcessHandle.of(pid);
        if (handle.isPresent()) {
            handle.get().onExit().get(60, TimeUnit.SECONDS);
        }
    }

    /**
     * The job's lag on the input: its end offset minus the offset the job committed with its last
     * checkpoint; -1 while the broker does not answer.
     */
    private static long lag(String bootstrap) {
        Map<String, Object> conf =
                Map.of(
                        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000,
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 4000);
        TopicPartition p = new TopicPartition("soak-in", 0);
        try (Admin admin = Admin.create(conf)) {
            long end =
                    admin.listOffsets(Map.of(p, OffsetSpec.latest()))
                            .partitionResult(p)
                            .get(5, TimeUnit.SECONDS)
                            .offset();
            OffsetAndMetadata committed =
                    admin.listConsumerGroupOffsets("piper-soak-rows")
                            .partitionsToOffsetAndMetadata()
                            .get(5, TimeUnit.SECONDS)
                            .get(p);
            return end - (committed == null ? 0 : committed.offset());
        } catch (Exception e) {
            return -1;
        }
    }
}
