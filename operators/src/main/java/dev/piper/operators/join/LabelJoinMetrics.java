package dev.piper.operators.join;

import dev.piper.pipeline.join.JoinReason;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The stream's label join's metrics, in group {@value #GROUP} of the join's operator ({@code
 * monitoring/grafana-dashboard.json}, "Label join"): rows emitted and sampled out, actions joined,
 * dead letters (in all and by {@value #REASON}), the impressions the subtask's keyed state holds
 * (waiting for their windows, or remembered for the retention after), and the label delay (an
 * action's time less its impression's) of the latest joined actions.
 */
public final class LabelJoinMetrics {

    public static final String GROUP = "labelJoin";
    public static final String ROWS = "rows";
    public static final String SAMPLED_OUT = "sampledOut";
    public static final String ACTIONS_JOINED = "actionsJoined";
    public static final String DEAD_LETTERS = "deadLetters";

    /** Dead letters of one reason, a name of their own (a sum over names counts them once). */
    public static final String DEAD_LETTERS_BY_REASON = "deadLettersByReason";

    /** The key of a reason's group; its value the reason's code. */
    public static final String REASON = "reason";

    /** Impressions in keyed state: waiting for their windows, or remembered for the retention. */
    public static final String IMPRESSIONS_HELD = "impressionsHeld";

    public static final String LABEL_DELAY_MS = "labelDelayMs";

    /** How many of the latest delays the histogram's quantiles are of. */
    static final int DELAY_WINDOW = 10_000;

    private final Counter rows;
    private final Counter sampledOut;
    private final Counter actionsJoined;
    private final Counter deadLetters;
    private final Map<String, Counter> byReason = new HashMap<>();
    private final Histogram labelDelay;
    private long held;

    /** The metrics in {@code operator}'s group {@value #GROUP}, {@code held} impressions held. */
    public LabelJoinMetrics(MetricGroup operator, long held) {
        MetricGroup g = operator.addGroup(GROUP);
        rows = g.counter(ROWS);
        sampledOut = g.counter(SAMPLED_OUT);
        actionsJoined = g.counter(ACTIONS_JOINED);
        deadLetters = g.counter(DEAD_LETTERS);
        for (JoinReason r : JoinReason.values()) {
            byReason.put(r.code(), g.addGroup(REASON, r.code()).counter(DEAD_LETTERS_BY_REASON));
        }
        labelDelay = g.histogram(LABEL_DELAY_MS, new DescriptiveStatisticsHistogram(DELAY_WINDOW));
        this.held = held;
        g.gauge(IMPRESSIONS_HELD, (Gauge<Long>) this::impressionsHeld);
    }

    void row() {
        rows.inc();
    }

    void sampledOut() {
        sampledOut.inc();
    }

    /** An action joined its impression {@code delayMs} after it. */
    void joined(long delayMs) {
        actionsJoined.inc();
        labelDelay.update(delayMs);
    }

    /** A dead letter of the join's reason {@code code}. */
    void deadLetter(String code) {
        deadLetters.inc();
        Counter c = byReason.get(code);
        if (c != null) {
            c.inc();
        }
    }

    /** The impressions held in the subtask's state grew by {@code delta} (or shrank). */
    void held(long delta) {
        held += delta;
    }

    /** The impressions held in the subtask's state (its share, after a rescale: see the join). */
    long impressionsHeld() {
        return held;
    }
}
