package dev.piper.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.job.kafka.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
