package dev.piper.job;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.jobgraph.DistributionPattern;
import org.apache.flink.runtime.jobgraph.IntermediateDataSet;
import org.apache.flink.runtime.jobgraph.JobEdge;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The network memory of the embedded cluster, sized to the one job it runs.
 *
 * <p>A TaskManager allocates (and the JVM zeroes) its whole network buffer pool when it starts. The
 * fixed 128 MiB this cluster had took 0.5 s of a cold process's main thread, two fifths of the
 * cluster's start, for a preprocess at parallelism 2 whose pools hold at most a third of it
 * (docs/PERFORMANCE.md, "The network buffer pool of a cold process"). Flink bounds every pool of a
 * streaming job: an input gate holds at most 2 exclusive buffers per channel and 8 floating ones, a
 * result partition at most 2 per subpartition and 8 more (Flink 2.2's fixed values). The sum over
 * the job graph is the most its pools can hold; with that many, every pool grows to its bound as it
 * did in the fixed pool. Beyond its bound a result partition may borrow overdraft buffers from what
 * is left (Flink allows 20) to finish a record that spans several; this counts {@link
 * #OVERDRAFT_BUFFERS}, a block of 1 MiB in 256 KiB buffers, and a writer that finds none waits for
 * its consumer as under any back pressure. What Flink requires to deploy the job (one buffer per
 * subpartition and one more, two per channel and one more) is far less.
 */
public final class NetworkMemory {

    /** Exclusive buffers per input channel and per subpartition (Flink 2.2, not configurable). */
    static final int BUFFERS_PER_CHANNEL = 2;

    /** Floating buffers per input gate and per result partition (likewise). */
    static final int FLOATING_BUFFERS = 8;

    /** Overdraft buffers counted per result partition: a 1 MiB block in 256 KiB buffers. */
    static final int OVERDRAFT_BUFFERS = 4;

    /** Headroom for what the count does not see (the cluster's own use, a future Flink's). */
    static final int SPARE_BUFFERS = 32;

    private NetworkMemory() {}

    /**
     * The most network buffers {@code graph}'s pools can hold at once when it runs alone on one
     * TaskManager; a vertex without a parallelism of its own runs at {@code defaultParallelism}.
     */
    public static int buffers(JobGraph graph, int defaultParallelism) {
        long total = 0;
        for (JobVertex vertex : graph.getVertices()) {
            int p = parallelism(vertex, defaultParallelism);
            for (JobEdge input : vertex.getInputs()) {
                int producers = parallelism(input.getSource().getProducer(), defaultParallelism);
                int channels = share(input, producers, p);
                total += (long) p * (channels * BUFFERS_PER_CHANNEL + FLOATING_BUFFERS);
            }
            for (IntermediateDataSet output : vertex.getProducedDataSets()) {
                int subpartitions = 0;
                for (JobEdge consumer : output.getConsumers()) {
                    int consumers = parallelism(consumer.getTarget(), defaultParallelism);
                    subpartitions = Math.max(subpartitions, share(consumer, consumers, p));
                }
                total +=
                        (long) p
                                * (subpartitions * BUFFERS_PER_CHANNEL
                                        + FLOATING_BUFFERS
                                        + OVERDRAFT_BUFFERS);
            }
        }
        return (int) Math.min(Integer.MAX_VALUE, total + SPARE_BUFFERS);
    }

    /**
     * Sizes the embedded cluster's network memory to the job built in {@code env}, unless {@code
     * conf} names a size ({@code --flink-conf taskmanager.memory.network.min/max}): it must come
     * after the job is built and before it is executed. A cluster that is already running (a test's
     * shared MiniCluster) keeps the memory it started with.
     */
    public static void sizeFor(StreamExecutionEnvironment env, ReadableConfig conf) {
        if (conf.getOptional(TaskManagerOptions.NETWORK_MEMORY_MIN).isPresent()
                || conf.getOptional(TaskManagerOptions.NETWORK_MEMORY_MAX).isPresent()) {
            return;
        }
        JobGraph graph = env.getStreamGraph(false).getJobGraph();
        int buffers = buffers(graph, env.getParallelism());
        MemorySize segment = conf.get(TaskManagerOptions.MEMORY_SEGMENT_SIZE);
        MemorySize network = new MemorySize(segment.getBytes() * buffers);
        Configuration sized = new Configuration();
        sized.set(TaskManagerOptions.NETWORK_MEMORY_MIN, network);
        sized.set(TaskManagerOptions.NETWORK_MEMORY_MAX, network);
        env.configure(sized);
    }

    private static int parallelism(JobVertex vertex, int defaultParallelism) {
        return vertex.getParallelism() > 0 ? vertex.getParallelism() : defaultParallelism;
    }

    /**
     * How many of the {@code others} subtasks at the far end of {@code edge} each of the {@code
     * these} subtasks at this end is connected to: the input channels of a consumer, or the
     * subpartitions of a producer. All of them across an all-to-all edge, a share across a
     * pointwise one.
     */
    static int share(JobEdge edge, int others, int these) {
        if (edge.getDistributionPattern() == DistributionPattern.ALL_TO_ALL) {
            return others;
        }
        return Math.max(1, (others + these - 1) / these);
    }
}
