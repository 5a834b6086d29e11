package dev.piper.operators.decode;

import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.DenseChunk;
import dev.piper.pipeline.layout.Reason;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The counters of a decoding subtask, in its operator's metric group: {@value #LINES} (input lines
 * decoded), {@value #ROWS} (rows produced) and {@value #DEAD_LETTERS} (lines rejected), and the
 * dead letters per reason: {@value #DEAD_LETTERS_BY_REASON} in the group {@value #REASON} = the
 * reason's code (every code registered from the start, so a dashboard shows zeros rather than
 * gaps). Lines = rows + dead letters in every block, so the three always add up. Counted once per
 * block.
 */
public final class DecodeMetrics {

    public static final String LINES = "piperLinesDecoded";
    public static final String ROWS = "piperRowsDecoded";
    public static final String DEAD_LETTERS = "piperDeadLetters";

    /**
     * Dead letters of one reason (a name of its own: a sum of the metrics named {@value
     * #DEAD_LETTERS} over the REST API must not count them twice).
     */
    public static final String DEAD_LETTERS_BY_REASON = "piperDeadLettersByReason";

    /** The key of the group of a reason's dead-letter counter; its value is the reason's code. */
    public static final String REASON = "reason";

    private final Counter lines;
    private final Counter rows;
    private final Counter deadLetters;
    private final Map<String, Counter> byReason = new HashMap<>();
    private final MetricGroup group;

    public DecodeMetrics(MetricGroup group) {
        this.group = group;
        this.lines = group.counter(LINES);
        this.rows = group.counter(ROWS);
        this.deadLetters = group.counter(DEAD_LETTERS);
        for (Reason r : Reason.values()) {
            byReason.put(
                    r.code(), group.addGroup(REASON, r.code()).counter(DEAD_LETTERS_BY_REASON));
        }
    }

    /** Counts a decoded block. */
    public void count(DenseChunk block) {
        lines.inc(block.lines());
        rows.inc(block.rows());
        deadLetters.inc(block.lines() - block.rows());
        for (DeadLetter d : block.deadLetters()) { // a code not in Reason gets its own
            byReason.computeIfAbsent(
                            d.reason(),
                            code -> group.addGroup(REASON, code).counter(DEAD_LETTERS_BY_REASON))
                    .inc();
        }
    }
}
