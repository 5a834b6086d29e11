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
 *     build may end in one)
 */
public record JoinedLine(
        long emitTimeMs, String key, int copyOf, int partition, long offset, byte[] line) {

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
