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
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            code =
                    PiperCli.execute(
                            "bench",
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
        } finally {
            System.setOut(saved);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(printed).isZero();
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
        Properties props = new Properties();
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .noneMatch(t -> t.startsWith("piper-bench-join-"));
        }
    }
}
