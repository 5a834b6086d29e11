package dev.piper.cli;

import dev.piper.job.EmbeddedRunner;
import dev.piper.job.EmbeddedRunner.StateBackend;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

/** The embedded cluster's options of the commands that run a job. */
final class ClusterOptions {

    /**
     * The job's own configuration when it runs on a Flink cluster: the parallelism and state
     * backend only where the command line names them, so that the cluster's configuration and the
     * submission ({@code piper submit --parallelism}) decide the rest.
     */
    Configuration jobConfiguration(CommandSpec command, int parallelism) {
        ParseResult parsed = command.commandLine().getParseResult();
        Configuration conf =
                EmbeddedRunner.jobConfiguration(
                        parsed.hasMatchedOption("--parallelism") ? parallelism : null,
                        parsed.hasMatchedOption("--state-backend") ? stateBackend : null);
        return conf;
    }

    @Option(
            names = "--state-backend",
            paramLabel = "B",
            defaultValue = "hashmap",
            description =
                    "Where vocabularies live: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    StateBackend stateBackend;

    @Option(
            names = "--flink-conf",
            paramLabel = "KEY=VALUE",
            description =
                    "A Flink configuration option for the embedded cluster and the job, e.g."
                            + " taskmanager.memory.network.max=256mb (repeatable); on a cluster,"
                            + " for the job only.")
    Map<String, String> flinkConf = new LinkedHashMap<>();
}
