package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.generate.CriteoGenerator;
import dev.piper.job.kafka.LineProducer;
import dev.piper.job.kafka.OutputConsumer;
import dev.piper.job.kafka.TestKafka;
import dev.piper.job.sink.OutputLayout;
import dev.piper.operators.block.AssembledBlock;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka stream job end to end, against a real broker in the test JVM and a shared MiniCluster
 * (2 task managers x 2 slots), at parallelism 2.
 */
class StreamITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());
    private static final int LINES = 200_000;

    @TempDir static Path shared;
    @TempDir Path tmp;

    private static TestKafka kafka;

    /** 200k generated lines, 1% malformed of every kind. */
    private static Path generated;

    /** The batch run's output of {@link #generated}, the expected stream output. */
    private static Path batch;

    private static Preprocess.Summary batchSummary;

    @BeforeAll
    static void setUp() throws Exception {
        kafka = TestKafka.start();
        generated = shared.resolve("generated.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(generated))) {
            new CriteoGenerator(20261123, 0.01, 0.01).write(out, LINES);
        }
        batch = shared.resolve("batch");
        Preprocess.prepareOutput(batch, false);
        batchSummary =
                Preprocess.run(
                        generated, batch, 2, StateBackend.hashmap, new Configuration(), QUIET);
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
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

    private Path consume(Configuration conf, long rows) throws Exception {
        Path out = tmp.resolve("consumed");
        OutputConsumer.Result r =
                new OutputConsumer(
                                kafka.bootstrapServers(),
                                Map.of(),
                                conf.get(StreamOptions.OUTPUT_TOPIC),
                                conf.get(StreamOptions.VOCAB_TOPIC),
                                StreamOptions.deadLetterTopic(conf))
                        .consume(out, rows, Duration.ofSeconds(20), QUIET);
        assertThat(r.rows()).isEqualTo(rows);
        assertThat(r.deadLetters()).isEqualTo(batchSummary.deadLetters());
        return out;
    }

    private static void assertSameAsBatch(Path consumed) throws Exception {
        assertThat(
                        Files.mismatch(
                                consumed.resolve(OutputLayout.ROWS),
                                batch.resolve(OutputLayout.ROWS)))
                .as("rows.bin")
                .isEqualTo(-1);
        for (int c = 0; c < 26; c++) {
            String file = OutputLayout.vocabFile(c);
            assertThat(Files.mismatch(consumed.resolve(file), batch.resolve(file)))
                    .as(file)
                    .isEqualTo(-1);
        }
    }

    @Test
    void onePartitionGivesTheBatchOutputByteForByte() throws Exception {
        Configuration conf = streamConf("one", Duration.ofSeconds(1));
        kafka.createTopic("one-in", 1);
        LineProducer.produce(generated, kafka.bootstrapServers(), "one-in", null, Map.of(), QUIET);
        Streaming.prepareTopics(conf, QUIET);

        Streaming.Result run =
                Streaming.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);

        assertThat(run.savepoint()).isPresent();
        assertThat(run.inputRecords()).isEqualTo(LINES);
        assertSameAsBatch(consume(conf, batchSummary.rowsWritten()));
    }

    /**
     * Failures injected before the first checkpoint and at a random block after one, with restarts:
     * the committed output is still exactly the batch output (no row lost, none duplicated, every
     * id as in the batch run).
     */
    @Test
    void failuresBeforeAndAfterCheckpointsLoseAndDuplicateNothing() throws Exception {
        for (long seed : new long[] {7, 8}) {
            String name = "fail" + seed;
            Configuration conf = streamConf(name, Duration.ofSeconds(1));
            kafka.createTopic(name + "-in", 1);
            LineProducer.produce(
                    generated, kafka.bootstrapServers(), name + "-in", null, Map.of(), QUIET);
            Streaming.prepareTopics(conf, QUIET);
            FailureInjector.arm(seed);

            Streaming.run(
                    Streaming.job(conf)
                            .beforeOutput(
                                    s ->
                                            s.map(new FailureInjector())
                                                    .returns(
                                                            dev.piper.operators.block.BlockTypes
                                                                    .ASSEMBLED_BLOCK)
                                                    .name("inject-failures")),
                    conf,
                    Duration.ofSeconds(2),
                    QUIET);

            assertThat(FailureInjector.failures()).as("seed %d", seed).isEqualTo(2);
            Path out = consume(conf, batchSummary.rowsWritten());
            assertSameAsBatch(out);
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
