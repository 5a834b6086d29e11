package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The impressions' lines read back from a real broker: in order and out of it, past what the
 * forward reader kept and behind it, a line with a line break read as the join's source reads it,
 * and the offsets the topic no longer has (deleted below its start, past its end) as nulls; a
 * broker that answers nothing fails the read naming the topic, partition, offset and address.
 */
class KafkaImpressionLinesTest {

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    private static final String TOPIC = "lines-imp";

    /** Partition 0's lines, and partition 1's (whose first 300 are deleted). */
    private static final List<List<String>> LINES = List.of(new ArrayList<>(), new ArrayList<>());

    @BeforeAll
    static void publish() throws Exception {
        kafka.createTopic(TOPIC, 2);
        for (int p = 0; p < 2; p++) {
            for (int i = 0; i < (p == 0 ? 3_000 : 1_000); i++) {
                LINES.get(p)
                        .add(
                                "{\"p\":"
                                        + p
                                        + ",\"i\":"
                                        + i
                                        + ",\"pad\":\""
                                        + "x".repeat(i % 97)
                                        + "\"}");
            }
            LINES.get(p).set(5, "{\"p\":" + p + ",\n\"i\":5}"); // the source reads it on one line
            kafka.publishLines(TOPIC, p, LINES.get(p));
        }
        kafka.admin()
                .deleteRecords(
                        Map.of(new TopicPartition(TOPIC, 1), RecordsToDelete.beforeOffset(300)))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    private static KafkaImpressionLines lines(long aheadLimit) {
        return new KafkaImpressionLines(
                kafka.bootstrapServers(),
                TOPIC,
                Map.of(),
                Duration.ofSeconds(30),
                aheadLimit,
                true);
    }

    private static void assertLines(byte[][] got, int partition, long... offsets) {
        assertThat(got.length).isEqualTo(offsets.length);
        for (int i = 0; i < offsets.length; i++) {
            String want = LINES.get(partition).get((int) offsets[i]).replace('\n', ' ');
            assertThat(new String(got[i], StandardCharsets.UTF_8))
                    .as("partition %d offset %d", partition, offsets[i])
                    .isEqualTo(want);
        }
    }

    @Test
    void linesComeBackInOrderOutOfOrderAheadAndBehind() throws IOException {
        try (KafkaImpressionLines lines = lines(KafkaImpressionLines.AHEAD_BYTES)) {
            assertLines(lines.read(0, new long[] {0, 3, 5, 9}), 0, 0, 3, 5, 9);
            // read past (kept), and on: the two partitions in turn
            assertLines(lines.read(1, new long[] {300, 301}), 1, 300, 301);
            assertLines(lines.read(0, new long[] {1, 2, 4, 10, 2_000}), 0, 1, 2, 4, 10, 2_000);
            assertLines(lines.read(0, new long[] {6, 1_999, 2_999}), 0, 6, 1_999, 2_999);
            // asked again (a positive copy a window later): behind the reader, read back
            assertLines(lines.read(0, new long[] {0, 5, 2_000}), 0, 0, 5, 2_000);
        }
    }

    @Test
    void linesDroppedFromWhatWasReadPastAreReadBack() throws IOException {
        try (KafkaImpressionLines lines = lines(4_096)) {
            assertLines(lines.read(0, new long[] {2_500}), 0, 2_500);
            assertLines(lines.read(0, new long[] {2_990}), 0, 2_990);
            // 2,501..2,989 were read past, and most dropped to keep 4 KiB
            assertLines(lines.read(0, new long[] {2_501, 2_700, 2_989}), 0, 2_501, 2_700, 2_989);
            assertLines(lines.read(0, new long[] {5, 6, 7}), 0, 5, 6, 7);
        }
    }

    /** The dead letters' way: every line by seeking to it, one at a time, gone ones null. */
    @Test
    void linesAreReadBySeekingWhereNoConsumerReadsOn() throws IOException {
        try (KafkaImpressionLines lines =
                new KafkaImpressionLines(
                        kafka.bootstrapServers(),
                        TOPIC,
                        Map.of(),
                        Duration.ofSeconds(30),
                        KafkaImpressionLines.AHEAD_BYTES,
                        false)) {
            for (long o : new long[] {2_900, 5, 6, 2_950, 7}) {
                assertLines(lines.read(0, new long[] {o}), 0, o);
            }
            assertThat(lines.read(1, new long[] {299})[0]).isNull();
            assertLines(lines.read(1, new long[] {300, 301}), 1, 300, 301);
            assertLines(lines.read(0, new long[] {8}), 0, 8);
        }
    }

    @Test
    void offsetsTheTopicNoLongerHasAreNull() throws IOException {
        try (KafkaImpressionLines lines = lines(KafkaImpressionLines.AHEAD_BYTES)) {
            byte[][] got = lines.read(1, new long[] {10, 299, 300, 999, 1_000, 5_000});
            assertThat(got[0]).isNull();
            assertThat(got[1]).isNull();
            assertLines(new byte[][] {got[2], got[3]}, 1, 300, 999);
            assertThat(got[4]).isNull();
            assertThat(got[5]).isNull();
            // behind the reader, the same
            got = lines.read(1, new long[] {0, 350});
            assertThat(got[0]).isNull();
            assertLines(new byte[][] {got[1]}, 1, 350);
        }
    }

    @Test
    void aBrokerThatAnswersNothingFailsTheReadNamingWhere() {
        try (KafkaImpressionLines lines =
                new KafkaImpressionLines(
                        "127.0.0.1:1", TOPIC, Map.of(), Duration.ofSeconds(2), 1 << 20, true)) {
            assertThatThrownBy(() -> lines.read(0, new long[] {42}))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("offset 42 of " + TOPIC + "-0")
                    .hasMessageContaining("127.0.0.1:1");
        }
    }
}
