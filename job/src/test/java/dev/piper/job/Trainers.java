package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The trainer client ({@code clients/python}, {@code python3 -m piper_feed.train}) as a process of
 * a test: each trainer is named, writes its output to {@code trainer-NAME.log} and its metrics to
 * {@code NAME.json} in the test's directory.
 */
final class Trainers {

    private final Path dir;
    private final String bootstrapServers;

    Trainers(Path dir, String bootstrapServers) {
        this.dir = dir;
        this.bootstrapServers = bootstrapServers;
    }

    /** Fails, naming what to install, unless Debian's PyTorch and Kafka client are importable. */
    static void assertInstalled() throws Exception {
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

    /**
     * Starts trainer {@code name}: worker {@code rank} of {@code world} on {@code rowsTopic} and
     * {@code vocabTopic}, ending after {@code maxRows} rows (null: no limit) or {@code idleSeconds}
     * without a record.
     */
    Process start(
            String name,
            int rank,
            int world,
            Integer maxRows,
            int idleSeconds,
            String rowsTopic,
            String vocabTopic)
            throws IOException {
        return start(name, rank, world, maxRows, idleSeconds, rowsTopic, vocabTopic, List.of());
    }

    /** {@link #start(String, int, int, Integer, int, String, String)} with more options. */
    Process start(
            String name,
            int rank,
            int world,
            Integer maxRows,
            int idleSeconds,
            String rowsTopic,
            String vocabTopic,
            List<String> options)
            throws IOException {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--bootstrap-servers",
                                bootstrapServers,
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
                                dir.resolve(name + ".json").toString()));
        if (maxRows != null) {
            args.addAll(List.of("--max-rows", Integer.toString(maxRows)));
        }
        args.addAll(options);
        return PythonClient.module("piper_feed.train", args)
                .redirectErrorStream(true)
                .redirectOutput(log(name).toFile())
                .start();
    }

    /** Trainer {@code name}'s output and errors. */
    Path log(String name) {
        return dir.resolve("trainer-" + name + ".log");
    }

    /** Waits for trainer {@code name} to end (3 minutes at most) and asserts it ended well. */
    void assertEndsWell(String name, Process trainer) throws Exception {
        PythonClient.assertEndsWell(trainer, "trainer " + name, log(name), Duration.ofMinutes(3));
    }

    /** The metrics trainer {@code name} wrote at its end. */
    JsonNode metrics(String name) throws IOException {
        return new ObjectMapper().readTree(dir.resolve(name + ".json").toFile());
    }
}
