package dev.piper.operators.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class SequenceFunctionTest {

    private static OneInputStreamOperatorTestHarness<AssembledBlock, AssembledBlock> harness()
            throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new ProcessOperator<>(new SequenceFunction()));
    }

    private static StreamRecord<AssembledBlock> block(long seq) {
        return new StreamRecord<>(
                AssembledBlock.builder()
                        .seq(seq)
                        .lines(0)
                        .rows(0)
                        .rowBytes(new byte[0])
                        .deadLetters(new DeadLetter[0])
                        .newKeys(new int[26], new long[26][0])
                        .build());
    }

    @Test
    void releasesBlocksInOrderAcrossARestore() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(block(1));
            h.processElement(block(3));
            assertThat(h.extractOutputValues()).isEmpty();
            h.processElement(block(0));
            assertThat(h.extractOutputValues())
                    .extracting(AssembledBlock::seq)
                    .containsExactly(0L, 1L);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(block(2));
            assertThat(h.extractOutputValues())
                    .extracting(AssembledBlock::seq)
                    .containsExactly(2L, 3L);
            assertThatThrownBy(() -> h.processElement(block(1)))
                    .hasMessageContaining("arrived twice");
        }
    }
}
