package dev.piper.operators;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/**
 * A metric group for tests that keeps what is registered by its path: a group's name, or a
 * key-value group's key and value, then the metric's name, dot-separated ({@code
 * labelJoin.reason.late_action.deadLettersByReason}).
 */
public final class RecordingMetricGroup extends UnregisteredMetricsGroup {

    private final Map<String, Object> metrics;
    private final String path;

    public RecordingMetricGroup() {
        this(new TreeMap<>(), "");
    }

    private RecordingMetricGroup(Map<String, Object> metrics, String path) {
        this.metrics = metrics;
        this.path = path;
    }

    @Override
    public MetricGroup addGroup(String name) {
        return new RecordingMetricGroup(metrics, path + name + ".");
    }

    @Override
    public MetricGroup addGroup(String key, String value) {
        return new RecordingMetricGroup(metrics, path + key + "." + value + ".");
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

    /** The count of the counter registered at {@code path}, which must be there. */
    public long count(String path) {
        assertThat(metrics).containsKey(path);
        return ((Counter) metrics.get(path)).getCount();
    }

    /** The value of the gauge registered at {@code path}. */
    public Object value(String path) {
        assertThat(metrics).containsKey(path);
        return ((Gauge<?>) metrics.get(path)).getValue();
    }

    /** The histogram registered at {@code path}. */
    public Histogram histogram(String path) {
        assertThat(metrics).containsKey(path);
        return (Histogram) metrics.get(path);
    }
}
