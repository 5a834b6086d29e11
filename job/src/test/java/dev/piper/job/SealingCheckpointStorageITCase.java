package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.job.EmbeddedRunner.StateBackend;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 64: a checkpoint sealed by the stream's watcher alone was unsealed for up to a second after
 * its Kafka transactions committed; a kill then, and the loss of its {@code _metadata}, resumed
 * from the older one without a word, committing its output twice. The embedded stream's storage
 * ({@link SealingCheckpointStorage}) seals each snapshot when its {@code _metadata} is written,
 * before the tasks hear that it completed: here every task, at every completion it is told of
 * (where a Kafka sink commits), finds that checkpoint sealed, and a savepoint is sealed when the
 * stop that took it returns. No watcher runs here, so only the storage can have sealed them.
 */
class SealingCheckpointStorageITCase {

    @TempDir Path tmp;

    @Test
    void everyCheckpointIsSealedBeforeAnyTaskHearsItCompleted() throws Exception {
        Path dir = tmp.resolve("ckpt");
        Path seen = Files.createDirectories(tmp.resolve("seen"));
        Configuration conf =
                Streaming.configuration(2, StateBackend.hashmap, dir, Duration.ofMillis(200));
        assertThat(conf.get(CheckpointingOptions.CHECKPOINT_STORAGE))
                .isEqualTo(SealingCheckpointStorage.Factory.class.getName());
        JobClient client =
                EmbeddedRunner.environment(
                                conf,
                                env ->
                                        env.fromSequence(0, Long.MAX_VALUE)
                                                .map(new SealChecker(dir, seen))
                                                .returns(Types.LONG)
                                                .sinkTo(new DiscardingSink<>()))
                        .executeAsync("sealing");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (completions(seen).size() < 6 && System.nanoTime() < deadline) {
            assertThat(client.getJobStatus().get().isGloballyTerminalState())
                    .as("the job ended early")
                    .isFalse();
            TimeUnit.MILLISECONDS.sleep(50);
        }
        String savepoint = SpecSwitchITCase.stop(client, conf);

        List<String> lines = completions(seen);
        assertThat(lines).hasSizeGreaterThanOrEqualTo(6);
        assertThat(lines).allSatisfy(line -> assertThat(line).endsWith(" sealed"));
        Path saved = Path.of(java.net.URI.create(savepoint));
        assertThat(CheckpointDirectory.sealOf(saved)).isRegularFile();
        CheckpointDirectory.checkReadable(saved); // the seal matches its files
    }

    private static List<String> completions(Path seen) throws IOException {
        try (Stream<Path> files = Files.list(seen)) {
            return files.flatMap(
                            f -> {
                                try {
                                    return Files.readAllLines(f).stream();
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            })
                    .toList();
        }
    }

    /**
     * Passes numbers on; at each checkpoint completion it is told of, writes whether that
     * checkpoint's seal existed ({@code "chk-N sealed"} or {@code "chk-N unsealed"}; for the stop's
     * savepoint {@code "savepoint N ..."}) to a file of its subtask's in {@code seen}.
     */
    private static final class SealChecker extends RichMapFunction<Long, Long>
            implements CheckpointListener {
        private final String dir;
        private final String seen;
        private transient Path out;

        SealChecker(Path dir, Path seen) {
            this.dir = dir.toString();
            this.seen = seen.toString();
        }

        @Override
        public void open(OpenContext context) {
            out =
                    Path.of(seen)
                            .resolve(
                                    "subtask-"
                                            + getRuntimeContext()
                                                    .getTaskInfo()
                                                    .getIndexOfThisSubtask());
        }

        @Override
        public Long map(Long value) {
            return value;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws IOException {
            String checkpoint = "chk-" + checkpointId;
            String name = checkpoint;
            boolean sealed;
            try (Stream<Path> jobs =
                    Files.list(Path.of(dir).resolve(CheckpointDirectory.CHECKPOINTS))) {
                sealed =
                        jobs.anyMatch(
                                job ->
                                        Files.isRegularFile(
                                                CheckpointDirectory.sealOf(
                                                        job.resolve(checkpoint))));
            }
            Path savepoints = Path.of(dir).resolve(CheckpointDirectory.SAVEPOINTS);
            if (!sealed && Files.isDirectory(savepoints)) {
                // the stop's savepoint (the test takes one), named savepoint-JOB-RANDOM
                name = "savepoint " + checkpointId;
                try (Stream<Path> saved = Files.list(savepoints)) {
                    sealed = saved.anyMatch(p -> p.getFileName().toString().endsWith(".checksums"));
                }
            }
            Files.writeString(
                    out,
                    name + (sealed ? " sealed" : " unsealed") + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
    }
}
