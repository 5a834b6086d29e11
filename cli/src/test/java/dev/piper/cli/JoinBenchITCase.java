package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.feed.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code piper bench --join} against a real broker: generated impressions and clicks sent to their
 * topics, a cold {@code piper stream} process with the join and one without, their ratio printed
 * first and written, and the bench's topics gone at its end.
 */
class JoinBenchITCase {

    @TempDir static Path tmp;

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    @Test
    void aPairOfColdStreamsWithAndWithoutTheJoinGivesTheirRatio() throws Exception {
        Path json = tmp.resolve("join.json");
        String printed =
                bench(
                        "--join",
                        kafka.bootstrapServers(),
                        "--rows",
                        "10000",
                        "--repeat",
                        "1",
                        "--data-dir",
                        tmp.resolve("data").toString(),
                        "--json",
                        json.toString());
        JsonNode result = new ObjectMapper().readTree(json.toFile());
        assertThat(result.get("impressions").asLong()).isEqualTo(10_000);
        JsonNode pair = result.get("pairs").get(0);
        assertThat(result.get("pairs")).hasSize(1);
        // the rates are the impressions over each process's time to all input committed
        assertThat(pair.get("join_impressions_per_s").asDouble())
                .isCloseTo(10_000 / pair.get("join_committed_s").asDouble(), within(1e-6));
        assertThat(pair.get("plain_impressions_per_s").asDouble())
                .isCloseTo(10_000 / pair.get("plain_committed_s").asDouble(), within(1e-6));
        double ratio =
                pair.get("join_impressions_per_s").asDouble()
                        / pair.get("plain_impressions_per_s").asDouble();
        assertThat(pair.get("ratio").asDouble()).isCloseTo(ratio, within(1e-9));
        assertThat(result.get("median_ratio").asDouble()).isCloseTo(ratio, within(1e-9));
        assertThat(printed)
                .startsWith(
                        String.format("join: median ratio join/plain %.2f over 1 pairs", ratio));
        assertTheBenchTopicsAreGone();
    }

    /**
     * {@code --freshness}: the logs sent live, one cold stream, and every impression decided while
     * they flowed committed as a row no sooner than its decision could be made.
     */
    @Test
    void freshnessTimesEveryRowDecidedWhileTheImpressionsFlowLive() throws Exception {
        Path json = tmp.resolve("fresh.json");
        String printed =
                bench(
                        "--join",
                        kafka.bootstrapServers(),
                        "--freshness",
                        "1000",
                        "--freshness-window",
                        "1s",
                        "--freshness-warmup",
                        "4s",
                        "--checkpoint-interval",
                        "1s",
                        "--stream-arg=--join-lines=topic", // the lines read back from the topic
                        "--rows",
                        "6000",
                        "--data-dir",
                        tmp.resolve("data").toString(),
                        "--json",
                        json.toString());
        assertThat(printed).startsWith("join freshness: p99 ");
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.get("impressions_sent").asLong()).isEqualTo(6_000);
        assertThat(r.get("window_ms").asLong()).isEqualTo(1_000);
        assertThat(r.get("checkpoint_interval_ms").asLong()).isEqualTo(1_000);
        assertThat(r.get("target_s").asDouble()).isEqualTo(2.0);
        // 6 s of impressions, 3 s of window and bound: about 2 s of them are decided in flight,
        // and each one's row is committed (the generated impressions are all valid); those
        // decided in the first 4 s are left out of the figure
        JsonNode all = r.get("all");
        assertThat(r.get("rows_expected").asLong()).isBetween(1_000L, 3_000L);
        assertThat(all.get("rows").asLong()).isEqualTo(r.get("rows_expected").asLong());
        assertThat(r.get("steady").get("rows").asLong())
                .isPositive()
                .isLessThan(all.get("rows").asLong());
        // a row is decided once a record at least window + bound after it was sent: never sooner
        assertThat(all.get("min_s").asDouble()).isPositive();
        assertThat(all.get("p50_s").asDouble()).isLessThanOrEqualTo(all.get("p99_s").asDouble());
        assertThat(all.get("p99_s").asDouble()).isLessThanOrEqualTo(all.get("max_s").asDouble());
        assertThat(r.get("p99_s").asDouble()).isEqualTo(r.get("steady").get("p99_s").asDouble());
        // the split: a row is written after its decision and read committed after its write, and
        // the two parts' maxima bound the whole's
        JsonNode written = r.get("steady_written");
        JsonNode commitWait = r.get("steady_commit_wait");
        assertThat(written.get("p50_s").asDouble()).isPositive();
        assertThat(commitWait.get("p50_s").asDouble()).isNotNegative();
        assertThat(written.get("max_s").asDouble() + commitWait.get("max_s").asDouble())
                .isGreaterThanOrEqualTo(r.get("steady").get("max_s").asDouble() - 1e-9);
        assertThat(printed).contains("after the warm-up, split: written by the stream p50 ");
        assertTheBenchTopicsAreGone();
    }

    /** Runs {@code piper bench} with {@code args}: what it printed; it must exit with 0. */
    private static String bench(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            String[] command = new String[args.length + 1];
            command[0] = "bench";
            System.arraycopy(args, 0, command, 1, args.length);
            code = PiperCli.execute(command);
        } finally {
            System.setOut(saved);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(printed).isZero();
        return printed;
    }

    private static void assertTheBenchTopicsAreGone() throws Exception {
        Properties props = new Properties();
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .noneMatch(t -> t.startsWith("piper-bench-join-"));
        }
    }
}
