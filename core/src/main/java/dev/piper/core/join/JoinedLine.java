package dev.piper.core.join;

import java.util.Comparator;

/**
 * One row of the stream's label join: the impression's line with its labels ({@link LabelledLine}),
 * and what orders it among the rows of every key ({@code JoinedRow.ORDER}).
 *
 * @param emitTimeMs the event time the row is emitted at
 * @param key the impression's key
 * @param copyOf -1 for the first emission, else the stream whose positive copy it is
 * @param partition the impression's partition
 * @param offset the impression's offset there
 * @param line the labelled line, without a line break (one restored from a checkpoint of an earlier
 *     build may end in one); or, if {@code labelsOnly}, only its labels member {@code
 *     "labels":{...}}
 * @param labelsOnly whether the impression's line is not here but in its topic at {@code partition}
 *     and {@code offset}, to be read back ({@link ImpressionLines}) and {@link #spliceInto spliced}
 *     with the labels when the row goes out
 */
public record JoinedLine(
        long emitTimeMs,
        String key,
        int copyOf,
        int partition,
        long offset,
        byte[] line,
        boolean labelsOnly) {

    /** A row with its whole line. */
    public JoinedLine(
            long emitTimeMs, String key, int copyOf, int partition, long offset, byte[] line) {
        this(emitTimeMs, key, copyOf, partition, offset, line, false);
    }

    /**
     * The labelled line of a {@link #labelsOnly} row, its impression's {@code impressionLine} read
     * back: byte for byte what the join would have made holding the line; null if that line holds
     * no JSON object (its topic no longer has what the join read).
     */
    public byte[] spliceInto(byte[] impressionLine) {
        if (!labelsOnly) {
            throw new IllegalStateException("row " + key + " has its line already");
        }
        return LabelledLine.splice(impressionLine, line);
    }

    /**
     * The order of {@code JoinedRow.ORDER}: emission time, key, copy, position. Written out rather
     * than chained from key extractors: the stream's order lane sorts every row with it.
     */
    public static final Comparator<JoinedLine> ORDER = JoinedLine::compare;

    private static int compare(JoinedLine a, JoinedLine b) {
        if (a.emitTimeMs != b.emitTimeMs) {
            return a.emitTimeMs < b.emitTimeMs ? -1 : 1;
        }
        int c = a.key.compareTo(b.key);
        if (c != 0) {
            return c;
        }
        if (a.copyOf != b.copyOf) {
            return Integer.compare(a.copyOf, b.copyOf);
        }
        if (a.partition != b.partition) {
            return Integer.compare(a.partition, b.partition);
        }
        return Long.compare(a.offset, b.offset);
    }
}
