package dev.piper.operators.block;

import java.util.Arrays;
import java.util.Objects;

/**
 * One rejected input line: where it was, why it was rejected, and its first bytes.
 *
 * @param line 1-based line number in the input
 * @param offset byte offset of the line's first byte in the input
 * @param reason a stable reason code, see {@code dev.piper.operators.decode.Reason}
 * @param detail a human-readable explanation naming the offending field
 * @param raw the line's first bytes (at most the decoder's raw limit), without the line break
 * @param rawTruncated whether {@code raw} was cut short
 */
public record DeadLetter(
        long line, long offset, String reason, String detail, byte[] raw, boolean rawTruncated) {

    public DeadLetter {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(raw, "raw");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeadLetter d
                && line == d.line
                && offset == d.offset
                && rawTruncated == d.rawTruncated
                && reason.equals(d.reason)
                && detail.equals(d.detail)
                && Arrays.equals(raw, d.raw);
    }

    @Override
    public int hashCode() {
        return Objects.hash(line, offset, reason, detail, Arrays.hashCode(raw), rawTruncated);
    }

    @Override
    public String toString() {
        return "DeadLetter{line=" + line + ", reason=" + reason + ", detail=" + detail + "}";
    }
}
