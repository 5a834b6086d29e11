package dev.piper.job.launch;

import dev.piper.job.EmbeddedRunner;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobOption;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;

/** Where a job runs and with what Flink settings: the options of every command that runs one. */
public final class ClusterArgs {

    static final String PARALLELISM = "--parallelism";
    static final String STATE_BACKEND = "--state-backend";
    static final String FLINK_CONF = "--flink-conf";

    public static final List<JobOption> OPTIONS =
            List.of(
                    JobOption.value(
                            STATE_BACKEND,
                            "B",
                            StateBackend.hashmap.name(),
                            "Where vocabularies live: hashmap, rocksdb (default:"
                                    + " ${DEFAULT-VALUE})."),
                    JobOption.repeatable(
                            FLINK_CONF,
                            "KEY=VALUE",
                            "A Flink configuration option for the embedded cluster and the job,"
                                    + " e.g. taskmanager.memory.network.max=256mb (repeatable); on"
                                    + " a cluster, for the job only."));

    private ClusterArgs() {}

    /** The state backend asked for. */
    public static StateBackend stateBackend(JobArgs args) {
        return args.choice(STATE_BACKEND, StateBackend.class);
    }

    /** The {@code --flink-conf} settings, as a configuration. */
    public static Configuration flinkConf(JobArgs args) {
        Map<String, String> pairs = args.keyValues(FLINK_CONF);
        return Configuration.fromMap(pairs);
    }

    /**
     * The job's own configuration when it runs on a Flink cluster: the parallelism and state
     * backend only where the arguments name them, so that the cluster's configuration and the
     * submission ({@code piper submit --parallelism}) decide the rest.
     */
    public static Configuration jobConfiguration(JobArgs args) {
        return EmbeddedRunner.jobConfiguration(
                args.given(PARALLELISM) ? args.integer(PARALLELISM) : null,
                args.given(STATE_BACKEND) ? stateBackend(args) : null);
    }
}
