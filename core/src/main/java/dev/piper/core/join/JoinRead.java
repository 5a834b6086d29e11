package dev.piper.core.join;

/**
 * A record of the stream's label join as read from its topic: one to join ({@link JoinInput}) or
 * one that cannot ({@link JoinDeadLetter}).
 */
public sealed interface JoinRead permits JoinInput, JoinDeadLetter {

    /**
     * The event time of {@code r}, in milliseconds; {@link Long#MIN_VALUE} for a dead letter, which
     * has none (so it moves no watermark and holds no partition back).
     */
    static long eventTimeMs(JoinRead r) {
        return r instanceof JoinInput i ? i.timeMs() : Long.MIN_VALUE;
    }
}
