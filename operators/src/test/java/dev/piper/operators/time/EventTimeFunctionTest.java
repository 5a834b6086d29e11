package dev.piper.operators.time;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.Lanes;
import dev.piper.core.block.Origin;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class EventTimeFunctionTest {

    private static final AtomicLong NOW = new AtomicLong();

    private static AssembledBlock block(int pipeline, long seq, long... times) {
        int rows = times.length;
        return AssembledBlock.builder()
                .lane(Lanes.of(pipeline, 0))
                .seq(seq)
                .lines(rows)
                .rows(rows)
                .rowBytes(new byte[rows * 8])
                .deadLetters(new DeadLetter[0])
                .newKeys(new int[] {0}, new long[][] {{}})
                .origin(Origin.NONE)
                .version(1)
                .epochs(new int[] {0})
                .build()
                .withEventTimes(times);
    }

    @Test
    void aBlocksTimestampIsItsLatestRowsTime() {
        assertThat(EventTimeFunction.latestTime(block(0, 0, 5, 9, 7), 1)).isEqualTo(9);
        assertThat(EventTimeFunction.latestTime(block(0, 0), 3)).isEqualTo(3); // no rows
        assertThat(EventTimeFunction.latestTime(block(0, 0), TimestampAssigner.NO_TIMESTAMP))
                .isEqualTo(EventTimeFunction.NONE);
        assertThat(
                        EventTimeFunction.watermarks()
                                .createTimestampAssigner(null)
                                .extractTimestamp(block(0, 0, -4, -2), 0))
                .isEqualTo(-2);
    }

    @Test
    void theGaugesFollowEachPipelinesLatestTimeAndTheWatermark() throws Exception {
        EventTimeFunction f = new EventTimeFunction(new String[] {"a", "b"}, NOW::get);
        try (var h = new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(f))) {
            h.open();
            assertThat(f.lag(0)).isEqualTo(-1);
            assertThat(f.watermarkLag()).isEqualTo(-1);
            NOW.set(10_000);
            h.processElement(new StreamRecord<>(block(0, 0, 8_000, 9_000), 9_000));
            h.processElement(new StreamRecord<>(block(0, 1, 7_000), 7_000)); // older: kept
            assertThat(f.lag(0)).isEqualTo(1_000);
            assertThat(f.lag(1)).isEqualTo(-1); // no block of b yet
            h.processWatermark(new Watermark(8_999));
            h.processElement(new StreamRecord<>(block(1, 0, 4_000), 4_000));
            NOW.set(12_000);
            assertThat(f.lag(1)).isEqualTo(8_000);
            assertThat(f.watermarkLag()).isEqualTo(3_001);
            assertThat(h.extractOutputValues()).hasSize(3); // every block passes on
        }
    }
}
