package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;

/** What {@link NetworkMemory} counts in a job graph, and when it sizes the embedded cluster. */
class NetworkMemoryTest {

    private static final int SPARE = NetworkMemory.SPARE_BUFFERS;

    /**
     * A source at 3 keyed to a map at 2, rescaled to a sink at 1, no chaining: every pool's bound,
     * counted by hand.
     */
    private static StreamExecutionEnvironment threeTwoOne(Configuration conf) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.disableOperatorChaining();
        env.fromSequence(0, 99)
                .setParallelism(3)
                .keyBy(n -> n % 7)
                .map(n -> n * 2)
                .setParallelism(2)
                .rescale()
                .sinkTo(new DiscardingSink<>())
                .setParallelism(1);
        return env;
    }

    @Test
    void everyPoolsBoundIsCounted() {
        StreamExecutionEnvironment env = threeTwoOne(new Configuration());
        // source: 3 partitions of 2 subpartitions (all to all): 3 x (2 x 2 + 8 + overdraft 4)
        int source = 3 * (2 * 2 + 8 + 4);
        // map: 2 gates of 3 channels: 2 x (3 x 2 + 8); 2 partitions of 1 subpartition (each
        // rescales to the one sink): 2 x (1 x 2 + 8 + 4)
        int map = 2 * (3 * 2 + 8) + 2 * (2 + 8 + 4);
        // sink: 1 gate of the 2 channels the maps rescale into it: 2 x 2 + 8
        int sink = 2 * 2 + 8;
        assertThat(NetworkMemory.buffers(env.getStreamGraph(false).getJobGraph(), 1))
                .isEqualTo(source + map + sink + SPARE)
                .isEqualTo(148);
    }

    @Test
    void aVertexWithoutItsOwnParallelismRunsAtTheDefault() {
        Configuration conf = new Configuration();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(4);
        env.disableOperatorChaining();
        env.fromSequence(0, 99).rebalance().sinkTo(new DiscardingSink<>());
        int source = 4 * (4 * 2 + 8 + 4);
        int sink = 4 * (4 * 2 + 8);
        assertThat(NetworkMemory.buffers(env.getStreamGraph(false).getJobGraph(), 4))
                .isEqualTo(source + sink + SPARE);
    }

    @Test
    void theEmbeddedClusterIsSizedToTheJob() {
        Configuration conf = EmbeddedRunner.configuration(2, EmbeddedRunner.StateBackend.hashmap);
        StreamExecutionEnvironment env = threeTwoOne(conf);
        NetworkMemory.sizeFor(env, conf);
        MemorySize expected = new MemorySize(148L * 256 * 1024);
        assertThat(env.getConfiguration().get(TaskManagerOptions.NETWORK_MEMORY_MIN))
                .isEqualTo(expected);
        assertThat(env.getConfiguration().get(TaskManagerOptions.NETWORK_MEMORY_MAX))
                .isEqualTo(expected);
        // the graph is still there to be executed
        assertThat(env.getStreamGraph(false).getStreamNodes()).hasSize(3);
    }

    @Test
    void aSizeTheUserNamedWins() {
        Configuration conf = EmbeddedRunner.configuration(2, EmbeddedRunner.StateBackend.hashmap);
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("300mb"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("300mb"));
        StreamExecutionEnvironment env = threeTwoOne(conf);
        NetworkMemory.sizeFor(env, conf);
        assertThat(env.getConfiguration().get(TaskManagerOptions.NETWORK_MEMORY_MAX))
                .isEqualTo(MemorySize.parse("300mb"));
    }
}
