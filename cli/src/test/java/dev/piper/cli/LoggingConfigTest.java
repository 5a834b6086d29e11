package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.cli.local.LocalFlinkCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40: every recovery printed {@code ERROR ... producer is already fenced ... most likely
 * signals data loss} on the terminal of {@code bin/piper stream}, although nothing was lost. With
 * {@code conf/log4j2-cli.properties} that message of Flink's Kafka committer goes to the log file
 * at INFO; its other errors, and everyone else's, still reach the terminal.
 */
class LoggingConfigTest {

    private static final String COMMITTER =
            "org.apache.flink.connector.kafka.sink.internal.KafkaCommitter";

    @TempDir Path tmp;

    @Test
    void aFencedCommitOnRecoveryIsInfoInTheFileAndOtherErrorsStayErrors() throws Exception {
        Path config = Path.of(System.getProperty("piper.home"), "conf", "log4j2-cli.properties");
        String terminal = logThrough(config, "piper.log.file");
        assertThat(terminal)
                .doesNotContain("already fenced")
                .contains("encountered error and data has been potentially lost")
                .contains("a failure of piper's own")
                .doesNotContain("chatter");
    }

    /**
     * An error logged with its exception (Flink's {@code LocalExecutor} when the embedded cluster
     * cannot run a job) put a hundred-line stack trace on the terminal above piper's own one-line
     * error. The terminal gets one line with the exception's message and the log file's path; the
     * file keeps the trace.
     */
    @Test
    void anErrorsStackTraceGoesToTheFileAndTheTerminalNamesIt() throws Exception {
        Path config = Path.of(System.getProperty("piper.home"), "conf", "log4j2-cli.properties");
        Path file = tmp.resolve("piper.log");
        String terminal =
                capture(
                        config,
                        "piper.log.file",
                        context ->
                                context.getLogger("org.apache.flink.client.deployment.executors")
                                        .error(
                                                "Failed to submit job graph",
                                                new IllegalStateException(
                                                        "Could not start the JobMaster",
                                                        new ClassNotFoundException(
                                                                "nonexistent"))));
        assertThat(terminal.lines())
                .singleElement()
                .asString()
                .contains("Failed to submit job graph")
                .contains("Could not start the JobMaster")
                .contains("the stack trace is in " + file);
        assertThat(Files.readString(file))
                .contains("Failed to submit job graph")
                .contains("\tat dev.piper.cli.LoggingConfigTest")
                .contains("Caused by: java.lang.ClassNotFoundException: nonexistent");
    }

    /** The same on a cluster that {@code piper cluster start} starts (its logs are files). */
    @Test
    void theLocalClustersLogsSayTheSame() throws Exception {
        Path config =
                Files.writeString(
                        tmp.resolve("log4j.properties"), LocalFlinkCluster.log4jProperties());
        logThrough(config, "log.file");
    }

    /**
     * Logs what a recovery logs through logging configuration {@code config} (its file named by
     * system property {@code fileProperty}), checks the file and returns what reached the terminal.
     */
    private String logThrough(Path config, String fileProperty) throws Exception {
        Path file = tmp.resolve("piper.log");
        String terminal =
                capture(
                        config,
                        fileProperty,
                        context -> {
                            Logger committer = context.getLogger(COMMITTER);
                            committer.error(
                                    "Unable to commit transaction (piper-rows-0-3) because its"
                                            + " producer is already fenced. This means that you"
                                            + " either have a different producer ...");
                            committer.error(
                                    "Transaction (piper-rows-0-4) encountered error and data has"
                                            + " been potentially lost.");
                            context.getLogger("dev.piper").error("a failure of piper's own");
                            context.getLogger("dev.piper").info("chatter");
                        });
        String committerName = COMMITTER.replace(".", "\\.");
        assertThat(Files.readString(file))
                .containsPattern(
                        "INFO +"
                                + committerName
                                + " .*- Unable to commit transaction \\(piper-rows-0-3\\) because"
                                + " its producer is already fenced")
                .containsPattern("ERROR +" + committerName + " .*- Transaction")
                .contains("a failure of piper's own")
                .contains("chatter");
        return terminal;
    }

    /**
     * Logs through configuration {@code config}, its file {@code piper.log} in the test's directory
     * (named by system property {@code fileProperty}); returns what reached the terminal.
     */
    private String capture(Path config, String fileProperty, Consumer<LoggerContext> logging) {
        ByteArrayOutputStream terminal = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setProperty(fileProperty, tmp.resolve("piper.log").toString());
        System.setErr(new PrintStream(terminal, true, StandardCharsets.UTF_8));
        try {
            LoggerContext context = Configurator.initialize("piper-test", null, config.toUri());
            logging.accept(context);
            Configurator.shutdown(context);
        } finally {
            System.setErr(err);
            System.clearProperty(fileProperty);
        }
        return terminal.toString(StandardCharsets.UTF_8);
    }
}
