package dev.piper.connectors.kafka;

import dev.piper.core.block.Lanes;
import dev.piper.core.block.LogRecord;
import dev.piper.operators.block.BlockTypes;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads a Kafka record as a {@link LogRecord}: lane (its topic's pipeline and its partition),
 * offset, timestamp and the value's bytes untouched (parsing is the decoder's job). A null value
 * (tombstone) becomes an empty value, which the decoder reports as an empty line, so no record is
 * lost silently.
 */
public final class LogRecordDeserializer implements KafkaRecordDeserializationSchema<LogRecord> {

    private static final long serialVersionUID = 1L;

    private final HashMap<String, Integer> pipelineOfTopic;

    /** Records of a job reading one topic: lane = partition. */
    public LogRecordDeserializer() {
        this(Map.of());
    }

    /**
     * @param pipelineOfTopic each topic's pipeline index (topics not in it: pipeline 0)
     */
    public LogRecordDeserializer(Map<String, Integer> pipelineOfTopic) {
        this.pipelineOfTopic = new HashMap<>(pipelineOfTopic);
    }

    private static final byte[] EMPTY = new byte[0];

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<LogRecord> out) {
        byte[] value = record.value();
        out.collect(
                new LogRecord(
                        Lanes.of(
                                pipelineOfTopic.getOrDefault(record.topic(), 0),
                                record.partition()),
                        record.offset(),
                        record.timestamp(),
                        value == null ? EMPTY : value));
    }

    @Override
    public TypeInformation<LogRecord> getProducedType() {
        return BlockTypes.LOG_RECORD;
    }
}
