package dev.piper.connectors.kafka;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;

/**
 * A {@link KafkaSource} whose readers commit a completed checkpoint's offsets to the consumer group
 * at once, not up to 10 s later.
 *
 * <p>Flink's Kafka reader (flink-connector-kafka 5.0.0-2.2) queues the commit behind its running
 * fetch, a consumer poll of up to 10 s, which on an idle input runs to its end (FLINK-40367 makes
 * the poll's timeout a setting in a later release). Until then the group's committed offsets, which
 * {@code --until-idle} and every lag monitor read, trail the job by up to 10 s once the input
 * stops. After each completed checkpoint this reader asks Kafka's reader to resume the splits it
 * holds: a no-op for the consumer (none is paused), which the split fetcher carries out by waking
 * the poll, and the queued commit runs next.
 *
 * <p>The source must be unbounded, as the job's is: its splits never finish, so every split resumed
 * here is still assigned to the consumer (resuming one it had released would fail the fetch).
 *
 * <p>Everything else is Kafka's source unchanged: the same enumerator (with a read-ahead bound,
 * wrapped to pass the readers' holds between them: {@link ReadAheadEnumerator}), splits,
 * serializers and state, so a savepoint of the plain source restores with the wrapper
 * (SavepointCompatibilityITCase restores one taken before it) and, the state being the same, the
 * other way round. The offsets committed to Kafka serve monitoring only; exactly-once rests on the
 * offsets in the checkpoint.
 */
public final class PromptCommitSource<T>
        implements Source<T, KafkaPartitionSplit, KafkaSourceEnumState>,
                ResultTypeQueryable<T>,
                LineageVertexProvider {

    private static final long serialVersionUID = 1L;

    /** How long a split must give nothing before it no longer holds back a split ahead of it. */
    static final long QUIET_MS = 1000;

    private final KafkaSource<T> kafka;
    private final ReadAheadReader.EventTime<T> time;
    private final long readAheadMs;

    /**
     * @param kafka an unbounded Kafka source without stopping offsets
     * @throws IllegalArgumentException if the source is bounded
     */
    public PromptCommitSource(KafkaSource<T> kafka) {
        this(kafka, null, 0);
    }

    /**
     * A source whose readers also keep their partitions within {@code readAheadMs} of each other in
     * event time ({@link ReadAheadReader}), each record's time as {@code time} reads it; 0: no
     * bound.
     */
    PromptCommitSource(KafkaSource<T> kafka, ReadAheadReader.EventTime<T> time, long readAheadMs) {
        if (kafka.getBoundedness() != Boundedness.CONTINUOUS_UNBOUNDED) {
            throw new IllegalArgumentException(
                    "prompt offset commits need an unbounded Kafka source, not "
                            + kafka.getBoundedness());
        }
        if (readAheadMs < 0 || (readAheadMs > 0 && time == null)) {
            throw new IllegalArgumentException(
                    "a read-ahead bound is 0 (none) or more ms with an event time, not "
                            + readAheadMs);
        }
        this.kafka = kafka;
        this.time = time;
        this.readAheadMs = readAheadMs;
    }

    @Override
    public Boundedness getBoundedness() {
        return kafka.getBoundedness();
    }

    @Override
    public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext context)
            throws Exception {
        Reader<T> prompt = new Reader<>(kafka.createReader(context));
        if (readAheadMs == 0) {
            return prompt;
        }
        ReadAheadReader<T, KafkaPartitionSplit> bounded =
                new ReadAheadReader<>(
                        prompt,
                        time,
                        readAheadMs,
                        QUIET_MS,
                        System::currentTimeMillis,
                        hold ->
                                context.sendSourceEventToCoordinator(
                                        new ReadAheadEnumerator.ReaderHold(hold)));
        context.metricGroup().gauge("readAheadPausedSplits", bounded::pausedHere);
        return bounded;
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context) throws Exception {
        return bounded(kafka.createEnumerator(context), context);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState checkpoint)
            throws Exception {
        return bounded(kafka.restoreEnumerator(context, checkpoint), context);
    }

    /**
     * Kafka's enumerator, which with a read-ahead bound also tells each reader the others' holds
     * ({@link ReadAheadEnumerator}); its state is Kafka's either way.
     */
    private SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> bounded(
            SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator,
            SplitEnumeratorContext<KafkaPartitionSplit> context) {
        return readAheadMs == 0 ? enumerator : new ReadAheadEnumerator<>(enumerator, context);
    }

    @Override
    public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
        return kafka.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
        return kafka.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return kafka.getProducedType();
    }

    @Override
    public LineageVertex getLineageVertex() {
        return kafka.getLineageVertex();
    }

    /**
     * Kafka's reader, woken after each completed checkpoint so that its offset commit runs. Package
     * private for its test.
     */
    static final class Reader<T> extends ForwardingReader<T, KafkaPartitionSplit> {

        /** The ids of the splits assigned to this reader. */
        private final Set<String> splits = new LinkedHashSet<>();

        /**
         * Those of them paused from outside (watermark alignment, read-ahead): never resumed here.
         */
        private final Set<String> paused = new LinkedHashSet<>();

        Reader(SourceReader<T, KafkaPartitionSplit> reader) {
            super(reader);
        }

        @Override
        public void addSplits(List<KafkaPartitionSplit> added) {
            reader.addSplits(added);
            for (KafkaPartitionSplit split : added) {
                splits.add(split.splitId());
            }
        }

        /**
         * Lets Kafka's reader queue the commit of the checkpoint's offsets, then wakes its fetch by
         * resuming the splits it holds and reads (the fetcher ignores ids it no longer holds).
         */
        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            reader.notifyCheckpointComplete(checkpointId);
            List<String> reading = splits.stream().filter(id -> !paused.contains(id)).toList();
            if (!reading.isEmpty()) {
                reader.pauseOrResumeSplits(List.of(), reading);
            }
        }

        @Override
        public void pauseOrResumeSplits(
                Collection<String> splitsToPause, Collection<String> splitsToResume) {
            reader.pauseOrResumeSplits(splitsToPause, splitsToResume);
            paused.addAll(splitsToPause);
            paused.removeAll(splitsToResume);
        }
    }
}
