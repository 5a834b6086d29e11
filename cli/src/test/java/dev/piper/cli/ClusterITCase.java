package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.cli.cluster.FlinkRest;
import dev.piper.cli.local.LocalFlinkCluster;
import dev.piper.convert.TsvToParquet;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.Preprocess;
import dev.piper.job.SameOutput;
import dev.piper.job.TestClusters;
import dev.piper.job.launch.JobMain;
import dev.piper.operators.decode.DecodeMetrics;
import dev.piper.output.RowShards;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's cluster shape: a real Flink session cluster started as {@code piper cluster start}
 * starts it (JobManager and TaskManager JVMs from Flink's jars), the job jar the build made
 * submitted over REST with {@code piper submit}, and the output compared with the embedded run's.
 * Runs in Failsafe, after the job jar is packaged. The cluster is stopped even when a test fails.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ClusterITCase {

    private static final PrintStream QUIET = TestClusters.QUIET;

    private static final String SECRET = "cluster-secret-Wq4r8T";

    @TempDir static Path shared;

    private static LocalFlinkCluster cluster;
    private static String rest;
    private static Path jar;

    @TempDir Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream savedOut;
    private PrintStream savedErr;

    @BeforeAll
    static void startCluster() throws Exception {
        jar = Path.of(System.getProperty("piper.job.jar"));
        assertThat(jar).as("the job jar (mvn package builds it)").isRegularFile();
        try (JarFile j = new JarFile(jar.toFile())) {
            // What 'flink run job.jar' runs when no entry class is named.
            assertThat(j.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo(JobMain.class.getName());
            assertThat(j.getEntry(JobMain.class.getName().replace('.', '/') + ".class"))
                    .isNotNull();
        }
        Path home = Path.of(System.getProperty("piper.home"));
        cluster =
                new LocalFlinkCluster(
                        shared.resolve("cluster"), LocalFlinkCluster.classpathFile(home));
        // two TaskManagers of one slot each: a job at parallelism 2 runs on both
        LocalFlinkCluster.Settings settings =
                LocalFlinkCluster.Settings.defaults()
                        .withPorts(TestPorts.free(), TestPorts.free())
                        .withTaskManagers(2, 1)
                        .withMetricsPort(TestPorts.consecutive(3));
        try {
            rest = cluster.start(settings, Duration.ofMinutes(2), QUIET).restUrl();
        } catch (RuntimeException | IOException e) {
            cluster.stop(Duration.ofSeconds(30));
            throw e;
        }
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            boolean stopped = cluster.stop(Duration.ofSeconds(60));
            keepLogs();
            assertThat(cluster.status()).isEmpty();
            if (rest != null) {
                assertThat(stopped).as("the cluster was running until now").isTrue();
            }
        }
    }

    /**
     * Copies the cluster's logs to {@code target/cluster-itcase-logs/} (the temporary directory
     * goes with the test): a job that waits for a TaskManager that is gone is explained there only.
     */
    private static void keepLogs() throws IOException {
        Path logs = shared.resolve("cluster/log");
        Path kept = Path.of("target", "cluster-itcase-logs");
        if (!Files.isDirectory(logs)) {
            return;
        }
        Files.createDirectories(kept);
        try (Stream<Path> files = Files.list(logs)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(
                        f,
                        kept.resolve(f.getFileName()),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    @BeforeEach
    void captureOutput() {
        savedOut = System.out;
        savedErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreOutput() {
        System.setOut(savedOut);
        System.setErr(savedErr);
    }

    /** Runs the command line, expecting {@code code}; returns what it printed on stdout. */
    private String piper(int code, String... args) {
        out.reset();
        err.reset();
        assertThat(PiperCli.execute(args))
                .as("%s%nstderr: %s", String.join(" ", args), err.toString(StandardCharsets.UTF_8))
                .isEqualTo(code);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String lastLine(String text) {
        List<String> lines = text.strip().lines().toList();
        return lines.get(lines.size() - 1);
    }

    @Test
    void aPreprocessSubmittedToTheClusterWritesWhatTheEmbeddedRunWrites() throws Exception {
        Path input = generate(tmp.resolve("in.tsv"), 100_000, 7);
        Path embedded = embeddedPreprocess(input, tmp.resolve("embedded"));
        Path onCluster = tmp.resolve("cluster");

        String printed =
                piper(0, concat(submit(), preprocess(input.toString(), onCluster.toString())));

        String job = lastLine(printed);
        assertThat(job).matches("[0-9a-f]{32}");
        assertThat(printed).contains("submit: job " + job + " FINISHED after");
        assertThat(
                        new FlinkRest(java.net.URI.create(rest), Duration.ofSeconds(10))
                                .job(job)
                                .state())
                .isEqualTo("FINISHED");
        assertThat(filesOf(onCluster)).isEqualTo(filesOf(embedded)).isNotEmpty();
        for (String file : filesOf(embedded)) {
            assertThat(Files.mismatch(onCluster.resolve(file), embedded.resolve(file)))
                    .as(file)
                    .isEqualTo(-1);
        }

        // The same rows from Parquet (the job jar carries the Parquet and Hadoop client jars).
        Path parquet = tmp.resolve("in.parquet");
        TsvToParquet.convert(
                input,
                parquet,
                tmp.resolve("in.dead-letters.jsonl"),
                DecodeOptions.defaults(),
                CompressionCodecName.SNAPPY,
                25_000,
                new PrintStream(OutputStream.nullOutputStream()));
        Path fromParquet = tmp.resolve("cluster-parquet");
        piper(0, concat(submit(), preprocess(parquet.toString(), fromParquet.toString())));
        for (String file : filesOf(embedded)) {
            if (file.startsWith("vocab") || file.equals("rows.bin")) {
                assertThat(Files.mismatch(fromParquet.resolve(file), embedded.resolve(file)))
                        .as("%s from Parquet", file)
                        .isEqualTo(-1);
            }
        }
    }

    /**
     * Sharded output on two TaskManagers (a slot each, the job at parallelism 2): the rows files,
     * written by both, concatenated in manifest order are the embedded run's rows.bin; the other
     * files are the same.
     */
    @Test
    void aShardedOutputOnTwoTaskManagersConcatenatesToTheSingleFile() throws Exception {
        assertThat(
                        new FlinkRest(java.net.URI.create(rest), Duration.ofSeconds(10))
                                .taskManagerIds())
                .hasSize(2);
        Path input = generate(tmp.resolve("in.tsv"), 100_000, 11);
        Path embedded = embeddedPreprocess(input, tmp.resolve("embedded"));
        Path sharded = tmp.resolve("sharded");
        piper(
                0,
                concat(
                        concat(submit(), preprocess(input.toString(), sharded.toString())),
                        new String[] {"--block-bytes", "65536", "--shard-blocks", "8"}));
        List<Path> files = RowShards.files(sharded);
        long blocks = (Files.size(input) + 65_535) / 65_536;
        assertThat(files).hasSize((int) ((blocks + 7) / 8));
        try (OutputStream joined = Files.newOutputStream(tmp.resolve("joined.bin"))) {
            for (Path f : files) {
                Files.copy(f, joined);
            }
        }
        assertThat(Files.mismatch(tmp.resolve("joined.bin"), embedded.resolve("rows.bin")))
                .isEqualTo(-1);
        for (String file : filesOf(embedded)) {
            if (!file.equals("rows.bin") && !file.equals("metadata.json")) {
                assertThat(Files.mismatch(sharded.resolve(file), embedded.resolve(file)))
                        .as(file)
                        .isEqualTo(-1);
            }
        }
    }

    @Test
    void aJobTheClusterRefusesOrFailsFailsTheSubmission() throws Exception {
        // Refused by the program on the cluster: one line naming the option, exit 2.
        piper(
                2,
                concat(
                        submit(),
                        preprocess(
                                tmp.resolve("absent.tsv").toString(),
                                tmp.resolve("out1").toString())));
        assertThat(err.toString(StandardCharsets.UTF_8).strip())
                .startsWith("piper preprocess: --input: ")
                .contains("absent.tsv is not a readable file");

        // Failed while running: a .gz file that is not gzip. Exit 1 with the cause.
        Path corrupt = Files.writeString(tmp.resolve("corrupt.tsv.gz"), "not gzip at all\n");
        piper(1, concat(submit(), preprocess(corrupt.toString(), tmp.resolve("out2").toString())));
        assertThat(out.toString(StandardCharsets.UTF_8)).contains(" FAILED after ");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("FAILED: ").contains("GZIP");
    }

    /**
     * The Kafka feed on the cluster: the first half of the input streamed, the job stopped with a
     * savepoint ({@code piper job stop}), the second half produced while it is down, the job
     * submitted again from the savepoint (as for an upgrade). The committed output equals the batch
     * output of the whole input, byte for byte (one partition).
     */
    @Test
    void aStreamOnTheClusterStoppedAndResumedCommitsExactlyTheBatchOutput() throws Exception {
        Path first = generate(tmp.resolve("first.tsv"), 30_000, 11);
        Path second = generate(tmp.resolve("second.tsv"), 30_000, 12);
        Path all = tmp.resolve("all.tsv");
        Files.write(all, Files.readAllBytes(first));
        Files.write(all, Files.readAllBytes(second), java.nio.file.StandardOpenOption.APPEND);
        Path batch = embeddedPreprocess(all, tmp.resolve("batch"));
        Path firstBatch = embeddedPreprocess(first, tmp.resolve("first-batch"));
        Path checkpoints = tmp.resolve("ckpt");

        TestKafka kafka = TestKafka.start();
        try {
            String b = kafka.bootstrapServers();
            piper(
                    0,
                    "produce",
                    "--bootstrap-servers",
                    b,
                    "--topic",
                    "clicks",
                    "--partitions",
                    "1",
                    "--input",
                    first.toString());
            String[] stream = {
                "stream",
                "--bootstrap-servers",
                b,
                "--input-topic",
                "clicks",
                "--output-topic",
                "rows",
                "--vocab-topic",
                "vocab",
                "--checkpoint-dir",
                checkpoints.toString(),
                "--checkpoint-interval",
                "1s",
                // Hotline's split too, so that every metric of the dashboard is registered
                "--hotline-budget",
                "1280000",
                // a secret the PLAINTEXT clients ignore: the cluster must not show it
                "--kafka-property",
                "ssl.key.password=" + SECRET
            };
            // Without --parallelism (issue 40: it ran at 1 on a cluster of 2 slots)
            String job = lastLine(piper(0, concat(submitWithDefaultParallelism(), stream)));
            assertThat(piper(0, "job", "list", "--rest", rest))
                    .contains(job + "  RUNNING")
                    .contains("piper stream dlrm-criteo/1 clicks -> rows");
            for (String endpoint :
                    List.of(
                            "jobs/" + job,
                            "jobs/" + job + "/config",
                            "jobs/" + job + "/jobmanager/config",
                            "jobmanager/config")) {
                var response =
                        java.net.http.HttpClient.newHttpClient()
                                .send(
                                        java.net.http.HttpRequest.newBuilder(
                                                        java.net.URI.create(rest + "/" + endpoint))
                                                .build(),
                                        java.net.http.HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(endpoint).isEqualTo(200);
                assertThat(response.body()).as(endpoint).doesNotContain(SECRET);
            }

            OutputConsumer consumer =
                    new OutputConsumer(b, Map.of(), "rows", "vocab", "rows-dead-letters");
            long firstRows = Preprocess.readSummary(firstBatch, 0, 0, 0).rowsWritten();
            assertThat(
                            consumer.consume(
                                            tmp.resolve("half"),
                                            firstRows,
                                            Duration.ofSeconds(60),
                                            QUIET)
                                    .rows())
                    .isEqualTo(firstRows);
            // Issue 40: a fresh start restarted once (the first offset commit met a coordinator
            // that was not ready and was woken) and logged an ERROR about fencing.
            FlinkRest started = new FlinkRest(java.net.URI.create(rest), Duration.ofSeconds(10));
            assertThat(started.restarts(job)).as("restarts of a fresh start").isZero();
            assertThat(started.parallelism(job))
                    .as("the cluster's default parallelism")
                    .isEqualTo(2);
            try (Stream<Path> logs = Files.list(shared.resolve("cluster/log"))) {
                for (Path log : logs.filter(f -> f.toString().endsWith(".log")).toList()) {
                    assertThat(Files.readAllLines(log))
                            .as("ERROR lines in %s", log)
                            .noneMatch(line -> line.matches("^\\S+ \\S+ ERROR .*"));
                }
            }

            // cluster status names the endpoints, the REST address last
            String status =
                    piper(0, "cluster", "status", "--dir", shared.resolve("cluster").toString());
            for (String url : cluster.metricsEndpoints().values()) {
                assertThat(status).contains(url);
            }
            assertThat(cluster.metricsEndpoints()).hasSize(3);
            assertThat(lastLine(status)).isEqualTo(rest);
            // Prometheus: every metric and label the dashboard uses is served by the running job
            MetricsScrape.assertServes(
                    cluster.metricsEndpoints().values(),
                    home().resolve("monitoring/grafana-dashboard.json"),
                    Duration.ofSeconds(60));

            String savepoint = lastLine(piper(0, "job", "stop", "--rest", rest, job));
            assertThat(savepoint).startsWith("file:" + checkpoints.resolve("savepoints"));
            // sealed by the command that took it: a restore checks its state files
            Path taken = Path.of(java.net.URI.create(savepoint));
            assertThat(taken.resolveSibling(taken.getFileName() + ".checksums")).isRegularFile();
            assertThat(
                            new FlinkRest(java.net.URI.create(rest), Duration.ofSeconds(10))
                                    .job(job)
                                    .state())
                    .isEqualTo("FINISHED");

            piper(
                    0,
                    "produce",
                    "--bootstrap-servers",
                    b,
                    "--topic",
                    "clicks",
                    "--input",
                    second.toString());
            String resumed =
                    lastLine(piper(0, concat(submit("--from-savepoint", savepoint), stream)));
            assertThat(resumed).isNotEqualTo(job);
            // The program on the cluster took the submission's savepoint (REST savepointPath).
            assertThat(shared.resolve("cluster/log/jobmanager.out"))
                    .content()
                    .contains("stream: restoring " + savepoint + " (the submission's savepoint)");

            long rows = Preprocess.readSummary(batch, 0, 0, 0).rowsWritten();
            OutputConsumer.Result r =
                    consumer.consume(tmp.resolve("consumed"), rows, Duration.ofSeconds(60), QUIET);

            // The decoders' counters, through the REST API: the resumed job decoded the second
            // half, and its rows and dead letters add up to its lines.
            FlinkRest api = new FlinkRest(java.net.URI.create(rest), Duration.ofSeconds(10));
            long secondDead =
                    r.deadLetters() - Preprocess.readSummary(firstBatch, 0, 0, 0).deadLetters();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (api.metricSum(resumed, DecodeMetrics.LINES).orElse(0) < 30_000) {
                assertThat(System.nanoTime())
                        .as("the lines counter reaches 30,000")
                        .isLessThan(deadline);
            }
            assertThat(api.metricSum(resumed, DecodeMetrics.LINES)).hasValue(30_000);
            assertThat(api.metricSum(resumed, DecodeMetrics.DEAD_LETTERS)).hasValue(secondDead);
            assertThat(api.metricSum(resumed, DecodeMetrics.ROWS)).hasValue(30_000 - secondDead);
            piper(0, "job", "cancel", "--rest", rest, resumed);

            assertThat(r.rows()).isEqualTo(rows);
            assertThat(r.rows() + r.deadLetters()).isEqualTo(60_000);
            SameOutput.assertRowsAndVocabulariesEqual(
                    tmp.resolve("consumed"), batch, "stream on the cluster");
        } finally {
            kafka.close();
        }
    }

    /** {@code piper submit} without {@code --parallelism}, up to the {@code --}. */
    private static String[] submitWithDefaultParallelism() {
        return new String[] {"submit", "--rest", rest, "--jar", jar.toString(), "--"};
    }

    /** {@code piper submit} with {@code options}, up to the {@code --} before the job's. */
    private static String[] submit(String... options) {
        return concat(
                concat(
                        new String[] {
                            "submit", "--rest", rest, "--jar", jar.toString(), "--parallelism", "2"
                        },
                        options),
                new String[] {"--"});
    }

    private static String[] preprocess(String input, String output) {
        return new String[] {"preprocess", "--input", input, "--output", output};
    }

    private static String[] concat(String[] a, String[] b) {
        return Stream.concat(Stream.of(a), Stream.of(b)).toArray(String[]::new);
    }

    private static Path generate(Path file, long rows, long seed) throws IOException {
        try (OutputStream o = Files.newOutputStream(file)) {
            new CriteoGenerator(seed, 0.01, 0.01).write(o, rows);
        }
        return file;
    }

    private static Path embeddedPreprocess(Path input, Path output) throws Exception {
        Preprocess.prepareOutput(output, false);
        Preprocess.run(input, output, 2, StateBackend.hashmap, new Configuration(), QUIET);
        return output;
    }

    private static List<String> filesOf(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .map(p -> dir.relativize(p).toString())
                    .sorted()
                    .toList();
        }
    }

    private static Path home() {
        return Path.of(System.getProperty("piper.home"));
    }
}
