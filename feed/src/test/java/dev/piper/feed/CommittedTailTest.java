package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The last committed record of each partition, on a real broker: found behind an aborted
 * transaction far longer than the first step back, and behind commit markers; a partition without a
 * committed record has none; a topic that does not exist has none.
 */
class CommittedTailTest {

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static KafkaProducer<byte[], byte[]> producer(String transactionalId) {
        Properties p = new Properties();
        p.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.setProperty(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        producer.initTransactions();
        return producer;
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, int partition, String v) {
        return new ProducerRecord<>(topic, partition, null, v.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theLastCommittedRecordOfEachPartition() throws Exception {
        kafka.createTopic("tail", 3);
        try (KafkaProducer<byte[], byte[]> producer = producer("tail-test")) {
            for (int t = 0; t < 3; t++) { // three transactions of two records in partition 0
                producer.beginTransaction();
                producer.send(record("tail", 0, "committed-" + (2 * t)));
                producer.send(record("tail", 0, "committed-" + (2 * t + 1)));
                producer.commitTransaction();
            }
            producer.beginTransaction(); // then 200 aborted records after them
            for (int i = 0; i < 200; i++) {
                producer.send(record("tail", 0, "aborted-" + i));
            }
            producer.send(record("tail", 1, "aborted-alone"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(record("tail", 2, "only"));
            producer.commitTransaction();
        }
        List<ConsumerRecord<byte[], byte[]>> last =
                CommittedTail.of(kafka.bootstrapServers(), Map.of(), "tail", WAIT);
        assertThat(last).extracting(ConsumerRecord::partition).containsExactly(0, 2);
        assertThat(last)
                .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .containsExactly("committed-5", "only");
        assertThat(CommittedTail.of(kafka.bootstrapServers(), Map.of(), "no-such-topic", WAIT))
                .isEmpty();
    }
}
