package dev.piper.operators.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.operators.RecordingMetricGroup;
import org.apache.flink.metrics.Histogram;
import org.junit.jupiter.api.Test;

/** The label join's metrics count what its join did, under the names the dashboard reads. */
class LabelJoinMetricsTest {

    @Test
    void countsRowsActionsDeadLettersByReasonHeldImpressionsAndDelays() {
        RecordingMetricGroup m = new RecordingMetricGroup();
        LabelJoinMetrics metrics = new LabelJoinMetrics(m, 5);
        metrics.row();
        metrics.row();
        metrics.sampledOut();
        for (long delay = 1; delay <= 100; delay++) {
            metrics.joined(delay * 100);
        }
        metrics.deadLetter("late_action");
        metrics.deadLetter("late_action");
        metrics.deadLetter("orphan_action");
        metrics.held(3);
        metrics.held(-6);

        assertThat(m.count("labelJoin.rows")).isEqualTo(2);
        assertThat(m.count("labelJoin.sampledOut")).isEqualTo(1);
        assertThat(m.count("labelJoin.actionsJoined")).isEqualTo(100);
        assertThat(m.count("labelJoin.deadLetters")).isEqualTo(3);
        assertThat(m.count("labelJoin.reason.late_action.deadLettersByReason")).isEqualTo(2);
        assertThat(m.count("labelJoin.reason.orphan_action.deadLettersByReason")).isEqualTo(1);
        assertThat(m.count("labelJoin.reason.duplicate_impression.deadLettersByReason")).isZero();
        assertThat(m.value("labelJoin.impressionsHeld")).isEqualTo(2L);
        Histogram delays = m.histogram("labelJoin.labelDelayMs");
        assertThat(delays.getCount()).isEqualTo(100);
        assertThat(delays.getStatistics().getMax()).isEqualTo(10_000);
        assertThat(delays.getStatistics().getQuantile(0.5)).isBetween(4_900.0, 5_100.0);
    }
}
