package dev.piper.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.KafkaOut;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.RowsRecordFormat;
import dev.piper.feed.RowsRecordFormatTest;
import dev.piper.feed.StreamFormat;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.StreamMap;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The commit stamp of a rows or vocabulary record: 1 before the first barrier of a fresh job,
 * {@code k + 1} after barrier {@code k} (the sink's next transaction), {@code k + 1} from the start
 * of a job restored from snapshot {@code k}, and above a floor a fast-forward gives; other records
 * are left as they are; the stamped record is as rows-record.json describes.
 */
class CheckpointStampTest {

    private static OneInputStreamOperatorTestHarness<KafkaOut, KafkaOut> harness()
            throws Exception {
        return new OneInputStreamOperatorTestHarness<>(new StreamMap<>(new CheckpointStamp()));
    }

    private static KafkaOut rows(int pipeline) {
        return new KafkaOut(
                KafkaOut.target(pipeline, KafkaOut.ROWS),
                new byte[] {0},
                new byte[] {1, 2},
                new String[] {RowsRecord.ROWS},
                new byte[][] {"0".getBytes(StandardCharsets.US_ASCII)});
    }

    private static KafkaOut deadLetter() {
        return new KafkaOut(
                KafkaOut.target(0, KafkaOut.DEAD_LETTERS),
                new byte[] {0},
                new byte[] {4},
                new String[0],
                new byte[0][]);
    }

    private static KafkaOut vocab() {
        return new KafkaOut(
                KafkaOut.target(0, KafkaOut.VOCAB),
                new byte[] {0},
                new byte[] {3},
                new String[] {StreamFormat.COLUMN},
                new byte[][] {"C1".getBytes(StandardCharsets.US_ASCII)});
    }

    /** Each output record's checkpoint header, "-" where it has none. */
    private static List<String> stamps(List<KafkaOut> out) {
        List<String> stamps = new ArrayList<>();
        for (KafkaOut r : out) {
            String stamp = "-";
            for (int i = 0; i < r.headerNames().length; i++) {
                if (r.headerNames()[i].equals(RowsRecord.CHECKPOINT)) {
                    stamp = new String(r.headerValues()[i], StandardCharsets.US_ASCII);
                }
            }
            stamps.add(stamp);
        }
        return stamps;
    }

    @Test
    void eachRowsRecordNamesTheCheckpointThatCommitsIt() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(rows(0), 0);
            h.processElement(vocab(), 0);
            h.processElement(deadLetter(), 0);
            h.snapshot(1, 1);
            h.processElement(rows(1), 0);
            h.snapshot(2, 2);
            snapshot = h.snapshot(3, 3);
            h.processElement(rows(0), 0);
            assertThat(stamps(h.extractOutputValues())).containsExactly("1", "1", "-", "2", "4");
            KafkaOut first = h.extractOutputValues().get(0);
            assertThat(first.value()).containsExactly(1, 2); // the rest as it was
            assertThat(first.headerNames()).containsExactly(RowsRecord.ROWS, RowsRecord.CHECKPOINT);
        }
        try (var h = harness()) {
            h.setRestoredCheckpointId(3); // as Flink restores a task from checkpoint 3
            h.initializeState(snapshot);
            h.open();
            h.processElement(rows(0), 0);
            h.snapshot(4, 4);
            h.processElement(rows(0), 0);
            assertThat(stamps(h.extractOutputValues())).containsExactly("4", "5");
        }
        try (var h = harness()) {
            h.initializeState(snapshot); // no id given: the one its own state saw
            h.open();
            h.processElement(rows(0), 0);
            assertThat(stamps(h.extractOutputValues())).containsExactly("4");
        }
    }

    /**
     * A job that fast-forwarded past output stamped up to 9, restored from snapshot 3: its stamps
     * go on above 9, its snapshots store theirs, and a job restored from one of them goes on above
     * it, where the checkpoint ids alone would have gone back to 5.
     */
    @Test
    void aFloorRaisesTheStampsForGood() throws Exception {
        OperatorSubtaskState three;
        try (var h = harness()) {
            h.open();
            three = h.snapshot(3, 3);
        }
        OperatorSubtaskState five;
        try (var h =
                new OneInputStreamOperatorTestHarness<KafkaOut, KafkaOut>(
                        new StreamMap<>(new CheckpointStamp(9)))) {
            h.setRestoredCheckpointId(3);
            h.initializeState(three);
            h.open();
            h.processElement(rows(0), 0);
            h.snapshot(4, 4);
            h.processElement(vocab(), 0);
            five = h.snapshot(5, 5);
            h.processElement(rows(0), 0);
            assertThat(stamps(h.extractOutputValues())).containsExactly("10", "11", "12");
        }
        try (var h = harness()) {
            h.setRestoredCheckpointId(5);
            h.initializeState(five);
            h.open();
            h.processElement(rows(0), 0);
            h.snapshot(6, 6);
            h.processElement(rows(0), 0);
            assertThat(stamps(h.extractOutputValues())).containsExactly("12", "13");
        }
    }

    @Test
    void theStampIsADescribedHeader() {
        KafkaOut stamped = StreamFormat.withCheckpoint(rows(0), StreamFormat.checkpointStamp(12));
        Map<String, String> h = RowsRecordFormatTest.everyHeader();
        h.put(
                RowsRecord.CHECKPOINT,
                new String(stamped.headerValues()[1], StandardCharsets.US_ASCII));
        RowsRecordFormat.DESCRIBED.check(h, 3, "stamped"); // a number, in any record format
        h.remove(RowsRecord.CHECKPOINT);
        RowsRecordFormat.DESCRIBED.check(h, 3, "unstamped"); // a group of its own: optional
        h.put(RowsRecord.CHECKPOINT, "-1");
        assertThatThrownBy(() -> RowsRecordFormat.DESCRIBED.check(h, 3, "negative"))
                .hasMessageContaining(RowsRecord.CHECKPOINT);
    }
}
