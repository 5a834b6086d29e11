package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Topics created by {@link TopicCreation} against a real broker. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TopicCreationTest {

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    /**
     * An idempotent producer sending many small batches at once to a topic just created loses none
     * of them. Before {@link TopicCreation#create} waited for the partitions' leaders to serve
     * them, a leader that the broker's metadata already named but that had not opened the partition
     * answered the first batch NOT_LEADER_OR_FOLLOWER, took the next ones, and the first one's
     * retries were out of sequence until they expired (Kafka's KAFKA-15591; seen in
     * ServingSnapshotITCase).
     */
    @Test
    void everyBatchSentAtOnceToANewTopicLands() throws Exception {
        Properties props = new Properties();
        props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, "1024");
        props.setProperty(ProducerConfig.LINGER_MS_CONFIG, "0");
        // an expired batch fails the send well inside the test's time
        props.setProperty(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
        props.setProperty(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        byte[] value = new byte[200];
        int topics = 20;
        int records = 400;
        try (Admin admin = kafka.admin();
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(
                                props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int t = 0; t < topics; t++) {
                String topic = "created-" + t;
                TopicCreation.create(
                        admin,
                        new NewTopic(topic, Optional.of(2), Optional.empty()),
                        Duration.ofSeconds(30));
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (int i = 0; i < records; i++) {
                    sent.add(producer.send(new ProducerRecord<>(topic, i % 2, null, value)));
                }
                producer.flush();
                for (Future<RecordMetadata> f : sent) {
                    f.get(); // throws for a batch that expired
                }
                Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
                ends.put(new TopicPartition(topic, 0), OffsetSpec.latest());
                ends.put(new TopicPartition(topic, 1), OffsetSpec.latest());
                long landed =
                        admin.listOffsets(ends).all().get(30, TimeUnit.SECONDS).values().stream()
                                .mapToLong(o -> o.offset())
                                .sum();
                assertThat(landed).as("records in %s", topic).isEqualTo(records);
            }
        }
    }
}
