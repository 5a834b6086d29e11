package dev.piper.connectors.kafka;

import dev.piper.core.join.JoinRead;
import dev.piper.core.join.StreamJoinReader;
import dev.piper.operators.join.JoinRecordSerializers;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.ops.DecodeOptions;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads a record of the label join's topics ({@link StreamJoinReader}): in the source, so that its
 * event time drives its partition's watermark. A null value (a tombstone) is read as empty, which
 * the reader refuses with a dead letter.
 */
public final class JoinRecordDeserializer implements KafkaRecordDeserializationSchema<JoinRead> {

    private static final long serialVersionUID = 1L;

    private static final byte[] EMPTY = new byte[0];

    private final HashMap<String, Integer> sourceOfTopic;
    private final LabelSpec labels;
    private final DecodeOptions options;
    private final boolean linesInTopic;
    private transient StreamJoinReader reader;

    /**
     * @param sourceOfTopic each topic's source: 0 for the impressions, {@code 1 + s} for action
     *     stream {@code s}
     * @param linesInTopic whether an impression goes to the join by its position only, its line
     *     read back from the topic when its row is made ({@link StreamJoinReader#IN_TOPIC})
     */
    public JoinRecordDeserializer(
            Map<String, Integer> sourceOfTopic,
            LabelSpec labels,
            DecodeOptions options,
            boolean linesInTopic) {
        this.sourceOfTopic = new HashMap<>(sourceOfTopic);
        this.labels = labels;
        this.options = options;
        this.linesInTopic = linesInTopic;
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<JoinRead> out) {
        Integer source = sourceOfTopic.get(record.topic());
        if (source == null) {
            throw new IllegalStateException(
                    "a record of topic " + record.topic() + ", which the label join does not read");
        }
        if (reader == null) {
            reader = new StreamJoinReader(labels, options, linesInTopic); // one per subtask
        }
        byte[] value = record.value();
        out.collect(
                reader.read(
                        source,
                        record.partition(),
                        record.offset(),
                        value == null ? EMPTY : value));
    }

    @Override
    public TypeInformation<JoinRead> getProducedType() {
        return JoinRecordSerializers.JOIN_READ;
    }
}
