package dev.piper.connectors.kafka;

import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.LogRecord;
import dev.piper.core.control.ControlMessage;
import dev.piper.core.join.JoinRead;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.ops.DecodeOptions;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;

/**
 * The Kafka source and the exactly-once Kafka sink of {@code bin/piper stream}, with the client
 * defaults the job relies on. User properties ({@code --kafka-property}, {@code
 * --kafka-properties}) are applied last and win, except where exactly-once needs a value.
 */
public final class KafkaConnectors {

    /**
     * Producer transaction timeout: Kafka brokers accept at most 15 minutes by default ({@code
     * transaction.max.timeout.ms}). A transaction stays open from one checkpoint to the next, and
     * after a crash until the restarted job aborts it, so this bounds how long a crash without
     * restart can hold back {@code read_committed} consumers.
     */
    public static final String TRANSACTION_TIMEOUT_MS = "900000";

    /** Where a run without restored state starts reading. */
    public enum StartFrom {
        earliest,
        latest,
        committed
    }

    private KafkaConnectors() {}

    /**
     * Reads {@code topics} from their partitions, committed input only, each record in the lane of
     * its topic's pipeline and its partition; the group's offsets are committed as each checkpoint
     * completes ({@link PromptCommitSource}).
     */
    public static PromptCommitSource<LogRecord> source(
            String bootstrapServers,
            List<String> topics,
            Map<String, Integer> pipelineOfTopic,
            String groupId,
            StartFrom start,
            Map<String, String> userProperties) {
        return new PromptCommitSource<>(
                kafkaSource(
                        bootstrapServers,
                        topics,
                        groupId,
                        start,
                        new LogRecordDeserializer(pipelineOfTopic),
                        userProperties));
    }

    /**
     * Reads the label join's topics (the impressions' and each action stream's), committed input
     * only, each record read as the join reads it ({@link JoinRecordDeserializer}); the group's
     * offsets are committed as each checkpoint completes.
     *
     * @param sourceOfTopic each topic's source: 0 for the impressions, {@code 1 + s} for action
     *     stream {@code s}
     * @param readAheadMs how far in event time a partition may be read ahead of another that still
     *     delivers, of the same reader ({@link ReadAheadReader}) or another ({@link
     *     ReadAheadEnumerator}); 0: no bound
     * @param linesInTopic whether the join holds an impression's position, its line read back from
     *     the topic when its row is made ({@code dev.piper.feed.KafkaImpressionLines}), rather than
     *     its line
     */
    public static PromptCommitSource<JoinRead> joinSource(
            String bootstrapServers,
            Map<String, Integer> sourceOfTopic,
            LabelSpec labels,
            DecodeOptions options,
            String groupId,
            StartFrom start,
            Map<String, String> userProperties,
            long readAheadMs,
            boolean linesInTopic) {
        return new PromptCommitSource<>(
                kafkaSource(
                        bootstrapServers,
                        List.copyOf(new java.util.TreeSet<>(sourceOfTopic.keySet())),
                        groupId,
                        start,
                        new JoinRecordDeserializer(sourceOfTopic, labels, options, linesInTopic),
                        userProperties),
                JoinRead::eventTimeMs,
                readAheadMs);
    }

    /** Kafka's source of {@code topics} read by {@code deserializer}, committed input only. */
    private static <T> KafkaSource<T> kafkaSource(
            String bootstrapServers,
            List<String> topics,
            String groupId,
            StartFrom start,
            KafkaRecordDeserializationSchema<T> deserializer,
            Map<String, String> userProperties) {
        return KafkaSource.<T>builder()
                .setBootstrapServers(bootstrapServers)
                .setTopics(topics)
                .setGroupId(groupId)
                .setStartingOffsets(offsets(start))
                .setDeserializer(deserializer)
                .setProperties(consumerProperties(userProperties))
                .build();
    }

    /**
     * The most subtasks, at most {@code max}, that can read {@code partitions} with a partition
     * each: Kafka's source gives a partition to subtask {@code (h(topic) + partition) mod n}
     * ({@code KafkaSourceEnumerator#getSplitOwner}, {@code h} the topic's hash times 31, made
     * positive, mod {@code n}), and a subtask without a partition never goes idle, so it would hold
     * an event-time watermark back for ever. Topics of one partition each may all land on one
     * subtask; then 1.
     */
    public static int readersWithAPartitionEach(List<TopicPartition> partitions, int max) {
        for (int n = Math.min(max, partitions.size()); n > 1; n--) {
            boolean[] owns = new boolean[n];
            int owners = 0;
            for (TopicPartition tp : partitions) {
                int first = ((tp.topic().hashCode() * 31) & Integer.MAX_VALUE) % n;
                int owner = (first + tp.partition()) % n;
                if (!owns[owner]) {
                    owns[owner] = true;
                    owners++;
                }
            }
            if (owners == n) {
                return n;
            }
        }
        return 1;
    }

    private static Properties consumerProperties(Map<String, String> userProperties) {
        Properties props = new Properties();
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.setProperty(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        props.setProperty("partition.discovery.interval.ms", "30000");
        props.putAll(userProperties);
        return props;
    }

    private static OffsetsInitializer offsets(StartFrom start) {
        return switch (start) {
            case earliest -> OffsetsInitializer.earliest();
            case latest -> OffsetsInitializer.latest();
            case committed -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
        };
    }

    /**
     * Writes {@link KafkaOut} records to their topics in transactions committed with each
     * checkpoint.
     *
     * @param topics the topic of each {@link KafkaOut#target() target}; null where none
     * @param maxRecordBytes the largest record the job may write (the producer's {@code
     *     max.request.size}, at least Kafka's default 1 MiB)
     */
    public static KafkaSink<KafkaOut> sink(
            String bootstrapServers,
            String[] topics,
            String transactionalIdPrefix,
            int maxRecordBytes,
            Map<String, String> userProperties) {
        Properties props = new Properties();
        props.setProperty(
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
                Integer.toString(Math.max(1 << 20, maxRecordBytes)));
        props.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.setProperty(ProducerConfig.LINGER_MS_CONFIG, "10");
        props.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(1 << 20));
        props.setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS);
        props.putAll(userProperties);
        return KafkaSink.<KafkaOut>builder()
                .setBootstrapServers(bootstrapServers)
                .setKafkaProducerConfig(props)
                .setRecordSerializer(new KafkaOutSchema(topics))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(transactionalIdPrefix)
                .build();
    }

    /**
     * Reads the control topic (pipeline specs, one per record) from its beginning when the job has
     * no restored state, committed records only.
     */
    public static KafkaSource<ControlMessage> controlSource(
            String bootstrapServers,
            String topic,
            String groupId,
            Map<String, String> userProperties) {
        Properties props = new Properties();
        props.setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.setProperty(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        props.putAll(userProperties);
        return KafkaSource.<ControlMessage>builder()
                .setBootstrapServers(bootstrapServers)
                .setTopics(topic)
                .setGroupId(groupId)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setDeserializer(new ControlRecordDeserializer())
                .setProperties(props)
                .build();
    }

    /**
     * Writes the cost reports (JSON strings, each keyed by its pipeline's name) to {@code topic},
     * at least once: a report is a measurement, and after a restore the cost model's totals start
     * again anyway.
     */
    public static KafkaSink<String> reportSink(
            String bootstrapServers, String topic, Map<String, String> userProperties) {
        Properties props = new Properties();
        props.putAll(userProperties);
        return KafkaSink.<String>builder()
                .setBootstrapServers(bootstrapServers)
                .setKafkaProducerConfig(props)
                .setRecordSerializer(new ReportSchema(topic))
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .build();
    }

    /** A report as a record of {@code topic}, keyed by its pipeline's name. */
    private static final class ReportSchema
            implements org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema<
                    String> {
        private static final long serialVersionUID = 1L;

        private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
                new com.fasterxml.jackson.databind.ObjectMapper();

        private final String topic;

        ReportSchema(String topic) {
            this.topic = topic;
        }

        @Override
        public org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]> serialize(
                String report, KafkaSinkContext context, Long timestamp) {
            String pipeline;
            try {
                pipeline = JSON.readTree(report).path("pipeline").asText();
            } catch (java.io.IOException e) {
                throw new IllegalStateException("a cost report is not JSON: " + e.getMessage(), e);
            }
            return new org.apache.kafka.clients.producer.ProducerRecord<>(
                    topic,
                    pipeline.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    report.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    /**
     * Writes the control-status records ({@link KafkaOut#STATUS}) to {@code topic} in transactions
     * committed with each checkpoint.
     */
    public static KafkaSink<KafkaOut> statusSink(
            String bootstrapServers,
            String topic,
            String transactionalIdPrefix,
            Map<String, String> userProperties) {
        String[] topics = new String[KafkaOut.KINDS];
        topics[KafkaOut.STATUS] = topic;
        return sink(bootstrapServers, topics, transactionalIdPrefix, 1 << 20, userProperties);
    }
}
