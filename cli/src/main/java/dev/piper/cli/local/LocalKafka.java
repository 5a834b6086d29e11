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
        return start(port, controllerPort, heap, timeout, log, null);
    }

    /**
     * A secured broker's settings: its client listener is SASL_SSL with SCRAM-SHA-512 users and
     * certificates from a PKCS12 key store, and an ACL authorizer denies what no ACL allows; the
     * controller listener stays PLAINTEXT on loopback (its principal, ANONYMOUS, is a super user so
     * that the broker half can talk to the controller half of this one combined node).
     *
     * @param keyStore the broker's key pair and certificate (PKCS12)
     * @param trustStore the certificates the broker trusts as a client of itself (PKCS12)
     * @param storePassword the password of both stores and of the key
     * @param users SCRAM users and their passwords, created with the storage; the first is the
     *     super user the broker talks to itself as, and the one {@link #start} waits as
     */
    public record Security(
            Path keyStore, Path trustStore, String storePassword, Map<String, String> users) {

        public Security {
            if (users.isEmpty()) {
                throw new IllegalArgumentException("a secured broker needs a super user");
            }
            users = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(users));
        }

        String admin() {
            return users.keySet().iterator().next();
        }

        /** The client properties of {@code user}: SASL_SSL, SCRAM-SHA-512, the trust store. */
        public Map<String, String> client(String user, String password) {
            Map<String, String> c = new java.util.LinkedHashMap<>();
            c.put("security.protocol", "SASL_SSL");
            c.put("sasl.mechanism", "SCRAM-SHA-512");
            c.put("sasl.jaas.config", jaas(user, password));
            c.put("ssl.truststore.location", trustStore.toString());
            c.put("ssl.truststore.type", "PKCS12");
            c.put("ssl.truststore.password", storePassword);
            return c;
        }

        private static String jaas(String user, String password) {
            return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                    + user
                    + "\" password=\""
                    + password
                    + "\";";
        }

        void addTo(Properties p, int port, int controllerPort) {
            p.setProperty(
                    "listeners",
                    "SASL_SSL://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.setProperty("advertised.listeners", "SASL_SSL://127.0.0.1:" + port);
            p.setProperty(
                    "listener.security.protocol.map", "CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL");
            p.setProperty("inter.broker.listener.name", "SASL_SSL");
            p.setProperty("sasl.enabled.mechanisms", "SCRAM-SHA-512");
            p.setProperty("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
            p.setProperty(
                    "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                    jaas(admin(), users.get(admin())));
            p.setProperty("ssl.keystore.location", keyStore.toString());
            p.setProperty("ssl.keystore.type", "PKCS12");
            p.setProperty("ssl.keystore.password", storePassword);
            p.setProperty("ssl.key.password", storePassword);
            p.setProperty("ssl.truststore.location", trustStore.toString());
            p.setProperty("ssl.truststore.type", "PKCS12");
            p.setProperty("ssl.truststore.password", storePassword);
            p.setProperty(
                    "authorizer.class.name",
                    "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            p.setProperty("super.users", "User:" + admin() + ";User:ANONYMOUS");
            p.setProperty("allow.everyone.if.no.acl.found", "false");
        }

        /** {@code kafka-storage format}'s arguments creating the SCRAM users. */
        List<String> formatArgs() {
            List<String> args = new java.util.ArrayList<>();
            users.forEach(
                    (user, password) -> {
                        args.add("--add-scram");
                        args.add("SCRAM-SHA-512=[name=" + user + ",password=" + password + "]");
                    });
            return args;
        }
    }

    /**
     * As {@link #start(int, int, String, Duration, PrintStream)}, secured as {@code security} says
     * (null: a PLAINTEXT listener). The stores are referenced, not copied; the broker's files hold
     * the passwords (its config and storage are the operator's to protect).
     */
    public Running start(
            int port,
            int controllerPort,
            String heap,
            Duration timeout,
            PrintStream log,
            Security security)
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
        Files.writeString(server, serverProperties(port, controllerPort, data, security));
        Path log4j = config.resolve("log4j2.properties");
        Files.writeString(log4j, log4jProperties(logs.resolve("server.log")));

        if (!Files.exists(data.resolve("meta.properties"))) {
            format(classpath, log4j, server, data, logs, timeout, log, security);
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
            awaitReady(
                    process,
                    bootstrap,
                    security == null
                            ? Map.of()
                            : security.client(
                                    security.admin(), security.users().get(security.admin())),
                    timeout);
        } catch (IllegalStateException e) {
            process.destroyForcibly();
            Files.deleteIfExists(dir.resolve("kafka.pid"));
            throw e;
        }
        Files.writeString(dir.resolve("bootstrap"), bootstrap + "\n");
        return new Running(pid, bootstrap);
    }

    /** Formats the broker's storage in {@code data} (KRaft: a new cluster id). */
    private static void format(
            String classpath,
            Path log4j,
            Path server,
            Path data,
            Path logs,
            Duration timeout,
            PrintStream log,
            Security security)
            throws IOException, InterruptedException {
        log.println("kafka: formatting " + data);
        List<String> format =
                new java.util.ArrayList<>(
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
                                server.toString()));
        if (security != null) {
            format.addAll(security.formatArgs());
        }
        LocalProcess.runToCompletion(
                "formatting the broker's storage", format, logs.resolve("format.out"), timeout);
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

    private void awaitReady(
            Process process, String bootstrap, Map<String, String> client, Duration timeout)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Object> conf = new java.util.HashMap<>(client);
        conf.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        conf.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
        conf.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000);
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
        return serverProperties(port, controllerPort, data, null);
    }

    static String serverProperties(int port, int controllerPort, Path data, Security security) {
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
        if (security != null) {
            security.addTo(p, port, controllerPort);
        }
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
