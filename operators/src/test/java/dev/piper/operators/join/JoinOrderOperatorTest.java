package dev.piper.operators.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.LogRecord;
import dev.piper.core.join.JoinedLine;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The join's order lane under Flink's harness: rows go out in the batch join's order once the
 * watermark is at their time, numbered, each one record without a line break, the rows waiting kept
 * across a restore, including rows of a checkpoint an earlier build took, whose lines end in one.
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
}
