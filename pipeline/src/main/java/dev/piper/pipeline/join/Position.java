package dev.piper.pipeline.join;

import java.io.Serializable;

/**
 * Where a record of the join was read: it orders records of equal time, so that the rows' order and
 * a duplicate's choice depend on the logs only.
 *
 * @param source 0 for the impressions, {@code 1 + s} for action stream {@code s}
 * @param partition the partition (Kafka) or file (batch) of that source
 * @param offset the record's offset in its partition, or its number in its file
 */
public record Position(int source, int partition, long offset)
        implements Comparable<Position>, Serializable {

    @Override
    public int compareTo(Position o) {
        int c = Integer.compare(source, o.source);
        if (c == 0) {
            c = Integer.compare(partition, o.partition);
        }
        return c != 0 ? c : Long.compare(offset, o.offset);
    }

    @Override
    public String toString() {
        return source + "/" + partition + "@" + offset;
    }
}
