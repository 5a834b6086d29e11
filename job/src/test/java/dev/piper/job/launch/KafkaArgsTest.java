package dev.piper.job.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka client settings from options and properties files (a ConfigMap and a Secret, say). */
class KafkaArgsTest {

    @TempDir Path tmp;

    private static JobArgs parse(String... args) {
        return JobArgs.parse(KafkaArgs.OPTIONS, List.of(args));
    }

    @Test
    void laterFilesWinAndSinglePropertiesWinOverFiles() throws Exception {
        Path config =
                Files.writeString(
                        tmp.resolve("client.properties"),
                        "bootstrap.servers=kafka:9093\nsecurity.protocol=SASL_SSL\nacks=1\n");
        Path secret =
                Files.writeString(
                        tmp.resolve("credentials.properties"), "acks=all\nsasl.mechanism=PLAIN\n");
        JobArgs args =
                parse(
                        "--kafka-properties",
                        config.toString(),
                        "--kafka-properties",
                        secret.toString(),
                        "--kafka-property",
                        "sasl.mechanism=SCRAM-SHA-512");
        assertThat(KafkaArgs.bootstrapServers(args)).isEqualTo("kafka:9093");
        assertThat(KafkaArgs.clientProperties(args))
                .containsAllEntriesOf(
                        Map.of(
                                "security.protocol", "SASL_SSL",
                                "acks", "all",
                                "sasl.mechanism", "SCRAM-SHA-512"));
    }

    @Test
    void theOptionWinsOverTheFilesBootstrapServersAndOneOfThemIsRequired() throws Exception {
        Path config =
                Files.writeString(tmp.resolve("c.properties"), "bootstrap.servers=kafka:9093\n");
        JobArgs args =
                parse("--bootstrap-servers", "127.0.0.1:9092", "--kafka-properties", config + "");
        assertThat(KafkaArgs.bootstrapServers(args)).isEqualTo("127.0.0.1:9092");

        JobArgs none = parse("--kafka-property", "acks=all");
        assertThatThrownBy(() -> KafkaArgs.bootstrapServers(none))
                .isInstanceOf(JobArgumentException.class)
                .hasMessageContaining(
                        "'--bootstrap-servers=B' (or bootstrap.servers in --kafka-properties)");
    }

    @Test
    void anUnreadableFileOrAPropertyWithoutItsValueIsNamed() {
        JobArgs missing = parse("--kafka-properties", tmp.resolve("absent.properties") + "");
        assertThatThrownBy(() -> KafkaArgs.clientProperties(missing))
                .hasMessageStartingWith("--kafka-properties: cannot read ")
                .hasMessageContaining("absent.properties");
        JobArgs bare = parse("--kafka-property", "acks");
        assertThatThrownBy(() -> KafkaArgs.clientProperties(bare))
                .hasMessage(
                        "Value for option '--kafka-property' should be in KEY=VALUE format but"
                                + " was acks");
    }
}
