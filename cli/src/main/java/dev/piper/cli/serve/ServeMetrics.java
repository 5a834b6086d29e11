package dev.piper.cli.serve;

import dev.piper.core.serve.Transform;
import dev.piper.pipeline.layout.RowLayout;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What {@code piper serve} has done, in Prometheus' text format: requests by status code, records,
 * rows, dead letters, unknown keys per column, the transform's time (a summary's sum and count),
 * and the transforms that failed.
 */
final class ServeMetrics {

    private final Map<Integer, AtomicLong> byCode = new ConcurrentHashMap<>();
    private final AtomicLong records = new AtomicLong();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong deadLetters = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();
    private final AtomicLong transforms = new AtomicLong();
    private final AtomicLongArray unknown;
    private final String[] columns;

    ServeMetrics(RowLayout layout) {
        columns = new String[layout.sparse()];
        for (int c = 0; c < columns.length; c++) {
            columns[c] = layout.fieldName(layout.labelDenseWidth() + c);
        }
        unknown = new AtomicLongArray(columns.length);
    }

    void status(int code) {
        byCode.computeIfAbsent(code, k -> new AtomicLong()).incrementAndGet();
    }

    void answered(Transform.Result result, long elapsedNanos) {
        records.addAndGet(result.block().lines());
        rows.addAndGet(result.block().rows());
        deadLetters.addAndGet(result.block().deadLetters().length);
        for (int c = 0; c < columns.length; c++) {
            unknown.addAndGet(c, result.unknown()[c]);
        }
        nanos.addAndGet(elapsedNanos);
        transforms.incrementAndGet();
    }

    void failed() {
        failures.incrementAndGet();
    }

    String text() {
        StringBuilder b = new StringBuilder();
        b.append("# HELP piper_serve_requests_total Requests answered, by HTTP status code.\n");
        b.append("# TYPE piper_serve_requests_total counter\n");
        for (Map.Entry<Integer, AtomicLong> e : new TreeMap<>(byCode).entrySet()) {
            b.append("piper_serve_requests_total{code=\"")
                    .append(e.getKey())
                    .append("\"} ")
                    .append(e.getValue().get())
                    .append('\n');
        }
        counter(b, "piper_serve_records_total", "Records received in answered requests.", records);
        counter(b, "piper_serve_rows_total", "Rows answered.", rows);
        counter(
                b,
                "piper_serve_dead_letters_total",
                "Records the feed would reject, answered as dead letters.",
                deadLetters);
        counter(
                b,
                "piper_serve_failures_total",
                "Transforms that failed unexpectedly (answered 500).",
                failures);
        b.append("# HELP piper_serve_unknown_keys_total Keys the vocabulary snapshot has no")
                .append(" entry for, by column.\n");
        b.append("# TYPE piper_serve_unknown_keys_total counter\n");
        for (int c = 0; c < columns.length; c++) {
            b.append("piper_serve_unknown_keys_total{column=\"")
                    .append(columns[c])
                    .append("\"} ")
                    .append(unknown.get(c))
                    .append('\n');
        }
        b.append("# HELP piper_serve_transform_seconds Time from a request's arrival to its")
                .append(" answer's encoding.\n");
        b.append("# TYPE piper_serve_transform_seconds summary\n");
        b.append("piper_serve_transform_seconds_sum ").append(nanos.get() / 1e9).append('\n');
        b.append("piper_serve_transform_seconds_count ").append(transforms.get()).append('\n');
        return b.toString();
    }

    private static void counter(StringBuilder b, String name, String help, AtomicLong value) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(" counter\n");
        b.append(name).append(' ').append(value.get()).append('\n');
    }
}
