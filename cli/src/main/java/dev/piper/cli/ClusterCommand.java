package dev.piper.cli;

import dev.piper.cli.local.LocalFlinkCluster;
import dev.piper.job.EmbeddedRunner.StateBackend;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code piper cluster start|stop|status}: a local Flink session cluster to submit jobs to. */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        description = {
            "Run a real Flink 2.2.0 session cluster (one JobManager, one TaskManager or more) on"
                    + " 127.0.0.1"
                    + " from Flink's jars, with its config, logs and PIDs under --dir. Submit jobs"
                    + " to it with 'piper submit'."
        },
        subcommands = {
            ClusterCommand.Start.class,
            ClusterCommand.Stop.class,
            ClusterCommand.Status.class
        })
final class ClusterCommand extends LocalServiceCommands.Group {

    /** The {@code --dir} of every cluster subcommand, and the cluster it names. */
    static final class ClusterDir {
        @Option(
                names = "--dir",
                required = true,
                paramLabel = "D",
                description = "Directory of the cluster's config, logs, PIDs and default storage.")
        Path dir;

        LocalFlinkCluster open() {
            return new LocalFlinkCluster(dir, LocalFlinkCluster.classpathFile(PiperHome.get()));
        }
    }

    /** {@code Prometheus metrics at URL (role), ...}: where each process serves its metrics. */
    static String metricsLine(Map<String, String> endpoints) {
        StringBuilder line = new StringBuilder("Prometheus metrics at ");
        String sep = "";
        for (Map.Entry<String, String> e : endpoints.entrySet()) {
            line.append(sep).append(e.getValue()).append(" (").append(e.getKey()).append(')');
            sep = ", ";
        }
        return line.toString();
    }

    /** {@code piper cluster start}. */
    @Command(
            name = "start",
            mixinStandardHelpOptions = true,
            description = {
                "Start the cluster and return once the TaskManager's slots are registered; the last"
                        + " line printed is the REST address (web UI and 'piper submit --rest')."
            })
    static final class Start implements Callable<Integer> {

        @Spec CommandSpec spec;

        @Mixin ClusterDir cluster;

        @Option(
                names = "--port",
                defaultValue = "8081",
                paramLabel = "P",
                description = "REST and web UI port on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
        int port;

        @Option(
                names = "--rpc-port",
                defaultValue = "6123",
                paramLabel = "R",
                description = "JobManager RPC port on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
        int rpcPort;

        @Option(
                names = "--slots",
                defaultValue = "2",
                paramLabel = "N",
                description = "Task slots of each TaskManager (default: ${DEFAULT-VALUE}).")
        int slots;

        @Option(
                names = "--taskmanagers",
                defaultValue = "1",
                paramLabel = "N",
                description =
                        "TaskManagers to start, each a JVM of its own with --slots slots and"
                                + " --taskmanager-memory (default: ${DEFAULT-VALUE}).")
        int taskManagers;

        @Option(
                names = "--jobmanager-memory",
                defaultValue = "1024m",
                paramLabel = "SIZE",
                description = "JobManager process memory (default: ${DEFAULT-VALUE}).")
        String jobManagerMemory;

        @Option(
                names = "--taskmanager-memory",
                defaultValue = "1536m",
                paramLabel = "SIZE",
                description =
                        "TaskManager process memory; vocabularies on the heap backend live in"
                                + " its task heap (default: ${DEFAULT-VALUE}).")
        String taskManagerMemory;

        @Option(
                names = "--state-backend",
                defaultValue = "hashmap",
                paramLabel = "B",
                description =
                        "The jobs' default state backend: ${COMPLETION-CANDIDATES} (default:"
                                + " ${DEFAULT-VALUE}).")
        StateBackend stateBackend;

        @Option(
                names = "--checkpoint-storage",
                paramLabel = "DIR",
                description =
                        "Directory of the jobs' default checkpoints/ and savepoints/ (default:"
                                + " --dir). A stream job keeps its own under --checkpoint-dir.")
        Path checkpointStorage;

        @Option(
                names = "--metrics-port",
                defaultValue = "9249",
                paramLabel = "P",
                description =
                        "Prometheus endpoint of the JobManager on 127.0.0.1; TaskManager i serves"
                                + " its metrics on P+i (default: ${DEFAULT-VALUE}).")
        int metricsPort;

        @Option(
                names = "--timeout",
                defaultValue = "120",
                paramLabel = "S",
                description =
                        "Seconds to wait for the slots to register (default: ${DEFAULT-VALUE}).")
        int timeoutSeconds;

        @Override
        public Integer call() throws Exception {
            LocalServiceCommands.checkPorts(spec, port, rpcPort, "--rpc-port");
            if (slots < 1) {
                throw new ParameterException(
                        spec.commandLine(), "--slots: must be at least 1, not " + slots);
            }
            if (taskManagers < 1) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--taskmanagers: must be at least 1, not " + taskManagers);
            }
            int lastMetricsPort = metricsPort + taskManagers;
            String metricsPorts =
                    "--metrics-port: ports "
                            + metricsPort
                            + ".."
                            + lastMetricsPort
                            + " (one per process)";
            if (metricsPort < 1 || lastMetricsPort > 65535) {
                throw new ParameterException(
                        spec.commandLine(), metricsPorts + " must lie between 1 and 65535");
            }
            for (int p : new int[] {port, rpcPort}) {
                if (p >= metricsPort && p <= lastMetricsPort) {
                    throw new ParameterException(
                            spec.commandLine(),
                            metricsPorts
                                    + " include "
                                    + p
                                    + ", taken by "
                                    + (p == port ? "--port" : "--rpc-port"));
                }
            }
            LocalServiceCommands.checkSize(
                    spec, "--jobmanager-memory", jobManagerMemory, "[0-9]+[kKmMgG]", "1536m");
            LocalServiceCommands.checkSize(
                    spec, "--taskmanager-memory", taskManagerMemory, "[0-9]+[kKmMgG]", "1536m");
            LocalFlinkCluster.Settings settings =
                    new LocalFlinkCluster.Settings(
                            port,
                            rpcPort,
                            slots,
                            jobManagerMemory,
                            taskManagerMemory,
                            stateBackend,
                            checkpointStorage,
                            taskManagers,
                            metricsPort);
            LocalFlinkCluster.Running running;
            try {
                running =
                        cluster.open()
                                .start(settings, Duration.ofSeconds(timeoutSeconds), System.err);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            spec.commandLine()
                    .getOut()
                    .printf("cluster: %s%n", metricsLine(cluster.open().metricsEndpoints()));
            spec.commandLine()
                    .getOut()
                    .printf(
                            "cluster: running, JobManager pid %d, %s, %d slots, logs in %s%n%s%n",
                            running.jobManagerPid(),
                            taskManagers == 1
                                    ? "TaskManager pid " + running.taskManagerPid()
                                    : taskManagers + " TaskManagers",
                            slots * taskManagers,
                            cluster.dir.toAbsolutePath().resolve("log"),
                            running.restUrl());
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    /** {@code piper cluster stop}. */
    @Command(
            name = "stop",
            mixinStandardHelpOptions = true,
            description =
                    "Stop the cluster running from --dir: the TaskManager, then the JobManager"
                            + " (SIGTERM, then SIGKILL after --timeout). Running jobs are not"
                            + " savepointed: stop them first with 'piper job stop'.")
    static final class Stop extends LocalServiceCommands.Stop {

        @Mixin ClusterDir cluster;

        @Override
        String service() {
            return "cluster";
        }

        @Override
        String noun() {
            return "cluster";
        }

        @Override
        Path dir() {
            return cluster.dir;
        }

        @Override
        boolean stop(Duration timeout) throws Exception {
            return cluster.open().stop(timeout);
        }
    }

    /** {@code piper cluster status}: exit 0 when running, 3 when not (as LSB init scripts do). */
    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description =
                    "Say whether a cluster runs from --dir; exit code 0 if its JobManager does, 3"
                            + " if not.")
    static final class Status extends LocalServiceCommands.Status<LocalFlinkCluster.Running> {

        @Mixin ClusterDir cluster;

        @Override
        String service() {
            return "cluster";
        }

        @Override
        Path dir() {
            return cluster.dir;
        }

        @Override
        Optional<LocalFlinkCluster.Running> status() throws Exception {
            return cluster.open().status();
        }

        @Override
        String describe(LocalFlinkCluster.Running r) {
            String metrics;
            try {
                metrics = "\n" + metricsLine(cluster.open().metricsEndpoints());
            } catch (IOException e) {
                metrics = ""; // the endpoints' file unreadable: the rest still holds
            }
            return "JobManager pid "
                    + r.jobManagerPid()
                    + ", TaskManager "
                    + (r.taskManagerPid() < 0 ? "not running" : "pid " + r.taskManagerPid())
                    + metrics
                    + "\n"
                    + r.restUrl();
        }
    }
}
