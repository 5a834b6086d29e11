package dev.piper.operators.decode;

import dev.piper.operators.block.DenseChunk;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The counters of a decoding subtask, in its operator's metric group: {@value #LINES} (input lines
 * decoded), {@value #ROWS} (rows produced) and {@value #DEAD_LETTERS} (lines rejected). Lines =
 * rows + dead letters in every block, so the three always add up. Counted once per block.
 */
public final class DecodeMetrics {

    public static final String LINES = "piperLinesDecoded";
    public static final String ROWS = "piperRowsDecoded";
    public static final String DEAD_LETTERS = "piperDeadLetters";

    private final Counter lines;
    private final Counter rows;
    private final Counter deadLetters;

    public DecodeMetrics(MetricGroup group) {
        this.lines = group.counter(LINES);
        this.rows = group.counter(ROWS);
        this.deadLetters = group.counter(DEAD_LETTERS);
    }

    /** Counts a decoded block. */
    public void count(DenseChunk block) {
        lines.inc(block.lines());
        rows.inc(block.rows());
        deadLetters.inc(block.lines() - block.rows());
    }
}
