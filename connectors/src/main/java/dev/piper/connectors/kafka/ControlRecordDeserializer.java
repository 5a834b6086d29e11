package dev.piper.connectors.kafka;

import dev.piper.core.control.ControlMessage;
import dev.piper.operators.control.ControlMessageSerializer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads a control-topic record as a {@link ControlMessage}: its value is a spec's JSON text; a
 * record without a value becomes an empty message, which the control operator rejects (so it is
 * reported, not lost).
 */
public final class ControlRecordDeserializer
        implements KafkaRecordDeserializationSchema<ControlMessage> {

    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<ControlMessage> out) {
        out.collect(
                new ControlMessage(
                        record.topic() + "/" + record.partition() + "@" + record.offset(),
                        record.value() == null ? new byte[0] : record.value()));
    }

    @Override
    public TypeInformation<ControlMessage> getProducedType() {
        return ControlMessageSerializer.TYPE;
    }
}
