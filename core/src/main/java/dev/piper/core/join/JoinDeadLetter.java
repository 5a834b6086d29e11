package dev.piper.core.join;

/**
 * A record of the stream's label join that becomes no row and joins no impression, with why: the
 * dead-letter topic's record names its source, topic, partition and offset.
 *
 * @param source {@code impressions} or the action stream's name
 * @param sourceIndex 0 for the impressions, {@code 1 + s} for action stream {@code s}
 * @param partition the partition of its topic
 * @param offset its offset there
 * @param reason the reason code ({@code JoinReason}, {@code ReadReason} or a decoder's)
 * @param detail what the record was and why it was refused
 * @param raw its bytes, up to the dead letters' limit
 * @param truncated whether {@code raw} is cut short
 */
public record JoinDeadLetter(
        String source,
        int sourceIndex,
        int partition,
        long offset,
        String reason,
        String detail,
        byte[] raw,
        boolean truncated)
        implements JoinRead {}
