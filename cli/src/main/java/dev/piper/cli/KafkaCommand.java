package dev.piper.cli;

import dev.piper.cli.local.LocalKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code piper kafka start|stop|status}: a local single-node broker for trying the feed. */
@Command(
        name = "kafka",
        mixinStandardHelpOptions = true,
        description = {
            "Run a real single-node Kafka broker (KRaft) on 127.0.0.1 from Apache Kafka's jars, with"
                    + " its data, logs and PID under --dir."
        },
        subcommands = {
            KafkaCommand.Start.class,
            KafkaCommand.Stop.class,
            KafkaCommand.Status.class
        })
final class KafkaCommand extends LocalServiceCommands.Group {

    /** The {@code --dir} of every broker subcommand, and the broker it names. */
    static final class BrokerDir {
        @Option(
                names = "--dir",
                required = true,
                paramLabel = "D",
                description = "Directory of the broker's config, data, logs and PID.")
        Path dir;

        LocalKafka open() {
            return new LocalKafka(dir, LocalKafka.classpathFile(PiperHome.get()));
        }
    }

    /** {@code piper kafka start}. */
    @Command(
            name = "start",
            mixinStandardHelpOptions = true,
            description = {
                "Start a broker and return once it answers; the last line printed is its bootstrap"
                        + " address. Data in --dir survives stop and start."
            })
    static final class Start implements Callable<Integer> {

        @Spec CommandSpec spec;

        @Mixin BrokerDir broker;

        @Option(
                names = "--port",
                defaultValue = "9092",
                paramLabel = "P",
                description = "Client port on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
        int port;

        @Option(
                names = "--controller-port",
                paramLabel = "C",
                description = "KRaft controller port on 127.0.0.1 (default: --port + 1).")
        Integer controllerPort;

        @Option(
                names = "--heap",
                defaultValue = "512m",
                paramLabel = "SIZE",
                description = "The broker JVM's heap (default: ${DEFAULT-VALUE}).")
        String heap;

        @Option(
                names = "--timeout",
                defaultValue = "90",
                paramLabel = "S",
                description =
                        "Seconds to wait for the broker to answer (default: ${DEFAULT-VALUE}).")
        int timeoutSeconds;

        @Override
        public Integer call() throws Exception {
            int controller = controllerPort == null ? port + 1 : controllerPort;
            LocalServiceCommands.checkPorts(spec, port, controller, "--controller-port");
            LocalServiceCommands.checkSize(spec, "--heap", heap, "[0-9]+[kKmMgG]?", "512m");
            LocalKafka.Running running;
            try {
                running =
                        broker.open()
                                .start(
                                        port,
                                        controller,
                                        heap,
                                        Duration.ofSeconds(timeoutSeconds),
                                        System.err);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            spec.commandLine()
                    .getOut()
                    .printf(
                            "kafka: running, pid %d, logs in %s%n%s%n",
                            running.pid(),
                            broker.dir.toAbsolutePath().resolve("logs"),
                            running.bootstrap());
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    /** {@code piper kafka stop}. */
    @Command(
            name = "stop",
            mixinStandardHelpOptions = true,
            description =
                    "Stop the broker running from --dir (SIGTERM, then SIGKILL after --timeout).")
    static final class Stop extends LocalServiceCommands.Stop {

        @Mixin BrokerDir broker;

        @Override
        String service() {
            return "kafka";
        }

        @Override
        String noun() {
            return "broker";
        }

        @Override
        Path dir() {
            return broker.dir;
        }

        @Override
        boolean stop(Duration timeout) throws Exception {
            return broker.open().stop(timeout);
        }
    }

    /** {@code piper kafka status}: exit 0 when running, 3 when not (as LSB init scripts do). */
    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description = "Say whether a broker runs from --dir; exit code 0 if it does, 3 if not.")
    static final class Status extends LocalServiceCommands.Status<LocalKafka.Running> {

        @Mixin BrokerDir broker;

        @Override
        String service() {
            return "kafka";
        }

        @Override
        Path dir() {
            return broker.dir;
        }

        @Override
        Optional<LocalKafka.Running> status() throws Exception {
            return broker.open().status();
        }

        @Override
        String describe(LocalKafka.Running running) {
            return "pid " + running.pid() + "\n" + running.bootstrap();
        }
    }
}
