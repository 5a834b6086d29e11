package dev.piper.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumerator;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The label join's readers: as many as can each own a partition under Kafka's source's own rule of
 * which subtask reads a partition (a subtask without one would hold the join's watermark back).
 */
class JoinReadersTest {

    @Test
    void everyReaderOwnsAPartitionByTheSourcesOwnRule() throws Exception {
        Method owner =
                KafkaSourceEnumerator.class.getDeclaredMethod(
                        "getSplitOwner", TopicPartition.class, int.class);
        owner.setAccessible(true);
        SplittableRandom rnd = new SplittableRandom(66);
        int fewer = 0;
        for (int trial = 0; trial < 500; trial++) {
            List<TopicPartition> partitions = new ArrayList<>();
            int topics = rnd.nextInt(1, 4);
            for (int t = 0; t < topics; t++) {
                String topic = "topic-" + rnd.nextInt(1_000_000);
                int n = rnd.nextInt(1, 5);
                for (int p = 0; p < n; p++) {
                    partitions.add(new TopicPartition(topic, p));
                }
            }
            int max = rnd.nextInt(1, 9);
            int readers = KafkaConnectors.readersWithAPartitionEach(partitions, max);
            assertThat(readers).isBetween(1, Math.min(max, partitions.size()));
            boolean[] owns = new boolean[readers];
            for (TopicPartition tp : partitions) {
                owns[(int) owner.invoke(null, tp, readers)] = true;
            }
            for (boolean o : owns) {
                assertThat(o).as("%s at %d readers", partitions, readers).isTrue();
            }
            // and no more readers would do
            for (int more = readers + 1; more <= Math.min(max, partitions.size()); more++) {
                boolean[] any = new boolean[more];
                int owned = 0;
                for (TopicPartition tp : partitions) {
                    int o = (int) owner.invoke(null, tp, more);
                    owned += any[o] ? 0 : 1;
                    any[o] = true;
                }
                assertThat(owned).as("%s at %d readers", partitions, more).isLessThan(more);
            }
            fewer += readers < Math.min(max, partitions.size()) ? 1 : 0;
        }
        assertThat(fewer)
                .as("trials where the rule leaves a reader without a partition")
                .isPositive();
    }

    @Test
    void topicsOfOnePartitionThatLandOnOneReaderAreReadByOne() {
        // the trainer test's topics: both partitions go to subtask 1 of 2
        List<TopicPartition> both =
                List.of(
                        new TopicPartition("sampled-in", 0),
                        new TopicPartition("sampled-clicks", 0));
        assertThat(KafkaConnectors.readersWithAPartitionEach(both, 2)).isEqualTo(1);
        // two topics of two partitions: each reader one of each
        List<TopicPartition> four =
                List.of(
                        new TopicPartition("impressions", 0),
                        new TopicPartition("impressions", 1),
                        new TopicPartition("clicks", 0),
                        new TopicPartition("clicks", 1));
        assertThat(KafkaConnectors.readersWithAPartitionEach(four, 2)).isEqualTo(2);
    }
}
