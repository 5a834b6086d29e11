package dev.piper.job;

import dev.piper.connectors.kafka.JoinDeadLetterEncoder;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.LogRecord;
import dev.piper.core.join.ImpressionLines;
import dev.piper.core.join.JoinInput;
import dev.piper.core.join.JoinRead;
import dev.piper.core.join.JoinedLine;
import dev.piper.operators.block.BlockTypes;
import dev.piper.operators.join.JoinOrderOperator;
import dev.piper.operators.join.JoinRecordSerializers;
import dev.piper.operators.join.JoinStampFunction;
import dev.piper.operators.join.KeyJoinOperator;
import dev.piper.pipeline.join.LabelSpec;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The stream's label join, in front of its pipeline ({@code docs/SEMANTICS.md}, "Label join"):
 *
 * <pre>
 * join source (impressions' and actions' topics; each record read, its event time the watermark's
 *   per partition)   -> stamp: its partition's watermark as read            (chained, parallel)
 *   -> keyBy(join key) -> key join: keyed state, advanced as the watermark passes (parallel)
 *   -> order: the rows in the batch join's order as the watermark passes, each impression's
 *      line read back from its topic where the join held its position   (parallelism 1)
 *   -> the pipeline's one lane
 * dead letters of the read and of the join -> the pipeline's dead-letter topic
 * </pre>
 *
 * @param rows the labelled impressions, as the records of the pipeline's one lane
 * @param deadLetters the records that cannot join, as dead-letter records
 */
record LabelJoinGraph(
        SingleOutputStreamOperator<LogRecord> rows, DataStream<KafkaOut> deadLetters) {

    /**
     * The join of {@code source}'s records under {@code labels}; a dead letter keeps {@code
     * maxRawBytes} of its record; {@code topics} are the sources' topics, the impressions' first;
     * {@code readers} subtasks read them (0: the job's parallelism); {@code lines} opens the
     * impressions' lines where the join held an impression by its position, for the rows, and
     * {@code deadLetterLines} for the refused impressions' dead letters.
     */
    /**
     * How often the join's source hands on its watermark, where the Flink configuration does not
     * say ({@code pipeline.auto-watermark-interval}, 200 ms by default): a row is decided when the
     * watermark passes its window's close, so each row waits half an interval on average. At 50 ms
     * the rows of 50,000 impressions/s were written 0.44 s after their decision at the median,
     * against 0.55 to 0.59 s at 200 ms ({@code docs/PERFORMANCE.md}, "Label freshness").
     */
    static final long WATERMARK_INTERVAL_MS = 50;

    static LabelJoinGraph of(
            StreamExecutionEnvironment env,
            Source<JoinRead, ?, ?> source,
            LabelSpec labels,
            int maxRawBytes,
            String[] topics,
            int readers,
            ImpressionLines.Opener lines,
            ImpressionLines.Opener deadLetterLines) {
        long bound = labels.join().maxOutOfOrdernessMs();
        if (env.getConfiguration().getOptional(PipelineOptions.AUTO_WATERMARK_INTERVAL).isEmpty()) {
            env.getConfig().setAutoWatermarkInterval(WATERMARK_INTERVAL_MS);
        }
        WatermarkStrategy<JoinRead> watermarks =
                WatermarkStrategy.<JoinRead>forBoundedOutOfOrderness(Duration.ofMillis(bound))
                        .withTimestampAssigner(new JoinTimes());
        DataStreamSource<JoinRead> in =
                env.fromSource(
                        source, watermarks, "label-join-input", JoinRecordSerializers.JOIN_READ);
        in.uid("label-join-input");
        SingleOutputStreamOperator<JoinInput> read =
                in.process(new JoinStampFunction(bound), JoinRecordSerializers.JOIN_INPUT)
                        .name("label-join-read")
                        .uid("label-join-read");
        if (readers > 0) {
            // the source and the stamp chained, as many subtasks as the topics have partitions
            in.setParallelism(readers);
            read.setParallelism(readers);
        }
        SingleOutputStreamOperator<JoinedLine> joined =
                read.keyBy(new ByJoinKey(), Types.STRING)
                        .transform(
                                "label-join",
                                JoinRecordSerializers.JOINED_LINE,
                                new KeyJoinOperator(labels, maxRawBytes))
                        .uid("label-join");
        SingleOutputStreamOperator<LogRecord> rows =
                joined.transform(
                                "label-join-order",
                                BlockTypes.LOG_RECORD,
                                new JoinOrderOperator(lines))
                        .setParallelism(1)
                        .uid("label-join-order");
        DataStream<KafkaOut> dead =
                read.getSideOutput(JoinStampFunction.DEAD_LETTERS)
                        .union(
                                joined.getSideOutput(KeyJoinOperator.DEAD_LETTERS),
                                rows.getSideOutput(JoinOrderOperator.DEAD_LETTERS))
                        .map(
                                new JoinDeadLetterEncoder(topics, deadLetterLines, maxRawBytes),
                                BlockTypes.KAFKA_OUT)
                        .name("label-join-dead-letters")
                        .uid("label-join-dead-letters");
        return new LabelJoinGraph(rows, dead);
    }

    /** A join record's event time; a dead letter's is none, so it moves no watermark. */
    static final class JoinTimes implements SerializableTimestampAssigner<JoinRead> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(JoinRead r, long recordTimestamp) {
            return JoinRead.eventTimeMs(r);
        }
    }

    /** Keys a join record by its join key. */
    static final class ByJoinKey implements KeySelector<JoinInput, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(JoinInput r) {
            return r.key();
        }
    }
}
