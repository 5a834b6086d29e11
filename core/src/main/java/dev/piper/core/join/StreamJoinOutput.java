package dev.piper.core.join;

import dev.piper.pipeline.join.Action;
import dev.piper.pipeline.join.Impression;
import dev.piper.pipeline.join.JoinOutput;
import dev.piper.pipeline.join.JoinReason;
import dev.piper.pipeline.join.JoinedRow;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.join.Position;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Map;

/**
 * Where a key's join of the stream puts its outcomes: rows as labelled lines ({@link JoinedLine}),
 * refused records as {@link JoinDeadLetter}s with the batch join's details, and the counts. An
 * impression whose payload is empty is held by its position only ({@link
 * StreamJoinReader#IN_TOPIC}): its row carries the labels alone, and its dead letter no bytes, both
 * read back from the topic downstream.
 */
public final class StreamJoinOutput {

    /** What the stream does with the outcomes. */
    public interface Sink {
        void row(JoinedLine row);

        void deadLetter(JoinDeadLetter d);

        /** An action of stream {@code stream} joined an impression {@code delayMs} after it. */
        void joined(int stream, long delayMs);

        /** An impression's negative row was sampled out. */
        void sampledOut();
    }

    private final LabelSpec labels;
    private final LabelledLine labelled;
    private final int maxRawBytes;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(1024);

    public StreamJoinOutput(LabelSpec labels, int maxRawBytes) {
        this.labels = labels;
        this.labelled = new LabelledLine(labels.streamNames());
        this.maxRawBytes = maxRawBytes;
    }

    /**
     * The output of one key's join: {@code pending} holds the actions that wait for the watermark
     * by position (an action leaves it as it joins or is refused).
     */
    public JoinOutput<byte[]> of(Map<Position, JoinInput> pending, Sink sink) {
        return new JoinOutput<>() {
            @Override
            public void row(JoinedRow<byte[]> row) {
                Impression<byte[]> m = row.impression();
                line.reset();
                boolean inTopic = m.payload().length == 0;
                if (inTopic) {
                    labelled.writeLabels(row, line);
                } else {
                    labelled.writeObject(m.payload(), m.payload().length, row, line);
                }
                sink.row(
                        new JoinedLine(
                                row.emitTimeMs(),
                                m.key(),
                                row.copyOf(),
                                m.position().partition(),
                                m.position().offset(),
                                line.toByteArray(),
                                inTopic));
            }

            @Override
            public void sampledOut(Impression<byte[]> impression) {
                sink.sampledOut();
            }

            @Override
            public void rejected(Impression<byte[]> m, JoinReason reason) {
                byte[] raw = m.payload();
                int keep = Math.min(raw.length, maxRawBytes);
                sink.deadLetter(
                        new JoinDeadLetter(
                                "impressions",
                                0,
                                m.position().partition(),
                                m.position().offset(),
                                reason.code(),
                                JoinDetails.of(
                                        reason, m.key(), m.timeMs(), m.watermark(), labels.join()),
                                Arrays.copyOf(raw, keep),
                                keep < raw.length));
            }

            @Override
            public void joined(Action action, Impression<byte[]> impression) {
                pending.remove(action.position());
                sink.joined(action.stream(), action.timeMs() - impression.timeMs());
            }

            @Override
            public void rejected(Action a, JoinReason reason) {
                JoinInput read = pending.remove(a.position());
                sink.deadLetter(
                        new JoinDeadLetter(
                                labels.streamNames().get(a.stream()),
                                1 + a.stream(),
                                a.position().partition(),
                                a.position().offset(),
                                reason.code(),
                                JoinDetails.of(
                                        reason, a.key(), a.timeMs(), a.watermark(), labels.join()),
                                read == null ? new byte[0] : read.bytes(),
                                read != null && read.truncated()));
            }
        };
    }

    /** The join's view of an impression read. */
    public static Impression<byte[]> impression(JoinInput r) {
        return new Impression<>(
                r.key(),
                r.timeMs(),
                new Position(0, r.partition(), r.offset()),
                r.watermark(),
                r.bytes());
    }

    /** The join's view of an action read. */
    public static Action action(JoinInput r) {
        return new Action(
                r.stream(),
                r.key(),
                r.timeMs(),
                r.id(),
                r.value(),
                new Position(1 + r.stream(), r.partition(), r.offset()),
                r.watermark());
    }
}
