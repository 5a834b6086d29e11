package dev.piper.core.block;

import java.util.Arrays;

/**
 * Where a block's lines came from in a partitioned log (a Kafka topic partition); {@link #NONE} for
 * file input, whose lines are located by byte offset instead.
 *
 * <p>Record {@code i} of the block has log offset {@code offsets[i]} and its lines start at line
 * {@code firstLines[i]} of the block (a record may hold several lines; every record holds at least
 * one). The arrays have one entry per record, in log order.
 *
 * @param offsets log offset of each record, ascending
 * @param firstLines index within the block of each record's first line, ascending, from 0
 * @param firstTimestamp timestamp (ms) of the block's first record, or -1
 * @param lastTimestamp timestamp (ms) of the block's last record, or -1
 */
public record Origin(long[] offsets, int[] firstLines, long firstTimestamp, long lastTimestamp) {

    /** No log origin: the block was read from a file. */
    public static final Origin NONE = new Origin(new long[0], new int[0], -1, -1);

    public Origin {
        if (offsets.length != firstLines.length) {
            throw new IllegalArgumentException(
                    offsets.length + " offsets but " + firstLines.length + " first lines");
        }
    }

    /** Number of log records in the block. */
    public int records() {
        return offsets.length;
    }

    /** Whether the block came from a log (not a file). */
    public boolean isLog() {
        return offsets.length > 0;
    }

    /** The index of the record holding line {@code line} of the block. */
    public int recordOfLine(int line) {
        int i = Arrays.binarySearch(firstLines, line);
        if (i < 0) {
            i = -i - 2; // the record whose first line is the last one before {@code line}
        }
        if (i < 0) {
            throw new IllegalArgumentException("line " + line + " precedes the block's records");
        }
        return i;
    }

    /** The log offset of the record holding line {@code line} of the block. */
    public long offsetOfLine(int line) {
        return offsets[recordOfLine(line)];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Origin other
                && firstTimestamp == other.firstTimestamp
                && lastTimestamp == other.lastTimestamp
                && Arrays.equals(offsets, other.offsets)
                && Arrays.equals(firstLines, other.firstLines);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(offsets) + Arrays.hashCode(firstLines);
    }

    @Override
    public String toString() {
        return isLog()
                ? "Origin{offsets " + offsets[0] + ".." + offsets[offsets.length - 1] + "}"
                : "Origin{file}";
    }
}
