package dev.piper.operators.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.LogRecord;
import dev.piper.core.join.ImpressionLines;
import dev.piper.core.join.JoinDeadLetter;
import dev.piper.core.join.JoinedLine;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The join's order lane under Flink's harness: rows go out in the batch join's order once the
 * watermark is at their time, numbered, each one record without a line break, the rows waiting kept
 * across a restore, including rows of a checkpoint an earlier build took, whose lines end in one;
 * rows that hold their labels only get their impressions' lines read back, per partition in offset
 * order, and a line gone makes its row a dead letter.
 */
class JoinOrderOperatorTest {

    private static JoinedLine row(long t, String key, String line) {
        return new JoinedLine(t, key, -1, 0, t, line.getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> lines(OneInputStreamOperatorTestHarness<JoinedLine, LogRecord> h) {
        List<String> out = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> r && r.getValue() instanceof LogRecord l) {
                out.add(l.offset() + " " + new String(l.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Test
    void rowsGoOutInOrderWithoutLineBreaksAcrossARestore() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = new OneInputStreamOperatorTestHarness<>(new JoinOrderOperator())) {
            h.open();
            h.processElement(row(2_000, "b", "{\"k\":\"b\"}"), 2_000);
            h.processElement(row(1_000, "z", "{\"k\":\"z\"}\n"), 1_000); // an earlier build's
            h.processElement(row(1_000, "a", "{\"k\":\"a\"}"), 1_000);
            h.processWatermark(1_000);
            assertThat(lines(h)).containsExactly("0 {\"k\":\"a\"}", "1 {\"k\":\"z\"}");
            h.processElement(row(3_000, "c", "{\"k\":\"c\"}\n"), 3_000);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = new OneInputStreamOperatorTestHarness<>(new JoinOrderOperator())) {
            h.initializeState(snapshot);
            h.open();
            h.processWatermark(3_000);
            assertThat(lines(h)).containsExactly("2 {\"k\":\"b\"}", "3 {\"k\":\"c\"}");
        }
    }

    /** Lines of partition 0 at offsets 10 to 13 and of partition 1 at 20; 11 is gone. */
    static final class Lines implements ImpressionLines {
        private static final Map<String, String> AT =
                Map.of(
                        "0/10", " {\"k\":\"a\"}",
                        "0/12", "{}",
                        "0/13", "{\"k\":\"c\", \"x\":1}",
                        "1/20", "{\"k\":\"d\"}");

        static final List<String> asked = new ArrayList<>();
        static boolean closed;

        @Override
        public byte[][] read(int partition, long[] offsets) {
            asked.add(partition + ":" + Arrays.toString(offsets));
            byte[][] out = new byte[offsets.length][];
            for (int i = 0; i < offsets.length; i++) {
                String line = AT.get(partition + "/" + offsets[i]);
                out[i] = line == null ? null : line.getBytes(StandardCharsets.UTF_8);
            }
            return out;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static JoinedLine held(long t, String key, int copyOf, int partition, long offset) {
        String labels = "\"labels\":{\"click\":" + (copyOf < 0 ? 0 : 1) + "}";
        return new JoinedLine(
                t, key, copyOf, partition, offset, labels.getBytes(StandardCharsets.UTF_8), true);
    }

    @Test
    void rowsHeldByPositionGetTheirLinesAndAGoneOneIsADeadLetter() throws Exception {
        Lines.asked.clear();
        Lines.closed = false;
        try (var h = new OneInputStreamOperatorTestHarness<>(new JoinOrderOperator(Lines::new))) {
            h.open();
            h.processElement(held(1_000, "c", -1, 0, 13), 1_000);
            h.processElement(held(1_000, "a", -1, 0, 10), 1_000);
            h.processElement(held(1_000, "d", -1, 1, 20), 1_000);
            h.processElement(row(1_000, "e", "{\"k\":\"e\"}"), 1_000); // with its line
            h.processElement(held(1_000, "b", -1, 0, 11), 1_000);
            h.processElement(held(1_000, "a", 0, 0, 10), 1_000); // a's positive copy
            h.processElement(held(2_000, "f", -1, 0, 12), 2_000);
            h.processWatermark(1_000);
            assertThat(lines(h))
                    .containsExactly(
                            "0  {\"labels\":{\"click\":0},\"k\":\"a\"}",
                            "1  {\"labels\":{\"click\":1},\"k\":\"a\"}",
                            "2 {\"labels\":{\"click\":0},\"k\":\"c\", \"x\":1}",
                            "3 {\"labels\":{\"click\":0},\"k\":\"d\"}",
                            "4 {\"k\":\"e\"}");
            // one read per partition, offsets ascending, a line shared by a row and its copy once
            assertThat(Lines.asked).containsExactly("0:[10, 11, 13]", "1:[20]");
            List<JoinDeadLetter> dead = new ArrayList<>();
            h.getSideOutput(JoinOrderOperator.DEAD_LETTERS).forEach(r -> dead.add(r.getValue()));
            assertThat(dead).hasSize(1);
            assertThat(dead.get(0).reason()).isEqualTo(JoinOrderOperator.LINE_GONE);
            assertThat(dead.get(0).partition()).isZero();
            assertThat(dead.get(0).offset()).isEqualTo(11);
            assertThat(dead.get(0).detail()).contains("no longer has", "key b");
            h.processWatermark(2_000);
            assertThat(lines(h)).last().isEqualTo("5 {\"labels\":{\"click\":0}}");
        }
        assertThat(Lines.closed).isTrue();
    }
}
