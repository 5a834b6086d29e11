package dev.piper.feed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * End-to-end figures of a stream's committed output, taken by its consumer ({@code piper consume
 * --stats}): the latency from an input record's timestamp to the moment its row is read from the
 * output topic ({@code read_committed}, hence after the commit), and the output rate.
 *
 * <p>A rows record names the timestamps of its block's first and last input record only; the rows
 * between are given timestamps spread evenly over that span (exact for input produced at a steady
 * rate). Latencies go into a histogram of 1 ms buckets up to ten minutes (later ones share the last
 * bucket): a plain array, as exact percentiles need nothing more.
 */
public final class DeliveryStats {

    private static final int MAX_MS = 600_000;
    private static final Pattern SPAN = Pattern.compile("([0-9]+)-([0-9]+)");

    private final long[] histogram = new long[MAX_MS + 1];
    private long rows;
    private long firstOutputTimestamp = Long.MAX_VALUE;
    private long lastOutputTimestamp = Long.MIN_VALUE;

    /** Rows per second of output record timestamp and pipeline version ({@code piper.pipeline}). */
    private final TreeMap<Long, TreeMap<String, Long>> perSecond = new TreeMap<>();

    /** Records the rows of one rows record, read at {@code readMillis}. */
    void add(ConsumerRecord<byte[], byte[]> r, int rowCount, long readMillis) {
        firstOutputTimestamp = Math.min(firstOutputTimestamp, r.timestamp());
        lastOutputTimestamp = Math.max(lastOutputTimestamp, r.timestamp());
        Header pipeline = r.headers().lastHeader(RowsRecord.PIPELINE);
        perSecond
                .computeIfAbsent(Math.floorDiv(r.timestamp(), 1000), s -> new TreeMap<>())
                .merge(
                        pipeline == null
                                ? "?"
                                : new String(pipeline.value(), StandardCharsets.US_ASCII),
                        (long) rowCount,
                        Long::sum);
        Header h = r.headers().lastHeader(RowsRecord.INPUT_TIMESTAMPS);
        if (h == null || rowCount == 0) {
            return;
        }
        Matcher span = SPAN.matcher(new String(h.value(), StandardCharsets.US_ASCII));
        if (!span.matches()) {
            return;
        }
        long first = Long.parseLong(span.group(1));
        long last = Long.parseLong(span.group(2));
        for (int i = 0; i < rowCount; i++) {
            long ts = rowCount == 1 ? first : first + (last - first) * i / (rowCount - 1);
            long latency = Math.max(0, readMillis - ts);
            histogram[(int) Math.min(latency, MAX_MS)]++;
        }
        rows += rowCount;
    }

    /** Rows with a latency. */
    public long rows() {
        return rows;
    }

    /** The latency (ms) below which a fraction {@code q} of the rows fall. */
    public long percentile(double q) {
        if (rows == 0) {
            return -1;
        }
        long rank = (long) Math.ceil(q * rows);
        long seen = 0;
        for (int ms = 0; ms <= MAX_MS; ms++) {
            seen += histogram[ms];
            if (seen >= Math.max(1, rank)) {
                return ms;
            }
        }
        return MAX_MS;
    }

    /** Seconds between the first and the last output record's timestamp. */
    public double outputSpanSeconds() {
        return lastOutputTimestamp > firstOutputTimestamp
                ? (lastOutputTimestamp - firstOutputTimestamp) / 1e3
                : 0;
    }

    /**
     * Writes the output rate over time: per second of output record timestamps (the sink's write
     * time) and pipeline version, the rows, as TSV with a header line ({@code second} is seconds
     * since the epoch; seconds without rows are listed with 0).
     */
    public void writeTimeline(Path file) throws IOException {
        StringBuilder sb = new StringBuilder("second\tpipeline\trows\n");
        if (!perSecond.isEmpty()) {
            for (long s = perSecond.firstKey(); s <= perSecond.lastKey(); s++) {
                Map<String, Long> bySpec = perSecond.getOrDefault(s, new TreeMap<>());
                if (bySpec.isEmpty()) {
                    sb.append(s).append("\t-\t0\n");
                }
                for (Map.Entry<String, Long> e : bySpec.entrySet()) {
                    sb.append(s).append('\t').append(e.getKey()).append('\t');
                    sb.append(e.getValue()).append('\n');
                }
            }
        }
        Files.writeString(file, sb, StandardCharsets.US_ASCII);
    }

    /** A one-paragraph report. */
    public String report(long totalRows) {
        double span = outputSpanSeconds();
        return String.format(
                "latency (input record timestamp -> row read committed): p50 %,d ms, p99 %,d ms,"
                        + " max %,d ms over %,d rows%noutput: %,d rows over %.1f s of output"
                        + " record timestamps = %,.0f rows/s",
                percentile(0.50),
                percentile(0.99),
                percentile(1.0),
                rows,
                totalRows,
                span,
                span > 0 ? totalRows / span : 0);
    }
}
