package dev.piper.job.launch;

import java.util.function.Consumer;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Submitting a job from the program a Flink cluster runs: the job jar's entry class ({@link
 * JobMain}) under {@code POST /jars/:id/run}, {@code flink run} or the Kubernetes operator's
 * application mode. The program builds the graph, submits it and returns; the cluster runs the job,
 * and whoever submitted the program follows it ({@code piper submit}, the operator).
 */
public final class OnCluster {

    private OnCluster() {}

    /**
     * Builds the graph with {@code graph} on the cluster's environment, with {@code conf} on top of
     * the cluster's configuration, submits it without waiting for it and returns its id.
     */
    public static JobID submit(
            Consumer<StreamExecutionEnvironment> graph, Configuration conf, String name)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.configure(conf);
        conf.getOptional(CoreOptions.DEFAULT_PARALLELISM).ifPresent(env::setParallelism);
        graph.accept(env);
        return env.executeAsync(name).getJobID();
    }

    /**
     * The configuration the cluster gives this program: its own configuration plus what the
     * submission set, such as the savepoint to restore ({@code savepointPath} of the REST run, the
     * Kubernetes operator's last savepoint on an upgrade).
     */
    public static ReadableConfig clusterConfiguration() {
        return StreamExecutionEnvironment.getExecutionEnvironment().getConfiguration();
    }
}
