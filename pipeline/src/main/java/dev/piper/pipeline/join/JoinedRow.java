package dev.piper.pipeline.join;

import java.util.Comparator;
import java.util.List;

/**
 * An impression with its labels, as the join emits it.
 *
 * @param impression the impression
 * @param emitTimeMs the event time the row is emitted at: when its labels are final (the first
 *     emission: the impression's time plus the longest {@link EmitPolicy#WAIT} window) or the
 *     positive copy's action arrived (but not before the first emission)
 * @param copyOf -1 for the first emission; for a positive copy of a {@link
 *     EmitPolicy#NEGATIVE_FIRST} stream, that stream's index
 * @param labels per action stream, its labels
 * @param weight the row's weight: {@code 1 / negativeSampleRate} for a kept negative, else 1
 * @param <T> the impression record's type
 */
public record JoinedRow<T>(
        Impression<T> impression,
        long emitTimeMs,
        int copyOf,
        List<StreamLabel> labels,
        double weight) {

    /**
     * The rows' order, the same in every run and however the logs are partitioned: by emission
     * time, then the impression's key, the first emission before its copies. Two rows of one
     * emission time and key are one impression's (two impressions of a key are more than the
     * longest window apart, else the later is a duplicate), so the order is total; the position
     * only breaks what could not tie.
     */
    public static final Comparator<JoinedRow<?>> ORDER =
            Comparator.<JoinedRow<?>>comparingLong(JoinedRow::emitTimeMs)
                    .thenComparing(r -> r.impression().key())
                    .thenComparingInt(JoinedRow::copyOf)
                    .thenComparing(r -> r.impression().position());

    public JoinedRow {
        labels = List.copyOf(labels);
    }
}
