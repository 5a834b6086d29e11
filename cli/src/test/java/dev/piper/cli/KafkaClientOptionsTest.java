package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Kafka client settings from options and properties files (a ConfigMap and a Secret, say). */
class KafkaClientOptionsTest {

    @TempDir Path tmp;

    @Command(name = "kafka-test")
    static final class Holder {
        @Mixin KafkaClientOptions kafka;
    }

    private static CommandLine parse(Holder holder, String... args) {
        CommandLine cmd = new CommandLine(holder);
        cmd.parseArgs(args);
        return cmd;
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
        Holder h = new Holder();
        CommandLine cmd =
                parse(
                        h,
                        "--kafka-properties",
                        config.toString(),
                        "--kafka-properties",
                        secret.toString(),
                        "--kafka-property",
                        "sasl.mechanism=SCRAM-SHA-512");
        assertThat(h.kafka.bootstrapServers(cmd)).isEqualTo("kafka:9093");
        assertThat(h.kafka.clientProperties(cmd))
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
        Holder h = new Holder();
        CommandLine cmd =
                parse(
                        h,
                        "--bootstrap-servers",
                        "127.0.0.1:9092",
                        "--kafka-properties",
                        config.toString());
        assertThat(h.kafka.bootstrapServers(cmd)).isEqualTo("127.0.0.1:9092");

        Holder none = new Holder();
        CommandLine bare = parse(none, "--kafka-property", "acks=all");
        assertThatThrownBy(() -> none.kafka.bootstrapServers(bare))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining(
                        "'--bootstrap-servers=B' (or bootstrap.servers in --kafka-properties)");
    }
}
