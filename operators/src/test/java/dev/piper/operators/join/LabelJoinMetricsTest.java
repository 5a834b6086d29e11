package dev.piper.operators.join;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

/** The label join's metrics count what its join did, under the names the dashboard reads. */
class LabelJoinMetricsTest {

    /** A metric group that keeps what is registered by its path ({@code labelJoin.x}). */
    private static final class Recording extends UnregisteredMetricsGroup {
        final Map<String, Object> metrics;
        final String path;

        Recording(Map<String, Object> metrics, String path) {
            this.metrics = metrics;
            this.path = path;
        }

        @Override
        public MetricGroup addGroup(String name) {
            return new Recording(metrics, path + name + ".");
        }

        @Override
        public MetricGroup addGroup(String key, String value) {
            return new Recording(metrics, path + key + "." + value + ".");
        }

        @Override
        public Counter counter(String name) {
            SimpleCounter c = new SimpleCounter();
            metrics.put(path + name, c);
            return c;
        }

        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            metrics.put(path + name, gauge);
            return gauge;
        }

        @Override
        public <H extends Histogram> H histogram(String name, H histogram) {
            metrics.put(path + name, histogram);
            return histogram;
        }
    }

    @Test
    void countsRowsActionsDeadLettersByReasonHeldImpressionsAndDelays() {
        Map<String, Object> m = new TreeMap<>();
        LabelJoinMetrics metrics = new LabelJoinMetrics(new Recording(m, ""), 5);
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

        assertThat(count(m, "labelJoin.rows")).isEqualTo(2);
        assertThat(count(m, "labelJoin.sampledOut")).isEqualTo(1);
        assertThat(count(m, "labelJoin.actionsJoined")).isEqualTo(100);
        assertThat(count(m, "labelJoin.deadLetters")).isEqualTo(3);
        assertThat(count(m, "labelJoin.reason.late_action.deadLettersByReason")).isEqualTo(2);
        assertThat(count(m, "labelJoin.reason.orphan_action.deadLettersByReason")).isEqualTo(1);
        assertThat(count(m, "labelJoin.reason.duplicate_impression.deadLettersByReason")).isZero();
        assertThat(((Gauge<?>) m.get("labelJoin.impressionsHeld")).getValue()).isEqualTo(2L);
        Histogram delays = (Histogram) m.get("labelJoin.labelDelayMs");
        assertThat(delays.getCount()).isEqualTo(100);
        assertThat(delays.getStatistics().getMax()).isEqualTo(10_000);
        assertThat(delays.getStatistics().getQuantile(0.5)).isBetween(4_900.0, 5_100.0);
    }

    private static long count(Map<String, Object> m, String name) {
        assertThat(m).containsKey(name);
        return ((Counter) m.get(name)).getCount();
    }
}
