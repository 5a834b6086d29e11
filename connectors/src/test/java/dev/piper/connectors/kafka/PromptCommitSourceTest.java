package dev.piper.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.LogRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PromptCommitSourceTest {

    /** Kafka's reader stand-in: records every call it receives, in order. */
    private static final class RecordingReader
            implements SourceReader<String, KafkaPartitionSplit> {

        final List<String> calls = new ArrayList<>();
        final CompletableFuture<Void> available = new CompletableFuture<>();

        @Override
        public void start() {
            calls.add("start");
        }

        @Override
        public InputStatus pollNext(ReaderOutput<String> output) {
            calls.add("pollNext");
            return InputStatus.MORE_AVAILABLE;
        }

        @Override
        public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
            calls.add("snapshotState " + checkpointId);
            return List.of(split("in", 0, 7));
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            calls.add("isAvailable");
            return available;
        }

        @Override
        public void addSplits(List<KafkaPartitionSplit> splits) {
            calls.add("addSplits " + splits.stream().map(KafkaPartitionSplit::splitId).toList());
        }

        @Override
        public void notifyNoMoreSplits() {
            calls.add("notifyNoMoreSplits");
        }

        @Override
        public void handleSourceEvents(SourceEvent event) {
            calls.add("handleSourceEvents");
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            calls.add("complete " + checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) {
            calls.add("aborted " + checkpointId);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> pause, Collection<String> resume) {
            calls.add("pause " + pause + " resume " + resume);
        }

        @Override
        public void close() {
            calls.add("close");
        }
    }

    /** A plain Kafka source of topic "in", the comparison for the wrapped one. */
    private static KafkaSourceBuilder<LogRecord> kafkaSource() {
        return KafkaSource.<LogRecord>builder()
                .setBootstrapServers("127.0.0.1:9")
                .setTopics("in")
                .setGroupId("group")
                .setDeserializer(new LogRecordDeserializer(Map.of("in", 0)));
    }

    private static KafkaPartitionSplit split(String topic, int partition, long offset) {
        return new KafkaPartitionSplit(new TopicPartition(topic, partition), offset);
    }

    /**
     * The job's source is Kafka's with its splits, enumerator state and their serializers (the
     * savepoint format) unchanged.
     */
    @Test
    void theSourceKeepsKafkasStateAndType() throws Exception {
        PromptCommitSource<LogRecord> source =
                KafkaConnectors.source(
                        "127.0.0.1:9",
                        List.of("in"),
                        Map.of("in", 0),
                        "group",
                        KafkaConnectors.StartFrom.earliest,
                        Map.of());
        var kafka = kafkaSource().build();

        assertThat(source.getBoundedness()).isEqualTo(kafka.getBoundedness());
        assertThat(source.getSplitSerializer())
                .isExactlyInstanceOf(kafka.getSplitSerializer().getClass());
        assertThat(source.getSplitSerializer().getVersion())
                .isEqualTo(kafka.getSplitSerializer().getVersion());
        KafkaPartitionSplit split = split("in", 1, 42);
        assertThat(source.getSplitSerializer().serialize(split))
                .isEqualTo(kafka.getSplitSerializer().serialize(split));
        assertThat(source.getEnumeratorCheckpointSerializer())
                .isExactlyInstanceOf(kafka.getEnumeratorCheckpointSerializer().getClass());
        assertThat(source.getEnumeratorCheckpointSerializer().getVersion())
                .isEqualTo(kafka.getEnumeratorCheckpointSerializer().getVersion());
        assertThat(source.getProducedType()).isEqualTo(kafka.getProducedType());
        assertThat(source.getLineageVertex().datasets()).hasSize(1);
    }

    @Test
    void aBoundedKafkaSourceIsRefused() {
        var bounded = kafkaSource().setBounded(OffsetsInitializer.latest()).build();

        assertThatThrownBy(() -> new PromptCommitSource<>(bounded))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("BOUNDED");
    }

    @Test
    void aCompletedCheckpointIsFollowedByResumingTheReadersSplits() throws Exception {
        RecordingReader kafka = new RecordingReader();
        var reader = new PromptCommitSource.Reader<>(kafka);
        reader.addSplits(List.of(split("in", 0, 0), split("in", 2, 0)));
        reader.addSplits(List.of(split("other", 1, 5)));
        kafka.calls.clear();

        reader.notifyCheckpointComplete(3);

        assertThat(kafka.calls)
                .containsExactly("complete 3", "pause [] resume [in-0, in-2, other-1]");
    }

    @Test
    void withoutSplitsNothingIsResumed() throws Exception {
        RecordingReader kafka = new RecordingReader();
        var reader = new PromptCommitSource.Reader<>(kafka);

        reader.notifyCheckpointComplete(1);

        assertThat(kafka.calls).containsExactly("complete 1");
    }

    @Test
    void splitsFlinkPausedStayPausedUntilFlinkResumesThem() throws Exception {
        RecordingReader kafka = new RecordingReader();
        var reader = new PromptCommitSource.Reader<>(kafka);
        reader.addSplits(List.of(split("in", 0, 0), split("in", 1, 0)));
        reader.pauseOrResumeSplits(List.of("in-1"), List.of());
        kafka.calls.clear();

        reader.notifyCheckpointComplete(4);
        reader.pauseOrResumeSplits(List.of(), List.of("in-1"));
        reader.notifyCheckpointComplete(5);

        assertThat(kafka.calls)
                .containsExactly(
                        "complete 4",
                        "pause [] resume [in-0]",
                        "pause [] resume [in-1]",
                        "complete 5",
                        "pause [] resume [in-0, in-1]");
    }

    @Test
    void everyOtherCallReachesKafkasReaderUnchanged() throws Exception {
        RecordingReader kafka = new RecordingReader();
        var reader = new PromptCommitSource.Reader<>(kafka);

        reader.start();
        assertThat(reader.pollNext(null)).isEqualTo(InputStatus.MORE_AVAILABLE);
        assertThat(reader.isAvailable()).isSameAs(kafka.available);
        assertThat(reader.snapshotState(9))
                .extracting(KafkaPartitionSplit::splitId)
                .containsExactly("in-0");
        reader.notifyNoMoreSplits();
        reader.handleSourceEvents(new SourceEvent() {});
        reader.notifyCheckpointAborted(8);
        reader.close();

        assertThat(kafka.calls)
                .containsExactly(
                        "start",
                        "pollNext",
                        "isAvailable",
                        "snapshotState 9",
                        "notifyNoMoreSplits",
                        "handleSourceEvents",
                        "aborted 8",
                        "close");
    }
}
