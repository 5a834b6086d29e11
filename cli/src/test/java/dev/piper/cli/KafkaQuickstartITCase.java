package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.feed.TestKafka;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Kafka quickstart, steps 2 to 4, through the command line (the broker of step 1 is
 * the in-JVM test broker; `piper kafka start` has its own test, LocalKafkaITCase): generate,
 * produce into two partitions, stream until idle, consume.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KafkaQuickstartITCase {

    @TempDir Path tmp;

    private TestKafka kafka;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private PrintStream savedOut;
    private PrintStream savedErr;

    @BeforeEach
    void start() throws Exception {
        kafka = TestKafka.start();
        savedOut = System.out;
        savedErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() throws Exception {
        System.setOut(savedOut);
        System.setErr(savedErr);
        kafka.close();
    }

    /**
     * Issue 23: an oversized record in {@code produce} gave no reason. The one error line names the
     * line, the file, the topic and Kafka's cause.
     */
    @Test
    void produceNamesTheLineAndTheCauseOfAFailedSend() throws Exception {
        Path input = tmp.resolve("big.tsv");
        Files.writeString(input, "1\t2\n" + "x".repeat(2 << 20) + "\n3\t4\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int code =
                PiperCli.execute(
                        "produce",
                        "--bootstrap-servers",
                        kafka.bootstrapServers(),
                        "--topic",
                        "big",
                        "--input",
                        input.toString());
        String said = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(said).isEqualTo(1);
        assertThat(said)
                .contains("produce: error: sending line 2 of " + input + " to big failed: ")
                .contains("max.request.size");
        assertThat(said.lines().filter(l -> l.contains("error:")).count()).isEqualTo(1);
    }

    private String run(String... args) {
        out.reset();
        assertThat(PiperCli.execute(args)).as(String.join(" ", args)).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void generateProduceStreamConsume() throws Exception {
        String b = kafka.bootstrapServers();
        Path clicks = tmp.resolve("clicks.tsv");
        run(
                "generate",
                "--click-model",
                "--rows",
                "50000",
                "--scale",
                "0.01",
                "--bad-rate",
                "0.001",
                "--output",
                clicks.toString());
        assertThat(
                        run(
                                "produce",
                                "--bootstrap-servers",
                                b,
                                "--topic",
                                "clicks",
                                "--partitions",
                                "2",
                                "--input",
                                clicks.toString()))
                .contains("produce: 50,000 lines");
        assertThat(
                        run(
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
                                tmp.resolve("ckpt").toString(),
                                "--checkpoint-interval",
                                "1s",
                                "--until-idle",
                                "2"))
                .contains("stream: 50,000 input records consumed")
                .contains("; savepoint ");
        Path result = tmp.resolve("out");
        String consumed =
                run(
                        "consume",
                        "--bootstrap-servers",
                        b,
                        "--topic",
                        "rows",
                        "--vocab-topic",
                        "vocab",
                        "--dead-letter-topic",
                        "rows-dead-letters",
                        "--output",
                        result.toString(),
                        "--timeout",
                        "2");

        long rows = Files.size(result.resolve("rows.bin")) / 160;
        long dead = Files.readAllLines(result.resolve("dead-letters.jsonl")).size();
        assertThat(rows + dead).isEqualTo(50_000);
        assertThat(dead).isPositive();
        assertThat(consumed).contains(String.format("consume: %,d rows", rows));
        for (int c = 1; c <= 26; c++) {
            assertThat(result.resolve("vocab/C" + c + ".tsv")).isNotEmptyFile();
        }
    }

    /** The built-in spec renamed to {@code name}, reading {@code topic}, at {@code version}. */
    private static String spec(String name, String topic, int version) {
        String builtin = new String(SpecParser.builtinText(), StandardCharsets.UTF_8);
        return builtin.replace("\"name\": \"dlrm-criteo\"", "\"name\": \"" + name + "\"")
                .replace("\"version\": 1", "\"version\": " + version)
                .replace(
                        "\"format\": \"criteo-tsv\"",
                        "\"format\": \"criteo-tsv\", \"topic\": \"" + topic + "\"");
    }

    /**
     * The README's "Changing the pipeline while it runs" and "Several pipelines in one job" through
     * the command line: two pipelines in one stream with a control topic; a spec for one of them
     * published with {@code spec publish --wait} while the stream runs; then more input. Each
     * pipeline's output reads back consistent, and only the switched one has two versions.
     */
    @Test
    void twoPipelinesAndASpecPublishedWhileTheyRun() throws Exception {
        String b = kafka.bootstrapServers();
        Path eu = Files.writeString(tmp.resolve("eu.json"), spec("eu", "clicks-eu", 1));
        Path us = Files.writeString(tmp.resolve("us.json"), spec("us", "clicks-us", 1));
        Path v2 =
                Files.writeString(
                        tmp.resolve("eu-v2.json"),
                        spec("eu", "clicks-eu", 2)
                                .replace(
                                        "\"C1..C26\": [\"decode\", \"fill_missing\", \"hex2int\","
                                                + " \"vocab\"]",
                                        "\"C1..C26\": [\"decode\", \"fill_missing\", \"hex2int\","
                                                + " {\"op\": \"modulus\", \"m\": 1000}, \"vocab\"]"));
        assertThat(run("spec", "validate", v2.toString())).contains("valid");
        for (String region : new String[] {"eu", "us"}) {
            for (String half : new String[] {"1", "2"}) {
                Path input = tmp.resolve(region + half + ".tsv");
                run(
                        "generate",
                        "--rows",
                        "20000",
                        "--scale",
                        "0.01",
                        "--seed",
                        (region.equals("eu") ? "1" : "2") + half,
                        "--output",
                        input.toString());
            }
            run(
                    "produce",
                    "--bootstrap-servers",
                    b,
                    "--topic",
                    "clicks-" + region,
                    "--partitions",
                    "1",
                    "--input",
                    tmp.resolve(region + "1.tsv").toString());
        }
        CompletableFuture<Integer> stream =
                CompletableFuture.supplyAsync(
                        () ->
                                PiperCli.execute(
                                        "stream",
                                        "--bootstrap-servers",
                                        b,
                                        "--pipeline",
                                        eu.toString(),
                                        "--pipeline",
                                        us.toString(),
                                        "--output-topic",
                                        "{pipeline}-rows",
                                        "--vocab-topic",
                                        "{pipeline}-vocab",
                                        "--control-topic",
                                        "ctl",
                                        "--checkpoint-dir",
                                        tmp.resolve("ckpt").toString(),
                                        "--checkpoint-interval",
                                        "1s",
                                        "--until-idle",
                                        "20"));
        // The control topic exists once the stream has prepared its topics.
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!kafka.admin().listTopics().names().get().contains("ctl-status")) {
            assertThat(System.nanoTime()).as("ctl-status created").isLessThan(deadline);
            assertThat(stream).isNotDone();
        }
        // The first half's rows committed first, so that the switch falls after them.
        while (committedRows("eu-rows") < 20_000) {
            assertThat(System.nanoTime()).as("the first half's rows").isLessThan(deadline);
        }
        CompletableFuture<Integer> publish =
                CompletableFuture.supplyAsync(
                        () ->
                                PiperCli.execute(
                                        "spec",
                                        "publish",
                                        "--bootstrap-servers",
                                        b,
                                        "--topic",
                                        "ctl",
                                        "--wait",
                                        v2.toString()));
        while (kafka.readCommitted("ctl-status").stream()
                .noneMatch(r -> new String(r.value()).contains("\"accepted\""))) {
            assertThat(System.nanoTime()).as("the spec accepted").isLessThan(deadline);
        }
        // Not run(): that would clear the output the publish and the stream print meanwhile.
        for (String region : new String[] {"eu", "us"}) {
            assertThat(
                            PiperCli.execute(
                                    "produce",
                                    "--bootstrap-servers",
                                    b,
                                    "--topic",
                                    "clicks-" + region,
                                    "--input",
                                    tmp.resolve(region + "2.tsv").toString()))
                    .isZero();
        }
        assertThat(publish.get(2, TimeUnit.MINUTES)).isZero();
        assertThat(stream.get(3, TimeUnit.MINUTES)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("accepted after")
                .contains("first rows under eu/2 committed after")
                .contains("stream: 80,000 input records consumed");

        for (String region : new String[] {"eu", "us"}) {
            Path result = tmp.resolve("out-" + region);
            run(
                    "consume",
                    "--bootstrap-servers",
                    b,
                    "--topic",
                    region + "-rows",
                    "--vocab-topic",
                    region + "-vocab",
                    "--output",
                    result.toString(),
                    "--timeout",
                    "2");
            assertThat(Files.size(result.resolve("rows.bin")) / 160).isEqualTo(40_000);
            List<String> versions = Files.readAllLines(result.resolve("versions.tsv"));
            if (region.equals("eu")) {
                assertThat(versions).hasSize(3);
                assertThat(versions.get(1)).contains("\teu/1\t");
                assertThat(versions.get(2)).contains("\teu/2\t");
                assertThat(result.resolve("vocab/C26.epoch1.tsv")).isNotEmptyFile();
            } else {
                assertThat(versions).hasSize(2);
                assertThat(versions.get(1)).contains("\tus/1\t");
            }
        }
    }

    private long committedRows(String topic) throws Exception {
        if (!kafka.admin().listTopics().names().get().contains(topic)) {
            return 0;
        }
        long rows = 0;
        for (var r : kafka.readCommitted(topic)) {
            rows += Integer.parseInt(new String(r.headers().lastHeader("piper.rows").value()));
        }
        return rows;
    }
}
