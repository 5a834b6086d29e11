package dev.piper.core.block;

import java.util.Arrays;
import java.util.Objects;

/**
 * One rejected input line: where it was, why it was rejected, and its first bytes.
 *
 * @param lineInBlock 0-based number of the line within its block; the in-order sink turns it into
 *     the line number in the input (a parallel reader of a byte range cannot know it)
 * @param offset byte offset of the line's first byte in the input
 * @param reason a stable reason code, see {@code dev.piper.pipeline.layout.Reason}
 * @param detail a human-readable explanation naming the offending field
 * @param raw the line's first bytes (at most the decoder's raw limit), without the line break
 * @param rawTruncated whether {@code raw} was cut short
 */
public record DeadLetter(
        int lineInBlock,
        long offset,
        String reason,
        String detail,
        byte[] raw,
        boolean rawTruncated) {

    public DeadLetter {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(raw, "raw");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeadLetter d
                && lineInBlock == d.lineInBlock
                && offset == d.offset
                && rawTruncated == d.rawTruncated
                && reason.equals(d.reason)
                && detail.equals(d.detail)
                && Arrays.equals(raw, d.raw);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                lineInBlock, offset, reason, detail, Arrays.hashCode(raw), rawTruncated);
    }

    @Override
    public String toString() {
        return "DeadLetter{lineInBlock="
                + lineInBlock
                + ", reason="
                + reason
                + ", detail="
                + detail
                + "}";
    }
}
