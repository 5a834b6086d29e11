package dev.piper.job.launch;

import dev.piper.feed.BrokerCheck;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import dev.piper.job.args.JobOption;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The Kafka connection options every command that talks to Kafka shares: bootstrap servers and any
 * client property (security, timeouts, ...), from properties files and from the arguments.
 */
public final class KafkaArgs {

    static final String BOOTSTRAP_SERVERS = "--bootstrap-servers";
    static final String PROPERTIES_FILE = "--kafka-properties";
    static final String PROPERTY = "--kafka-property";

    public static final List<JobOption> OPTIONS =
            List.of(
                    JobOption.value(
                            BOOTSTRAP_SERVERS,
                            "B",
                            "Kafka bootstrap servers, host:port[,host:port...] (default:"
                                    + " bootstrap.servers of --kafka-properties)."),
                    JobOption.repeatable(
                            PROPERTIES_FILE,
                            "FILE",
                            "A Java properties file of Kafka client properties, e.g. the"
                                    + " security.protocol, sasl.* and ssl.* settings of a secured"
                                    + " cluster (repeatable: later files win; a Kubernetes"
                                    + " ConfigMap and Secret can each be one)."),
                    JobOption.repeatable(
                            PROPERTY,
                            "K=V",
                            "A Kafka client property, e.g. security.protocol=SASL_SSL"
                                    + " (repeatable; wins over --kafka-properties)."));

    /** How long a command waits for a broker to answer before it says so. */
    public static final Duration BROKER_WAIT = Duration.ofSeconds(10);

    private KafkaArgs() {}

    /**
     * {@code --bootstrap-servers}, or else {@code bootstrap.servers} of the client properties.
     *
     * @throws JobArgumentException if neither gives it
     */
    public static String bootstrapServers(JobArgs args) {
        String given = args.string(BOOTSTRAP_SERVERS);
        if (given != null) {
            return given;
        }
        String fromProperties = clientProperties(args).get("bootstrap.servers");
        if (fromProperties == null || fromProperties.isBlank()) {
            throw new JobArgumentException(
                    "Missing required option: '--bootstrap-servers=B' (or bootstrap.servers in"
                            + " --kafka-properties)");
        }
        return fromProperties;
    }

    /**
     * {@link #clientProperties}, once a broker at {@link #bootstrapServers} has answered: a command
     * that talks to Kafka fails within {@link #BROKER_WAIT}, naming the address and the cause,
     * rather than after its client's own timeouts (a minute for a producer's delivery).
     */
    public static Map<String, String> connect(JobArgs args) {
        Map<String, String> client = clientProperties(args);
        BrokerCheck.answers(bootstrapServers(args), client, BROKER_WAIT);
        return client;
    }

    /** The files' properties, in order, then the arguments'. */
    public static Map<String, String> clientProperties(JobArgs args) {
        Map<String, String> all = new LinkedHashMap<>();
        for (Path propertiesFile : args.paths(PROPERTIES_FILE)) {
            Properties file = new Properties();
            try (Reader in = Files.newBufferedReader(propertiesFile, StandardCharsets.UTF_8)) {
                file.load(in);
            } catch (IOException | IllegalArgumentException e) {
                throw JobArgumentException.of(
                        PROPERTIES_FILE, "cannot read " + propertiesFile + ": " + e.getMessage());
            }
            for (String name : file.stringPropertyNames()) {
                all.put(name, file.getProperty(name));
            }
        }
        all.putAll(args.keyValues(PROPERTY));
        return all;
    }
}
