package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.feed.LineProducer;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.StreamFormat;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.pipeline.generate.CriteoGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * A savepoint written by an earlier build restores in this one: users upgrade a running stream by
 * stopping it with a savepoint and starting the new build from it. Each savepoint under {@code
 * src/test/resources/savepoints} was taken by {@link #main} with the build named in {@link
 * #SAVEPOINTS}: a stream with a control topic, after the first {@value #HALF} lines under spec
 * version 1 and the acceptance of version 2 (C3 modulo 1000, log on I5). It holds every kind of
 * state the stream keeps: the Kafka source's offsets, the vocabularies, the control operator's and
 * the decoders' active specs, the per-lane sequences, and the Kafka sink's transactional-id prefix
 * (no open transaction: nothing was written after the last checkpoint).
 *
 * <p>The test restores each on a fresh broker into which the same lines are produced again (so that
 * the saved offsets point at the same records) and checks that the stream continues exactly where
 * it stopped: the second half's rows under version 2, every unchanged column continuing its
 * vocabulary, C3 in a new epoch. Serializer snapshot classes and operator uids are written into
 * savepoints by name; moving or renaming one breaks this test. Before a change that moves classes
 * whose names a savepoint holds, freeze one more with today's build and add it here.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SavepointCompatibilityITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    /**
     * The frozen savepoints, relative to the test resources: {@code stream-0.1} by the build of
     * 2026-11-24 (before the modules were restructured), {@code stream-0.2} by cff844c of
     * 2026-11-27 (before the block, decoder, cost and control records moved to core, the active
     * spec's serializer already in operators).
     */
    static final String[] SAVEPOINTS = {"savepoints/stream-0.1", "savepoints/stream-0.2"};

    private static final String NAME = "frozen";
    private static final int LINES = 10_000;
    private static final int HALF = LINES / 2;
    private static final long SEED = 20261124;
    private static final int ROW_BYTES = 40 * Integer.BYTES;
    private static final Duration WAIT = Duration.ofMinutes(2);
    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path tmp;

    /** The seeded input: {@link #LINES} Criteo lines, split after line {@link #HALF}. */
    private record Input(byte[] all, byte[] first, byte[] second) {
        static Input generate() throws IOException {
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            new CriteoGenerator(SEED, 0.01, 0.01).write(text, LINES);
            byte[] all = text.toByteArray();
            int half = 0;
            for (int n = 0; n < HALF; n++) {
                while (all[half] != '\n') {
                    half++;
                }
                half++;
            }
            return new Input(
                    all,
                    Arrays.copyOfRange(all, 0, half),
                    Arrays.copyOfRange(all, half, all.length));
        }

        /** Produces {@code lines} into the input topic, one record a line, from a file in dir. */
        void produce(TestKafka kafka, Path dir, String name, byte[] lines) throws Exception {
            LineProducer.produce(
                    Files.write(dir.resolve(name + ".tsv"), lines),
                    kafka.bootstrapServers(),
                    NAME + "-in",
                    null,
                    Map.of(),
                    QUIET);
        }
    }

    private static Configuration streamConf(TestKafka kafka, Path checkpoints) {
        Configuration conf =
                Streaming.configuration(
                        2, StateBackend.hashmap, checkpoints, Duration.ofSeconds(1));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, NAME + "-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, NAME + "-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, NAME + "-vocab");
        conf.set(StreamOptions.CONTROL_TOPIC, NAME + "-control");
        // A savepoint that does not restore fails the run at once instead of restarting it.
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        return conf;
    }

    private static long rows(List<ConsumerRecord<byte[], byte[]>> records) {
        return SpecSwitchITCase.rows(records);
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return TestKafka.header(r, name);
    }

    /** The statuses of the committed status records, once there are {@code atLeast}. */
    private static List<String> statuses(TestKafka kafka, Configuration conf, int atLeast) {
        return SpecSwitchITCase.statuses(kafka, conf, s -> s.size() >= atLeast).stream()
                .map(n -> n.get("status").asText())
                .toList();
    }

    @ParameterizedTest
    @FieldSource("SAVEPOINTS")
    void aSavepointOfAnEarlierBuildRestoresAndTheStreamContinuesWhereItStopped(String frozen)
            throws Exception {
        Input input = Input.generate();
        Path savepoint = tmp.resolve("savepoint");
        copyTree(resource(frozen), savepoint);

        ReferencePreprocessor.Result oldAll =
                ReferencePreprocessor.run(input.all(), -1, false, 65536);
        ReferencePreprocessor.Result oldFirst =
                ReferencePreprocessor.run(input.first(), -1, false, 65536);
        ReferencePreprocessor.Result newSecond = SpecSwitchITCase.v2Reference(input.second());

        try (TestKafka kafka = TestKafka.start()) {
            Configuration conf = streamConf(kafka, tmp.resolve("checkpoints"));
            // The same records at the same offsets as when the savepoint was taken.
            kafka.createTopic(NAME + "-in", 1);
            input.produce(kafka, tmp, "first", input.first());
            StreamTopics.prepareTopics(conf, QUIET);
            kafka.publish(
                    conf.get(StreamOptions.CONTROL_TOPIC),
                    SpecSwitchITCase.V2.getBytes(StandardCharsets.UTF_8));
            input.produce(kafka, tmp, "second", input.second());

            Streaming.restoreFrom(conf, savepoint, false);
            StreamRunner.Result run =
                    StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(3), QUIET);
            assertThat(run.savepoint()).as("stopped when idle").isPresent();

            long switchRow = oldFirst.rowsWritten();
            long secondRows = oldAll.rowsWritten() - switchRow;
            assertThat(newSecond.rowsWritten()).isEqualTo(secondRows);
            // The rows records of the one input partition, in block order.
            List<ConsumerRecord<byte[], byte[]>> records =
                    new ArrayList<>(
                            kafka.awaitCommitted(
                                    conf.get(StreamOptions.OUTPUT_TOPIC),
                                    r -> rows(r) >= secondRows,
                                    "the second half's rows",
                                    WAIT));
            assertThat(rows(kafka.readCommitted(conf.get(StreamOptions.OUTPUT_TOPIC))))
                    .as("only the second half: the saved offsets were restored")
                    .isEqualTo(secondRows);
            records.sort(
                    Comparator.comparingLong(r -> Long.parseLong(header(r, StreamFormat.BLOCK))));
            ByteArrayOutputStream actual = new ByteArrayOutputStream();
            for (ConsumerRecord<byte[], byte[]> r : records) {
                actual.write(r.value());
                assertThat(header(r, RowsRecord.PIPELINE)).isEqualTo("dlrm-criteo/2");
            }
            assertThat(header(records.get(0), StreamFormat.BLOCK))
                    .as("block numbers continue the saved lane's")
                    .isNotEqualTo("0");

            // Unchanged columns continue the first half's vocabularies (their indices are those
            // of the old pipeline over all lines); I5 and C3 are version 2's, C3 from a new epoch.
            byte[] expected =
                    Arrays.copyOfRange(
                            oldAll.rows(),
                            (int) (switchRow * ROW_BYTES),
                            (int) (oldAll.rowsWritten() * ROW_BYTES));
            ByteBuffer exp = ByteBuffer.wrap(expected).order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer next = ByteBuffer.wrap(newSecond.rows()).order(ByteOrder.LITTLE_ENDIAN);
            for (int row = 0; row < secondRows; row++) {
                for (int field : new int[] {5, 14 + 2}) {
                    int at = row * ROW_BYTES + field * 4;
                    exp.putInt(at, next.getInt(at));
                }
            }
            assertThat(actual.size()).isEqualTo(expected.length);
            assertThat(Arrays.mismatch(actual.toByteArray(), expected))
                    .as("first differing byte")
                    .isEqualTo(-1);

            // The vocabulary topic announces only the entries new since the savepoint.
            Map<String, Long> firstAnnounced = new TreeMap<>();
            for (ConsumerRecord<byte[], byte[]> r :
                    kafka.readCommitted(conf.get(StreamOptions.VOCAB_TOPIC))) {
                String key = header(r, StreamFormat.COLUMN) + "/" + header(r, StreamFormat.EPOCH);
                firstAnnounced.merge(
                        key, Long.parseLong(header(r, StreamFormat.FIRST_INDEX)), Math::min);
            }
            for (int c = 0; c < 26; c++) {
                String column = "C" + (c + 1);
                long saved = oldFirst.vocabFiles().get(c).lines().count();
                long total = oldAll.vocabFiles().get(c).lines().count();
                if (c == 2) {
                    assertThat(firstAnnounced).as(column).doesNotContainKey(column + "/0");
                    assertThat(firstAnnounced).as(column).containsEntry(column + "/1", 0L);
                } else if (total > saved) {
                    assertThat(firstAnnounced).as(column).containsEntry(column + "/0", saved);
                } else {
                    assertThat(firstAnnounced).as(column).doesNotContainKey(column + "/0");
                }
            }
            assertThat(statuses(kafka, conf, 1))
                    .as("the restored control state: version 2 takes effect at the first block")
                    .containsExactly("effective");
        }
    }

    private static Path resource(String name) throws Exception {
        var url = SavepointCompatibilityITCase.class.getClassLoader().getResource(name);
        assertThat(url).as("test resource " + name).isNotNull();
        return Path.of(url.toURI());
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /**
     * Writes the frozen savepoint into {@code args[0]} (run once with the build whose savepoints
     * must keep restoring; the test resource is its output): the first half of the input under
     * version 1, version 2 published and accepted, then a stop with a savepoint.
     */
    public static void main(String[] args) throws Exception {
        Path target = Path.of(args[0]);
        Path work = Files.createTempDirectory("piper-freeze");
        Input input = Input.generate();
        org.apache.flink.runtime.minicluster.MiniClusterConfiguration mcc =
                new org.apache.flink.runtime.minicluster.MiniClusterConfiguration.Builder()
                        .setNumTaskManagers(2)
                        .setNumSlotsPerTaskManager(2)
                        .build();
        try (TestKafka kafka = TestKafka.start();
                var cluster = new org.apache.flink.runtime.minicluster.MiniCluster(mcc)) {
            cluster.start();
            Configuration conf = streamConf(kafka, work.resolve("checkpoints"));
            kafka.createTopic(NAME + "-in", 1);
            input.produce(kafka, work, "first", input.first());
            StreamTopics.prepareTopics(conf, QUIET);
            long firstRows =
                    ReferencePreprocessor.run(input.first(), -1, false, 65536).rowsWritten();

            StreamExecutionEnvironment env =
                    new org.apache.flink.streaming.api.environment.RemoteStreamEnvironment(
                            "127.0.0.1", cluster.getRestAddress().get().getPort(), conf);
            env.configure(conf);
            env.setParallelism(2);
            Streaming.job(conf).build(env);
            JobClient client = env.executeAsync("freeze");
            kafka.awaitCommitted(NAME + "-rows", r -> rows(r) >= firstRows, "the first half", WAIT);
            kafka.publish(
                    conf.get(StreamOptions.CONTROL_TOPIC),
                    SpecSwitchITCase.V2.getBytes(StandardCharsets.UTF_8));
            assertThat(statuses(kafka, conf, 1)).containsExactly("accepted");
            String savepoint = SpecSwitchITCase.stop(client, conf);
            Path saved =
                    savepoint.startsWith("file:")
                            ? Path.of(URI.create(savepoint))
                            : Path.of(savepoint);
            copyTree(saved, target);
            System.out.println("savepoint of " + firstRows + " rows written to " + target);
        }
    }
}
