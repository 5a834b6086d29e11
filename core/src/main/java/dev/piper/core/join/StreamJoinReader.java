package dev.piper.core.join;

import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.LogRecord;
import dev.piper.core.block.Origin;
import dev.piper.core.block.RawChunk;
import dev.piper.core.decode.BlockDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.core.decode.JsonEventDecoder;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.join.LabelFields;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.ops.DecodeOptions;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the records of the stream's label join as {@link BatchLabelJoin} reads its files' lines: an
 * impression decoded as the job decodes it, then its key; an action's fields by path. A record that
 * cannot join is a {@link JoinDeadLetter} with the batch join's reason and detail. The stream reads
 * in its Kafka source, so that each record's event time drives its partition's watermark; {@link
 * PartitionTimes} then stamps it. Not thread-safe; one per reading subtask.
 */
public final class StreamJoinReader {

    /**
     * An impression's bytes when the join holds its position and not its line ({@code --join-lines
     * topic}): the line stays in its topic, read back when its row is made ({@link
     * ImpressionLines}). A line the join reads is never empty (the decoder refuses one).
     */
    public static final byte[] IN_TOPIC = new byte[0];

    private final LabelSpec labels;
    private final DecodeOptions options;
    private final BlockDecoder decoder;

    /**
     * The decoder, which reads one impression without making a block of it ({@link
     * JsonEventDecoder#rowTime}), and its key as it goes ({@link JsonEventDecoder#keyStart}) on the
     * fast path: the impressions are JSON. Jackson's reading of the key ({@link ImpressionKeys}),
     * the reference, took a quarter of the source thread's time when every impression had it
     * ({@code docs/PERFORMANCE.md}, "The label join").
     */
    private final JsonEventDecoder json;

    private final ImpressionKeys keys;
    private final ActionFields[] actions;
    private final int impressionLimit;
    private final boolean linesInTopic;
    private long seq;

    /**
     * @param linesInTopic whether an impression goes to the join with its position only, its bytes
     *     {@link #IN_TOPIC}; else with its line
     */
    public StreamJoinReader(LabelSpec labels, DecodeOptions options, boolean linesInTopic) {
        this(labels, options, true, linesInTopic);
    }

    /**
     * A reader whose impressions' keys are all read by Jackson when {@code fastKey} is false: the
     * reference the fast path's keys are tested against.
     */
    StreamJoinReader(
            LabelSpec labels, DecodeOptions options, boolean fastKey, boolean linesInTopic) {
        this.linesInTopic = linesInTopic;
        this.labels = labels;
        this.options = options;
        if (fastKey && options.events() != null && options.events().format() == InputFormat.JSON) {
            // one decoder for both: its blocks are what the plain decoder's would be, the fast
            // path leaving to Jackson, the reference, whatever it does not read itself
            this.json =
                    JsonEventDecoder.withJoinKey(
                            options, FieldPath.parse(labels.key()), LabelFields.OBJECT);
            this.decoder = json;
        } else {
            this.decoder = BlockDecoder.of(options, false);
            this.json = decoder instanceof JsonEventDecoder plain ? plain : null;
        }
        this.keys = new ImpressionKeys(labels);
        this.actions = new ActionFields[labels.sources().size()];
        for (int s = 0; s < actions.length; s++) {
            actions[s] = new ActionFields(labels.sources().get(s));
        }
        this.impressionLimit =
                options.maxLineBytes() - new LabelledLine(labels.streamNames()).extraBytes();
    }

    /**
     * Reads one record of source {@code source} (0: the impressions, {@code 1 + s}: action stream
     * {@code s}): the record to join (its watermark not yet stamped: {@link PartitionTimes}), or
     * the dead letter of one that cannot join.
     */
    public JoinRead read(int source, int partition, long offset, byte[] value) {
        return source == 0
                ? impression(partition, offset, LogRecord.oneLine(value))
                : action(source - 1, partition, offset, value);
    }

    private JoinRead impression(int partition, long offset, byte[] line) {
        if (line.length > impressionLimit) {
            return refuse(
                    0,
                    partition,
                    offset,
                    line,
                    Reason.LINE_TOO_LONG.code(),
                    JoinDetails.tooLong(
                            line.length,
                            options.maxLineBytes(),
                            options.maxLineBytes() - impressionLimit));
        }
        long t = json == null ? Long.MIN_VALUE : json.rowTime(line, 0, line.length);
        if (t == Long.MIN_VALUE) { // refused, or no JSON decoder: a block of the line says why
            byte[] data = Arrays.copyOf(line, line.length + 1);
            data[line.length] = '\n';
            CriteoDecoder.Decoded d =
                    decoder.decode(
                            new RawChunk(0, seq++, 0, data, data.length, -1, Origin.NONE), false);
            DeadLetter[] rejected = d.dense().deadLetters();
            if (rejected.length > 0) {
                return refuse(
                        0, partition, offset, line, rejected[0].reason(), rejected[0].detail());
            }
            t = d.dense().eventTimes()[0];
        }
        int ks = json == null ? -1 : json.keyStart();
        String k =
                ks >= 0
                        ? new String(line, ks, json.keyEnd() - ks, StandardCharsets.ISO_8859_1)
                        : keys.read(line, 0, line.length);
        if (k == null) {
            return refuse(0, partition, offset, line, keys.reason(), keys.detail());
        }
        return new JoinInput(
                -1,
                k,
                t,
                partition,
                offset,
                Long.MIN_VALUE,
                null,
                0,
                linesInTopic ? IN_TOPIC : line,
                false);
    }

    private JoinRead action(int stream, int partition, long offset, byte[] value) {
        int source = 1 + stream;
        if (value.length > options.maxLineBytes()) {
            return refuse(
                    source,
                    partition,
                    offset,
                    value,
                    Reason.LINE_TOO_LONG.code(),
                    JoinDetails.tooLong(value.length, options.maxLineBytes(), 0));
        }
        ActionFields.Read r = actions[stream].read(value);
        if (r.reason() != null) {
            return refuse(source, partition, offset, value, r.reason(), r.detail());
        }
        int keep = Math.min(value.length, options.maxRawBytes());
        return new JoinInput(
                stream,
                r.key(),
                r.timeMs(),
                partition,
                offset,
                Long.MIN_VALUE,
                r.id(),
                r.value(),
                keep == value.length ? value : Arrays.copyOf(value, keep),
                keep < value.length);
    }

    private JoinDeadLetter refuse(
            int source, int partition, long offset, byte[] raw, String reason, String detail) {
        int keep = Math.min(raw.length, options.maxRawBytes());
        return new JoinDeadLetter(
                source == 0 ? "impressions" : labels.streamNames().get(source - 1),
                source,
                partition,
                offset,
                reason,
                detail,
                Arrays.copyOf(raw, keep),
                keep < raw.length);
    }
}
