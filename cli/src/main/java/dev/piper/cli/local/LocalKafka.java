package dev.piper.cli.local;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A single-node Kafka broker (KRaft, broker and controller in one process) on 127.0.0.1, run in its
 * own JVM from Apache Kafka's jars on Maven Central, with everything it owns under one directory:
 *
 * <pre>
 * DIR/config/server.properties, log4j2.properties   written on every start
 * DIR/data/                                          the log directory, formatted on first start
 * DIR/logs/server.log                                the broker's log
 * DIR/kafka.pid, DIR/bootstrap                       while it runs: its process id, its address
 * </pre>
 *
 * The data survives {@link #stop}: starting again from the same directory serves the same topics.
 * The classpath is the one the build writes to {@code kafka-local/target/kafka-classpath.txt}.
 */
public final class LocalKafka {

    private final Path dir;
    private final Path classpathFile;

    public LocalKafka(Path dir, Path classpathFile) {
        this.dir = dir.toAbsolutePath();
        this.classpathFile = classpathFile;
    }

    /** The classpath file of a built checkout at {@code home}. */
    public static Path classpathFile(Path home) {
        return home.resolve("kafka-local/target/kafka-classpath.txt");
    }

    /** A running broker: its process id and bootstrap address. */
    public record Running(long pid, String bootstrap) {}

    /** The broker running from this directory, if any. */
    public Optional<Running> status() throws IOException {
        Optional<ProcessHandle> process =
                LocalProcess.running(dir.resolve("kafka.pid"), ownerMark());
        if (process.isEmpty()) {
            return Optional.empty();
        }
        long pid = process.get().pid();
        Path bootstrap = dir.resolve("bootstrap");
        String address = Files.exists(bootstrap) ? Files.readString(bootstrap).trim() : "?";
        return Optional.of(new Running(pid, address));
    }

    /**
     * Starts the broker and returns once it answers on {@code port}.
     *
     * @throws IllegalStateException if a broker already runs from the directory, a port is taken,
     *     or the broker does not come up within {@code timeout} (the message quotes its log)
     */
    public Running start(
            int port, int controllerPort, String heap, Duration timeout, PrintStream log)
            throws IOException, InterruptedException {
        Optional<Running> running = status();
        if (running.isPresent()) {
            throw new IllegalStateException(
                    "a broker already runs from "
                            + dir
                            + " (pid "
                            + running.get().pid()
                            + ", "
                            + running.get().bootstrap()
                            + "); stop it first");
        }
        LocalProcess.checkFree(port, "--port");
        LocalProcess.checkFree(controllerPort, "--controller-port");
        String classpath = LocalProcess.classpath(classpathFile, "broker's");
        Path config = Files.createDirectories(dir.resolve("config"));
        Path data = Files.createDirectories(dir.resolve("data"));
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Path server = config.resolve("server.properties");
        Files.writeString(server, serverProperties(port, controllerPort, data));
        Path log4j = config.resolve("log4j2.properties");
        Files.writeString(log4j, log4jProperties(logs.resolve("server.log")));

        if (!Files.exists(data.resolve("meta.properties"))) {
            log.println("kafka: formatting " + data);
            LocalProcess.runToCompletion(
                    "formatting the broker's storage",
                    List.of(
                            LocalProcess.java(),
                            "-cp",
                            classpath,
                            "-Dlog4j2.configurationFile=" + log4j,
                            "kafka.tools.StorageTool",
                            "format",
                            "-t",
                            Uuid.randomUuid().toString(),
                            "-c",
                            server.toString()),
                    logs.resolve("format.out"),
                    timeout);
        }

        Process process =
                LocalProcess.startDetached(
                        List.of(
                                LocalProcess.java(),
                                ownerMark(),
                                "-Xmx" + heap,
                                "-Xms" + heap,
                                "-cp",
                                classpath,
                                "-Dlog4j2.configurationFile=" + log4j,
                                "kafka.Kafka",
                                server.toString()),
                        logs.resolve("kafka.out"),
                        dir.resolve("kafka.pid"));
        long pid = process.pid();
        String bootstrap = "127.0.0.1:" + port;
        log.println("kafka: started pid " + pid + ", waiting for " + bootstrap);
        try {
            awaitReady(process, bootstrap, timeout);
        } catch (IllegalStateException e) {
            process.destroyForcibly();
            Files.deleteIfExists(dir.resolve("kafka.pid"));
            throw e;
        }
        Files.writeString(dir.resolve("bootstrap"), bootstrap + "\n");
        return new Running(pid, bootstrap);
    }

    /**
     * Stops the broker (SIGTERM, then SIGKILL after {@code timeout}); returns false if none ran.
     */
    public boolean stop(Duration timeout) throws IOException, InterruptedException {
        Optional<Running> running = status();
        Files.deleteIfExists(dir.resolve("bootstrap"));
        if (running.isEmpty()) {
            Files.deleteIfExists(dir.resolve("kafka.pid"));
            return false;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(running.get().pid());
        if (handle.isPresent()) {
            LocalProcess.stop(handle.get(), timeout);
        }
        Files.deleteIfExists(dir.resolve("kafka.pid"));
        return true;
    }

    private void awaitReady(Process process, String bootstrap, Duration timeout)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Object> conf =
                Map.of(
                        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000);
        try (Admin admin = Admin.create(conf)) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(
                            "the broker exited with code "
                                    + process.exitValue()
                                    + "; its log ends with:\n"
                                    + LocalProcess.tail(dir.resolve("logs/server.log"), 15));
                }
                try {
                    if (!admin.describeCluster().nodes().get(3, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (java.util.concurrent.ExecutionException
                        | java.util.concurrent.TimeoutException e) {
                    // not up yet
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "the broker did not answer on "
                                    + bootstrap
                                    + " within "
                                    + timeout.toSeconds()
                                    + " s; its log ends with:\n"
                                    + LocalProcess.tail(dir.resolve("logs/server.log"), 15));
                }
                Thread.sleep(200); // polling a remote process; there is no event to wait on
            }
        }
    }

    /** The broker's first JVM argument, naming the directory it belongs to. */
    private String ownerMark() {
        return "-Dpiper.kafka.dir=" + dir;
    }

    static String serverProperties(int port, int controllerPort, Path data) {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.setProperty(
                "listeners",
                "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("log.dirs", data.toString());
        p.setProperty("num.partitions", "1");
        // One node: every internal topic has one replica, so transactions work.
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("share.coordinator.state.topic.replication.factor", "1");
        p.setProperty("share.coordinator.state.topic.min.isr", "1");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        StringBuilder sb = new StringBuilder("# written by bin/piper kafka start\n");
        p.stringPropertyNames().stream()
                .sorted()
                .forEach(k -> sb.append(k).append('=').append(p.getProperty(k)).append('\n'));
        return sb.toString();
    }

    private static String log4jProperties(Path file) {
        return String.join(
                "\n",
                "status = warn",
                "appender.file.type = File",
                "appender.file.name = file",
                "appender.file.fileName = " + file,
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = [%d] %p %m (%c)%n",
                "rootLogger.level = info",
                "rootLogger.appenderRef.file.ref = file",
                "");
    }
}
