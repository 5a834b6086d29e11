package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class DeliveryStatsTest {

    private static ConsumerRecord<byte[], byte[]> rows(long outputTs, String inputTimestamps) {
        RecordHeaders headers = new RecordHeaders();
        if (inputTimestamps != null) {
            headers.add(
                    RowsRecord.INPUT_TIMESTAMPS,
                    inputTimestamps.getBytes(StandardCharsets.US_ASCII));
        }
        return new ConsumerRecord<>(
                "rows",
                0,
                0,
                outputTs,
                TimestampType.CREATE_TIME,
                0,
                0,
                new byte[0],
                new byte[0],
                headers,
                Optional.empty());
    }

    @Test
    void rowsAreSpreadOverTheirBlocksInputSpan() {
        DeliveryStats stats = new DeliveryStats();
        // 101 rows produced at 1000..1100 ms, read at 2100: latencies 1000..1100, one each.
        stats.add(rows(2000, "1000-1100"), 101, 2100);
        assertThat(stats.rows()).isEqualTo(101);
        assertThat(stats.percentile(0.0)).isEqualTo(1000);
        assertThat(stats.percentile(0.5)).isEqualTo(1050);
        assertThat(stats.percentile(0.99)).isEqualTo(1099);
        assertThat(stats.percentile(1.0)).isEqualTo(1100);
    }

    @Test
    void outputRateComesFromTheOutputTimestamps() {
        DeliveryStats stats = new DeliveryStats();
        stats.add(rows(10_000, "9000-9000"), 1, 10_500);
        stats.add(rows(12_000, "11000-11000"), 1, 12_500);
        assertThat(stats.outputSpanSeconds()).isEqualTo(2.0);
        assertThat(stats.report(4000)).contains("p50 1,500 ms").contains("2,000 rows/s");
    }

    @Test
    void recordsWithoutInputTimestampsCountOnlyTowardsTheRate() {
        DeliveryStats stats = new DeliveryStats();
        stats.add(rows(1, null), 5, 10);
        stats.add(rows(2, "-1--1"), 5, 10);
        assertThat(stats.rows()).isZero();
        assertThat(stats.percentile(0.5)).isEqualTo(-1);
    }

    @Test
    void theTimelineCountsRowsPerSecondAndVersionWithGapsAsZero(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        DeliveryStats stats = new DeliveryStats();
        ConsumerRecord<byte[], byte[]> a = rows(10_100, "10000-10050");
        a.headers().add(RowsRecord.PIPELINE, "p/1".getBytes(StandardCharsets.US_ASCII));
        ConsumerRecord<byte[], byte[]> b = rows(10_900, "10000-10050");
        b.headers().add(RowsRecord.PIPELINE, "p/2".getBytes(StandardCharsets.US_ASCII));
        ConsumerRecord<byte[], byte[]> c = rows(12_000, "10000-10050");
        c.headers().add(RowsRecord.PIPELINE, "p/2".getBytes(StandardCharsets.US_ASCII));
        stats.add(a, 5, 13_000);
        stats.add(b, 7, 13_000);
        stats.add(c, 3, 13_000);
        java.nio.file.Path file = dir.resolve("timeline.tsv");
        stats.writeTimeline(file);
        assertThat(java.nio.file.Files.readAllLines(file))
                .containsExactly(
                        "second\tpipeline\trows",
                        "10\tp/1\t5",
                        "10\tp/2\t7",
                        "11\t-\t0",
                        "12\tp/2\t3");
    }
}
