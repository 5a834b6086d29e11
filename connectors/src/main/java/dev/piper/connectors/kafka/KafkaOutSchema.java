package dev.piper.connectors.kafka;

import dev.piper.core.block.KafkaOut;
import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Sends each {@link KafkaOut} to its target topic, with its key, value and headers, to the
 * partition its {@link KafkaOut#spread() spread} chooses, or by its key.
 */
final class KafkaOutSchema implements KafkaRecordSerializationSchema<KafkaOut> {

    private static final long serialVersionUID = 1L;

    private final String[] topics;

    /**
     * @param topics topic per target ({@link KafkaOut#ROWS}, ...); null where unused
     */
    KafkaOutSchema(String[] topics) {
        this.topics = topics.clone();
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            KafkaOut r, KafkaSinkContext context, Long timestamp) {
        String topic = Objects.requireNonNull(topics[r.target()], () -> "no topic for " + r);
        RecordHeaders headers = new RecordHeaders();
        for (int i = 0; i < r.headerNames().length; i++) {
            headers.add(r.headerNames()[i], r.headerValues()[i]);
        }
        Integer partition = null;
        if (r.spread() != KafkaOut.BY_KEY) {
            // a topic's partitions are numbered 0..n-1
            int partitions = context.getPartitionsForTopic(topic).length;
            partition = (int) Math.floorMod(r.spread(), (long) partitions);
        }
        return new ProducerRecord<>(topic, partition, null, r.key(), r.value(), headers);
    }

    @Override
    public String toString() {
        return "KafkaOutSchema" + Arrays.toString(topics);
    }
}
