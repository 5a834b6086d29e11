package dev.piper.operators.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.Origin;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class LaneSequenceFunctionTest {

    private static KeyedOneInputStreamOperatorTestHarness<Integer, AssembledBlock, AssembledBlock>
            harness() throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new LaneSequenceFunction()),
                AssembledBlock::lane,
                Types.INT);
    }

    private static StreamRecord<AssembledBlock> block(int lane, long seq) {
        return new StreamRecord<>(
                AssembledBlock.builder()
                        .lane(lane)
                        .seq(seq)
                        .lines(0)
                        .rows(0)
                        .rowBytes(new byte[0])
                        .deadLetters(new DeadLetter[0])
                        .newKeys(new int[26], new long[26][0])
                        .origin(Origin.NONE)
                        .version(1)
                        .epochs(new int[26])
                        .build());
    }

    private static List<String> emitted(
            KeyedOneInputStreamOperatorTestHarness<Integer, AssembledBlock, AssembledBlock> h) {
        return h.extractOutputValues().stream().map(b -> b.lane() + "/" + b.seq()).toList();
    }

    @Test
    void eachLaneIsReleasedInOrderIndependentlyOfTheOthers() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(block(2, 1));
            h.processElement(block(5, 0)); // lane 5 is not held back by lane 2's gap
            h.processElement(block(5, 2));
            h.processElement(block(2, 0));
            h.processElement(block(5, 1));
            assertThat(emitted(h)).containsExactly("5/0", "2/0", "2/1", "5/1", "5/2");
        }
    }

    @Test
    void waitingBlocksSurviveARestore() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(block(1, 0));
            h.processElement(block(1, 2));
            snapshot = h.snapshot(1, 1);
            assertThat(emitted(h)).containsExactly("1/0");
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(block(1, 1));
            assertThat(emitted(h)).containsExactly("1/1", "1/2");
            assertThatThrownBy(() -> h.processElement(block(1, 2)))
                    .hasMessageContaining("lane 1: block 2 arrived twice");
        }
    }

    /**
     * A fast-forward: lane 2's snapshot stands at block 1, and an earlier run committed its blocks
     * 1 to 3 after it; the chunker goes on with block 4, which the restored sequence lets through
     * at once, as it does after a checkpoint taken before that block came. Other lanes are as they
     * were.
     */
    @Test
    void aFastForwardMovesALaneOnPastItsCommittedBlocks() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(block(2, 0));
            h.processElement(block(5, 0));
            snapshot = h.snapshot(1, 1);
        }
        OperatorSubtaskState early;
        try (var h =
                new KeyedOneInputStreamOperatorTestHarness<Integer, AssembledBlock, AssembledBlock>(
                        new dev.piper.operators.resume.CatchUpOperator<>(
                                new LaneSequenceFunction()
                                        .withFastForward(
                                                java.util.Map.of(
                                                        2,
                                                        new dev.piper.core.block.FastForward
                                                                .LaneTail(1, 3, 9)))),
                        AssembledBlock::lane,
                        Types.INT)) {
            h.initializeState(snapshot);
            h.open();
            early = h.snapshot(2, 2);
            h.processElement(block(2, 4));
            h.processElement(block(5, 1));
            assertThat(emitted(h)).containsExactly("2/4", "5/1");
        }
        try (var h = harness()) {
            h.initializeState(early);
            h.open();
            h.processElement(block(2, 4));
            assertThat(emitted(h)).containsExactly("2/4");
        }
    }
}
