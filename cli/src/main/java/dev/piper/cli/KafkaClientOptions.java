package dev.piper.cli;

import dev.piper.connectors.kafka.BrokerCheck;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The Kafka connection options every Kafka subcommand shares: bootstrap servers and any client
 * property (security, timeouts, ...), from a properties file and from the command line.
 */
final class KafkaClientOptions {

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "B",
            description =
                    "Kafka bootstrap servers, host:port[,host:port...] (default: bootstrap.servers"
                            + " of --kafka-properties).")
    String bootstrapOption;

    @Option(
            names = "--kafka-properties",
            paramLabel = "FILE",
            description =
                    "A Java properties file of Kafka client properties, e.g. the"
                            + " security.protocol, sasl.* and ssl.* settings of a secured"
                            + " cluster (repeatable: later files win; a Kubernetes ConfigMap and"
                            + " Secret can each be one).")
    List<Path> propertiesFiles = new ArrayList<>();

    @Option(
            names = "--kafka-property",
            paramLabel = "K=V",
            description =
                    "A Kafka client property, e.g. security.protocol=SASL_SSL (repeatable; wins"
                            + " over --kafka-properties).")
    Map<String, String> properties = new LinkedHashMap<>();

    /**
     * {@code --bootstrap-servers}, or else {@code bootstrap.servers} of the client properties.
     *
     * @throws ParameterException if neither gives it
     */
    String bootstrapServers(CommandLine cmd) {
        if (bootstrapOption != null) {
            return bootstrapOption;
        }
        String fromProperties = clientProperties(cmd).get("bootstrap.servers");
        if (fromProperties == null || fromProperties.isBlank()) {
            throw new ParameterException(
                    cmd,
                    "Missing required option: '--bootstrap-servers=B' (or bootstrap.servers in"
                            + " --kafka-properties)");
        }
        return fromProperties;
    }

    /** How long a command waits for a broker to answer before it says so. */
    static final java.time.Duration BROKER_WAIT = java.time.Duration.ofSeconds(10);

    /**
     * {@link #clientProperties}, once a broker at {@link #bootstrapServers} has answered: a command
     * that talks to Kafka fails within {@link #BROKER_WAIT}, naming the address and the cause,
     * rather than after its client's own timeouts (a minute for a producer's delivery).
     */
    Map<String, String> connect(CommandLine cmd) {
        Map<String, String> client = clientProperties(cmd);
        BrokerCheck.answers(bootstrapServers(cmd), client, BROKER_WAIT);
        return client;
    }

    /** The file's properties, then the command line's. */
    Map<String, String> clientProperties(CommandLine cmd) {
        Map<String, String> all = new LinkedHashMap<>();
        for (Path propertiesFile : propertiesFiles) {
            Properties file = new Properties();
            try (Reader in = Files.newBufferedReader(propertiesFile, StandardCharsets.UTF_8)) {
                file.load(in);
            } catch (IOException | IllegalArgumentException e) {
                throw new ParameterException(
                        cmd,
                        "--kafka-properties: cannot read "
                                + propertiesFile
                                + ": "
                                + e.getMessage());
            }
            for (String name : file.stringPropertyNames()) {
                all.put(name, file.getProperty(name));
            }
        }
        all.putAll(properties);
        return all;
    }
}
