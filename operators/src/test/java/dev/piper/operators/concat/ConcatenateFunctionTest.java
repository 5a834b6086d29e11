package dev.piper.operators.concat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.IndexChunk;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class ConcatenateFunctionTest {

    private static KeyedTwoInputStreamOperatorTestHarness<
                    Long, DenseChunk, IndexChunk, AssembledBlock>
            harness() throws Exception {
        return new KeyedTwoInputStreamOperatorTestHarness<>(
                new KeyedCoProcessOperator<>(new ConcatenateFunction<Long>()),
                DenseChunk::seq,
                IndexChunk::seq,
                Types.LONG);
    }

    private static DenseChunk dense(long seq) {
        int[] values = new int[2 * 14];
        for (int i = 0; i < values.length; i++) {
            values[i] = 1000 * (int) seq + i;
        }
        DeadLetter d = new DeadLetter(2, 10, "empty_line", "the line is empty", new byte[0], false);
        return DenseChunk.builder()
                .seq(seq)
                .lines(3)
                .rows(2)
                .labelDense(values)
                .deadLetters(new DeadLetter[] {d})
                .build();
    }

    private static IndexChunk index(long seq, int column) {
        return new IndexChunk(
                column,
                seq,
                new int[] {column, 100 + column},
                2,
                column,
                new long[] {column * 11L});
    }

    @Test
    void waitsForAllPartsThenInterleavesRows() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            for (int c = 25; c >= 10; c--) {
                h.processElement2(new StreamRecord<>(index(7, c)));
            }
            h.processElement1(new StreamRecord<>(dense(7)));
            assertThat(h.extractOutputValues()).isEmpty();
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            for (int c = 0; c < 10; c++) {
                h.processElement2(new StreamRecord<>(index(7, c)));
            }
            List<AssembledBlock> out = h.extractOutputValues();
            assertThat(out).hasSize(1);
            AssembledBlock b = out.get(0);
            assertThat(b.rows()).isEqualTo(2);
            assertThat(b.lines()).isEqualTo(3);
            assertThat(b.deadLetters()).hasSize(1);
            assertThat(b.newKeys()[5]).containsExactly(55);
            assertThat(b.firstNewIndex()[5]).isEqualTo(5);
            ByteBuffer rows = ByteBuffer.wrap(b.rowBytes()).order(ByteOrder.LITTLE_ENDIAN);
            assertThat(b.rowBytes()).hasSize(2 * 160);
            for (int r = 0; r < 2; r++) {
                for (int j = 0; j < 14; j++) {
                    assertThat(rows.getInt()).isEqualTo(7000 + r * 14 + j);
                }
                for (int c = 0; c < 26; c++) {
                    assertThat(rows.getInt()).isEqualTo(r == 0 ? c : 100 + c);
                }
            }
            h.processElement1(new StreamRecord<>(dense(7 + 1)));
            assertThat(h.extractOutputValues()).hasSize(1);
        }
    }
}
