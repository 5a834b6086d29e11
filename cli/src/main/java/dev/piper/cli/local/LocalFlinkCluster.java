package dev.piper.cli.local;

import dev.piper.cli.cluster.FlinkRest;
import dev.piper.job.EmbeddedRunner;
import dev.piper.job.EmbeddedRunner.StateBackend;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;

/**
 * A real Flink 2.2.0 session cluster on 127.0.0.1, assembled from Flink's module jars on Maven
 * Central (there is no flink-dist there): one JobManager and one TaskManager (or more), each its
 * own JVM, with everything they own under one directory:
 *
 * <pre>
 * DIR/conf/config.yaml, log4j.properties     written on every start
 * DIR/log/jobmanager.log, taskmanager.log    the logs (*.out: the JVMs' stdout and stderr)
 * DIR/checkpoints/, DIR/savepoints/          default checkpoint storage (--checkpoint-storage)
 * DIR/tmp/, DIR/web-upload/                  working files and uploaded jars
 * DIR/jobmanager.pid, taskmanager.pid, rest  while it runs: process ids, the REST address
 *                                            (a second TaskManager: taskmanager-2.pid, .log)
 * </pre>
 *
 * The classpath is the one the build writes to {@code flink-local/target/flink-classpath.txt}.
 * Memory flags come from Flink's own {@code BashJavaUtils}, as its start scripts do.
 */
public final class LocalFlinkCluster {

    /** What {@code piper cluster start} may choose. */
    public record Settings(
            int restPort,
            int rpcPort,
            int slots,
            String jobManagerMemory,
            String taskManagerMemory,
            StateBackend stateBackend,
            Path checkpointStorage,
            int taskManagers,
            int metricsPort) {

        /**
         * The defaults: REST on 8081, RPC on 6123, one TaskManager of 2 slots, 1024m/1536m,
         * hashmap, DIR/.
         */
        public static Settings defaults() {
            return new Settings(
                    8081, 6123, 2, "1024m", "1536m", StateBackend.hashmap, null, 1, 9249);
        }

        /** These settings with other REST and RPC ports. */
        public Settings withPorts(int rest, int rpc) {
            return new Settings(
                    rest,
                    rpc,
                    slots,
                    jobManagerMemory,
                    taskManagerMemory,
                    stateBackend,
                    checkpointStorage,
                    taskManagers,
                    metricsPort);
        }

        /** These settings with {@code n} TaskManagers of {@code slotsEach} slots. */
        public Settings withTaskManagers(int n, int slotsEach) {
            if (n < 1 || slotsEach < 1) {
                throw new IllegalArgumentException(
                        "a cluster needs at least one TaskManager of one slot");
            }
            return new Settings(
                    restPort,
                    rpcPort,
                    slotsEach,
                    jobManagerMemory,
                    taskManagerMemory,
                    stateBackend,
                    checkpointStorage,
                    n,
                    metricsPort);
        }

        /**
         * These settings with the Prometheus endpoints from port {@code first}: the JobManager's,
         * then TaskManager {@code i}'s at {@code first + 1 + i}.
         */
        public Settings withMetricsPort(int first) {
            return new Settings(
                    restPort,
                    rpcPort,
                    slots,
                    jobManagerMemory,
                    taskManagerMemory,
                    stateBackend,
                    checkpointStorage,
                    taskManagers,
                    first);
        }

        /** The Prometheus port of TaskManager {@code i} (from 0). */
        int taskManagerMetricsPort(int i) {
            return metricsPort + 1 + i;
        }
    }

    /** The Prometheus reporter's name in the configuration ({@code metrics.reporter.NAME.*}). */
    public static final String PROMETHEUS = "prom";

    /** The configuration key of the Prometheus reporter's port. */
    public static final String PROMETHEUS_PORT = "metrics.reporter." + PROMETHEUS + ".port";

    /** The configuration key of the Prometheus reporter's factory. */
    public static final String PROMETHEUS_FACTORY =
            "metrics.reporter." + PROMETHEUS + ".factory.class";

    /**
     * The name of TaskManager {@code i} (from 0): its pid file and logs; the first is plain {@code
     * taskmanager}, as when a cluster had only one.
     */
    static String taskManagerRole(int i) {
        return i == 0 ? "taskmanager" : "taskmanager-" + (i + 1);
    }

    /** The file of a started cluster's Prometheus endpoints: one {@code role<TAB>URL} a line. */
    public static final String METRICS_FILE = "metrics";

    private static String metricsUrl(int port) {
        return "http://127.0.0.1:" + port + "/metrics";
    }

    /**
     * The Prometheus endpoints of the cluster started from this directory, by role ({@code
     * jobmanager}, {@code taskmanager}, {@code taskmanager-2}, ...); empty if none was started.
     */
    public Map<String, String> metricsEndpoints() throws IOException {
        Map<String, String> endpoints = new LinkedHashMap<>();
        Path file = dir.resolve(METRICS_FILE);
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                int tab = line.indexOf('\t');
                if (tab > 0) {
                    endpoints.put(line.substring(0, tab), line.substring(tab + 1));
                }
            }
        }
        return endpoints;
    }

    /** A running cluster: its processes and REST address. */
    public record Running(long jobManagerPid, long taskManagerPid, String restUrl) {}

    private static final String RESULT = "BASH_JAVA_UTILS_EXEC_RESULT:";

    private final Path dir;
    private final Path classpathFile;

    public LocalFlinkCluster(Path dir, Path classpathFile) {
        this.dir = dir.toAbsolutePath();
        this.classpathFile = classpathFile;
    }

    /** The classpath file of a built checkout at {@code home}. */
    public static Path classpathFile(Path home) {
        return home.resolve("flink-local/target/flink-classpath.txt");
    }

    /**
     * The cluster's configuration: every address on 127.0.0.1, the memory and slots chosen, the
     * network buffers piper's blocks want ({@link EmbeddedRunner#networkConfiguration}), no Kryo
     * fallback, and the state backend and checkpoint storage. The docker-compose file sets the same
     * keys (DeploymentFilesTest checks it), with container addresses and volumes.
     */
    public static Map<String, String> configuration(Settings s, Path dir) {
        Path storage =
                (s.checkpointStorage() == null ? dir : s.checkpointStorage()).toAbsolutePath();
        Configuration network = EmbeddedRunner.networkConfiguration(s.slots());
        Map<String, String> c = new LinkedHashMap<>();
        put(c, JobManagerOptions.ADDRESS, "127.0.0.1");
        put(c, JobManagerOptions.PORT, Integer.toString(s.rpcPort()));
        put(c, JobManagerOptions.BIND_HOST, "127.0.0.1");
        put(c, TaskManagerOptions.BIND_HOST, "127.0.0.1");
        put(c, TaskManagerOptions.HOST, "127.0.0.1");
        put(c, RestOptions.ADDRESS, "127.0.0.1");
        put(c, RestOptions.BIND_ADDRESS, "127.0.0.1");
        put(c, RestOptions.PORT, Integer.toString(s.restPort()));
        put(c, JobManagerOptions.TOTAL_PROCESS_MEMORY, s.jobManagerMemory());
        put(c, TaskManagerOptions.TOTAL_PROCESS_MEMORY, s.taskManagerMemory());
        put(c, TaskManagerOptions.NUM_TASK_SLOTS, Integer.toString(s.slots()));
        // every slot of every TaskManager, as docs/OPERATIONS.md says
        put(c, CoreOptions.DEFAULT_PARALLELISM, Integer.toString(s.slots() * s.taskManagers()));
        for (ConfigOption<?> o :
                List.of(
                        TaskManagerOptions.MEMORY_SEGMENT_SIZE,
                        TaskManagerOptions.NETWORK_MEMORY_MIN,
                        TaskManagerOptions.NETWORK_MEMORY_MAX)) {
            put(c, o, network.toMap().get(o.key()));
        }
        // Managed memory serves RocksDB; with the heap backend the vocabularies want the heap.
        put(
                c,
                TaskManagerOptions.MANAGED_MEMORY_FRACTION,
                s.stateBackend() == StateBackend.rocksdb ? "0.4" : "0.1");
        put(c, PipelineOptions.GENERIC_TYPES, "false");
        put(c, StateBackendOptions.STATE_BACKEND, s.stateBackend().name());
        EmbeddedRunner.backendConfiguration(s.stateBackend()).toMap().forEach(c::put);
        put(c, CheckpointingOptions.CHECKPOINTS_DIRECTORY, uri(storage.resolve("checkpoints")));
        put(c, CheckpointingOptions.SAVEPOINT_DIRECTORY, uri(storage.resolve("savepoints")));
        put(c, CoreOptions.TMP_DIRS, dir.toAbsolutePath().resolve("tmp").toString());
        put(c, WebOptions.UPLOAD_DIR, dir.toAbsolutePath().resolve("web-upload").toString());
        // Every process serves its metrics to Prometheus (the JobManager on this port; each
        // TaskManager on its own, given on its command line): docs/OPERATIONS.md, "Metrics".
        c.put(PROMETHEUS_FACTORY, "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        c.put(PROMETHEUS_PORT, Integer.toString(s.metricsPort()));
        return c;
    }

    /**
     * The keys of {@link #configuration} that only make sense on one machine: its directories, and
     * the TaskManager's advertised host (containers and pods advertise their own address).
     */
    public static final List<String> LOCAL_ONLY_KEYS =
            List.of(
                    CoreOptions.TMP_DIRS.key(),
                    WebOptions.UPLOAD_DIR.key(),
                    TaskManagerOptions.HOST.key());

    private static void put(Map<String, String> c, ConfigOption<?> option, String value) {
        c.put(option.key(), value);
    }

    private static String uri(Path p) {
        return p.toUri().toString();
    }

    /** The cluster running from this directory, if its JobManager is alive. */
    public Optional<Running> status() throws IOException {
        Optional<ProcessHandle> jm = LocalProcess.running(pidFile("jobmanager"), mark());
        if (jm.isEmpty()) {
            return Optional.empty();
        }
        Optional<ProcessHandle> tm = LocalProcess.running(pidFile("taskmanager"), mark());
        Path rest = dir.resolve("rest");
        String url = Files.exists(rest) ? Files.readString(rest).trim() : "?";
        return Optional.of(
                new Running(jm.get().pid(), tm.map(ProcessHandle::pid).orElse(-1L), url));
    }

    /**
     * Starts the JobManager and the TaskManager and returns once the TaskManager's slots are
     * registered.
     *
     * @throws IllegalStateException if a cluster already runs from the directory, or it does not
     *     come up within {@code timeout} (the message quotes the log at fault)
     * @throws IllegalArgumentException if a port is taken
     */
    public Running start(Settings s, Duration timeout, PrintStream log)
            throws IOException, InterruptedException {
        checkNotRunning(s);
        String classpath = LocalProcess.classpath(classpathFile, "Flink cluster's");
        Path conf = writeConfiguration(s);
        Path logs = Files.createDirectories(dir.resolve("log"));

        Process jobManager =
                startRole(
                        "jobmanager",
                        "GET_JM_RESOURCE_PARAMS",
                        "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                        classpath,
                        conf,
                        logs,
                        s.metricsPort());
        Map<String, Process> processes = new java.util.LinkedHashMap<>();
        processes.put("jobmanager", jobManager);
        for (int i = 0; i < s.taskManagers(); i++) {
            processes.put(
                    taskManagerRole(i),
                    startRole(
                            taskManagerRole(i),
                            "GET_TM_RESOURCE_PARAMS",
                            "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                            classpath,
                            conf,
                            logs,
                            s.taskManagerMetricsPort(i)));
        }
        Process taskManager = processes.get(taskManagerRole(0));
        String url = "http://127.0.0.1:" + s.restPort();
        int slots = s.slots() * s.taskManagers();
        log.printf(
                "cluster: started JobManager pid %d and %s, waiting for %d slots at %s%n",
                jobManager.pid(),
                s.taskManagers() == 1
                        ? "TaskManager pid " + taskManager.pid()
                        : s.taskManagers()
                                + " TaskManagers (pids "
                                + processes.values().stream()
                                        .skip(1)
                                        .map(p -> Long.toString(p.pid()))
                                        .collect(java.util.stream.Collectors.joining(", "))
                                + ")",
                slots,
                url);
        try {
            awaitSlots(processes, url, slots, timeout);
        } catch (IllegalStateException | IOException e) {
            for (var role : processes.entrySet()) {
                role.getValue().destroyForcibly();
                Files.deleteIfExists(pidFile(role.getKey()));
            }
            throw e;
        }
        writeAddresses(s, url);
        return new Running(jobManager.pid(), taskManager.pid(), url);
    }

    /** Refuses to start a second cluster from this directory, or on ports that are taken. */
    private void checkNotRunning(Settings s) throws IOException {
        Optional<Running> running = status();
        if (running.isPresent()) {
            throw new IllegalStateException(
                    "a cluster already runs from "
                            + dir
                            + " (JobManager pid "
                            + running.get().jobManagerPid()
                            + ", "
                            + running.get().restUrl()
                            + "); stop it first");
        }
        LocalProcess.checkFree(s.restPort(), "--port");
        LocalProcess.checkFree(s.rpcPort(), "--rpc-port");
        for (int port = s.metricsPort();
                port <= s.taskManagerMetricsPort(s.taskManagers() - 1);
                port++) {
            LocalProcess.checkFree(port, "--metrics-port (one port per process from it)");
        }
    }

    /** Writes the cluster's conf/config.yaml and log4j.properties; returns conf/. */
    private Path writeConfiguration(Settings s) throws IOException {
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Map<String, String> config = configuration(s, dir);
        Files.createDirectories(Path.of(config.get(CoreOptions.TMP_DIRS.key())));
        Files.createDirectories(Path.of(config.get(WebOptions.UPLOAD_DIR.key())));
        StringBuilder yaml = new StringBuilder("# written by bin/piper cluster start\n");
        config.forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
        Files.writeString(conf.resolve("config.yaml"), yaml);
        Path log4j = conf.resolve("log4j.properties");
        Files.writeString(log4j, log4jProperties());

        return conf;
    }

    /** Writes where the cluster answers: its REST address, and each process's metrics. */
    private void writeAddresses(Settings s, String url) throws IOException {
        Files.writeString(dir.resolve("rest"), url + "\n");
        StringBuilder metrics = new StringBuilder();
        metrics.append("jobmanager\t").append(metricsUrl(s.metricsPort())).append('\n');
        for (int i = 0; i < s.taskManagers(); i++) {
            metrics.append(taskManagerRole(i))
                    .append('\t')
                    .append(metricsUrl(s.taskManagerMetricsPort(i)))
                    .append('\n');
        }
        Files.writeString(dir.resolve(METRICS_FILE), metrics);
    }

    /**
     * Starts a TaskManager again (after the cluster's died, or was killed) and returns its pid once
     * the JobManager has registered it.
     *
     * @throws IllegalStateException if no cluster runs from the directory, or the TaskManager does
     *     not register within {@code timeout} (the message quotes its log)
     */
    public long startTaskManager(Duration timeout) throws IOException, InterruptedException {
        Running running =
                status().orElseThrow(
                                () -> new IllegalStateException("no cluster runs from " + dir));
        FlinkRest rest = new FlinkRest(URI.create(running.restUrl()), Duration.ofSeconds(3));
        java.util.Set<String> before = new java.util.HashSet<>(rest.taskManagerIds());
        Process taskManager =
                startRole(
                        "taskmanager",
                        "GET_TM_RESOURCE_PARAMS",
                        "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                        LocalProcess.classpath(classpathFile, "Flink cluster's"),
                        dir.resolve("conf"),
                        dir.resolve("log"),
                        taskManagerMetricsPort());
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!taskManager.isAlive()) {
                throw new IllegalStateException(
                        "the taskmanager exited with code "
                                + taskManager.exitValue()
                                + "; its log ends with:\n"
                                + LocalProcess.tail(logs("taskmanager"), 15));
            }
            try {
                if (!before.containsAll(rest.taskManagerIds())) {
                    return taskManager.pid();
                }
            } catch (IOException e) {
                // not answering yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the TaskManager did not register within "
                                + timeout.toSeconds()
                                + " s; its log ends with:\n"
                                + LocalProcess.tail(logs("taskmanager"), 15));
            }
            Thread.sleep(200); // polling other processes; there is no event to wait on
        }
    }

    /**
     * Stops every TaskManager, then the JobManager (SIGTERM, then SIGKILL after {@code timeout});
     * returns false if none ran.
     */
    public boolean stop(Duration timeout) throws IOException, InterruptedException {
        boolean any = false;
        List<String> roles = new ArrayList<>();
        try (var files = Files.list(dir)) {
            files.map(f -> f.getFileName().toString())
                    .filter(n -> n.startsWith("taskmanager") && n.endsWith(".pid"))
                    .map(n -> n.substring(0, n.length() - ".pid".length()))
                    .sorted()
                    .forEach(roles::add);
        } catch (java.nio.file.NoSuchFileException e) {
            // no cluster ever started here
        }
        roles.add("jobmanager");
        for (String role : roles) {
            Optional<ProcessHandle> p = LocalProcess.running(pidFile(role), mark());
            if (p.isPresent()) {
                LocalProcess.stop(p.get(), timeout);
                any = true;
            }
            Files.deleteIfExists(pidFile(role));
        }
        Files.deleteIfExists(dir.resolve("rest"));
        Files.deleteIfExists(dir.resolve(METRICS_FILE));
        return any;
    }

    /** The Prometheus port of the first TaskManager, from the endpoints the start wrote. */
    private int taskManagerMetricsPort() throws IOException {
        String url = metricsEndpoints().get(taskManagerRole(0));
        if (url == null) {
            return Settings.defaults().taskManagerMetricsPort(0);
        }
        return URI.create(url).getPort();
    }

    /**
     * Starts one of the cluster's processes with the memory settings {@code BashJavaUtils} gives
     * for {@code paramsCommand}.
     */
    private Process startRole(
            String role,
            String paramsCommand,
            String mainClass,
            String classpath,
            Path conf,
            Path logs,
            int metricsPort)
            throws IOException, InterruptedException {
        List<String[]> params = resourceParams(paramsCommand, classpath, conf, logs);
        List<String> command = new ArrayList<>();
        command.add(LocalProcess.java());
        command.add(mark());
        command.addAll(Arrays.asList(params.get(0)));
        command.addAll(FlinkJvm.FLAGS);
        command.add("-Dlog.file=" + logs.resolve(role + ".log"));
        command.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.add("--configDir");
        command.add(conf.toString());
        command.addAll(Arrays.asList(params.get(1)));
        command.add("-D");
        command.add(PROMETHEUS_PORT + "=" + metricsPort); // each process its own
        return LocalProcess.startDetached(command, logs.resolve(role + ".out"), pidFile(role));
    }

    /** The JVM arguments and the dynamic properties Flink's scripts would give this role. */
    private static List<String[]> resourceParams(
            String command, String classpath, Path conf, Path logs)
            throws IOException, InterruptedException {
        Path out = logs.resolve("bash-java-utils.out");
        LocalProcess.runToCompletion(
                "computing the memory settings (" + command + ")",
                List.of(
                        LocalProcess.java(),
                        "-cp",
                        classpath,
                        "org.apache.flink.runtime.util.bash.BashJavaUtils",
                        command,
                        "--configDir",
                        conf.toString()),
                out,
                Duration.ofMinutes(1));
        List<String[]> results = new ArrayList<>();
        for (String line : Files.readAllLines(out)) {
            if (line.startsWith(RESULT)) {
                String value = line.substring(RESULT.length()).trim();
                results.add(value.isEmpty() ? new String[0] : value.split(" +"));
            }
        }
        if (results.size() != 2) {
            throw new IllegalStateException(
                    "computing the memory settings ("
                            + command
                            + ") gave no JVM and dynamic parameters:\n"
                            + LocalProcess.tail(out, 15));
        }
        return results;
    }

    private void awaitSlots(Map<String, Process> processes, String url, int slots, Duration timeout)
            throws IOException, InterruptedException {
        FlinkRest rest = new FlinkRest(URI.create(url), Duration.ofSeconds(3));
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (var role : processes.entrySet()) {
                if (!role.getValue().isAlive()) {
                    throw new IllegalStateException(
                            "the "
                                    + role.getKey()
                                    + " exited with code "
                                    + role.getValue().exitValue()
                                    + "; its log ends with:\n"
                                    + LocalProcess.tail(logs(role.getKey()), 15));
                }
            }
            try {
                if (rest.overview().path("slots-total").asInt() >= slots) {
                    return;
                }
            } catch (IOException e) {
                // not answering yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the cluster did not register "
                                + slots
                                + " slots at "
                                + url
                                + " within "
                                + timeout.toSeconds()
                                + " s; the TaskManager's log ends with:\n"
                                + LocalProcess.tail(logs("taskmanager"), 15));
            }
            Thread.sleep(200); // polling other processes; there is no event to wait on
        }
    }

    private Path logs(String role) {
        return dir.resolve("log").resolve(role + ".log");
    }

    private Path pidFile(String role) {
        return dir.resolve(role + ".pid");
    }

    /** The first JVM argument of both processes, naming the directory they belong to. */
    private String mark() {
        return "-Dpiper.flink.dir=" + dir;
    }

    private static final String COMMITTER =
            "org.apache.flink.connector.kafka.sink.internal.KafkaCommitter";

    private static final String FENCED = ".*because its producer is already fenced.*";

    /**
     * The logging configuration of the cluster's processes: a file per process ({@code log.file}).
     */
    public static String log4jProperties() {
        return String.join(
                "\n",
                "# written by bin/piper cluster start",
                "monitorInterval = 30",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.file.ref = MainAppender",
                "logger.kafka.name = org.apache.kafka",
                "logger.kafka.level = WARN",
                // The Kafka committer's "already fenced" error, expected on every recovery, at
                // INFO (conf/log4j2-cli.properties says why); its other errors stay errors.
                "appender.fenced.type = Rewrite",
                "appender.fenced.name = fenced",
                "appender.fenced.toFile.type = AppenderRef",
                "appender.fenced.toFile.ref = MainAppender",
                "appender.fenced.filter.regex.type = RegexFilter",
                "appender.fenced.filter.regex.regex = " + FENCED,
                "appender.fenced.filter.regex.onMatch = ACCEPT",
                "appender.fenced.filter.regex.onMismatch = DENY",
                "appender.fenced.policy.type = LoggerNameLevelRewritePolicy",
                "appender.fenced.policy.logger = " + COMMITTER,
                "appender.fenced.policy.error.type = KeyValuePair",
                "appender.fenced.policy.error.key = ERROR",
                "appender.fenced.policy.error.value = INFO",
                "appender.committer.type = Rewrite",
                "appender.committer.name = committer",
                "appender.committer.toFile.type = AppenderRef",
                "appender.committer.toFile.ref = MainAppender",
                "appender.committer.filter.regex.type = RegexFilter",
                "appender.committer.filter.regex.regex = " + FENCED,
                "appender.committer.filter.regex.onMatch = DENY",
                "appender.committer.filter.regex.onMismatch = ACCEPT",
                "logger.committer.name = " + COMMITTER,
                "logger.committer.additivity = false",
                "logger.committer.appenderRef.fenced.ref = fenced",
                "logger.committer.appenderRef.committer.ref = committer",
                "appender.main.name = MainAppender",
                "appender.main.type = RollingFile",
                "appender.main.append = true",
                "appender.main.fileName = ${sys:log.file}",
                "appender.main.filePattern = ${sys:log.file}.%i",
                "appender.main.layout.type = PatternLayout",
                "appender.main.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n",
                "appender.main.policies.type = Policies",
                "appender.main.policies.size.type = SizeBasedTriggeringPolicy",
                "appender.main.policies.size.size = 100MB",
                "appender.main.strategy.type = DefaultRolloverStrategy",
                "appender.main.strategy.max = 10",
                "");
    }
}
