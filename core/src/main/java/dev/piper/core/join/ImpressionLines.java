package dev.piper.core.join;

import java.io.IOException;
import java.io.Serializable;

/**
 * The impressions' lines where the stream's label join read them, read back when a row is made of
 * one: with {@code --join-lines topic} the join holds an impression's position (partition, offset)
 * and not its line, and the lines are read again from the impressions' topic in the order the rows
 * go out ({@code docs/SEMANTICS.md}, "Label join"). One instance per subtask that reads lines.
 */
public interface ImpressionLines extends AutoCloseable {

    /**
     * The lines at {@code offsets} of {@code partition}, ascending and distinct, each as the join's
     * source read it ({@code LogRecord.oneLine}); null at an offset the topic no longer has (its
     * retention or compaction removed it).
     *
     * @throws IOException where the topic cannot be read: the message names it, the partition and
     *     offset, and the cause
     */
    byte[][] read(int partition, long[] offsets) throws IOException;

    @Override
    void close();

    /** Opens the lines on the subtask that reads them; serializable, to be shipped with the job. */
    interface Opener extends Serializable {
        ImpressionLines open();
    }
}
