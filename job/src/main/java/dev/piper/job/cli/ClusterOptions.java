package dev.piper.job.cli;

import dev.piper.job.EmbeddedRunner.StateBackend;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** The embedded cluster's options of the commands that run a job. */
final class ClusterOptions {

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
                            + " taskmanager.memory.network.max=256mb (repeatable).")
    Map<String, String> flinkConf = new LinkedHashMap<>();
}
