package dev.piper.operators.vocab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.cost.CostSample;
import dev.piper.operators.cost.CostSamples;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.state.Vocabulary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VocabularyFunctionTest {

    private static KeyedOneInputStreamOperatorTestHarness<Integer, KeyChunk, IndexChunk> harness()
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(new VocabularyFunction()), KeyChunk::column, Types.INT);
    }

    private static StreamRecord<KeyChunk> chunk(int column, long seq, long... keys) {
        return new StreamRecord<>(
                KeyChunk.builder().column(column).seq(seq).keys(keys).size(keys.length).build());
    }

    @Test
    void appliesBlocksInSequenceOrderWhateverTheArrivalOrder() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(chunk(0, 2, 30, 10));
            h.processElement(chunk(0, 1, 20, 10));
            assertThat(h.extractOutputValues()).isEmpty();
            h.processElement(chunk(0, 0, 10, 5));
            List<IndexChunk> out = h.extractOutputValues();
            assertThat(out).extracting(IndexChunk::seq).containsExactly(0L, 1L, 2L);
            assertThat(out.get(0).indices()).containsExactly(0, 1);
            assertThat(out.get(1).indices()).containsExactly(2, 0);
            assertThat(out.get(2).indices()).containsExactly(3, 0);
            assertThat(out.get(2).firstNewIndex()).isEqualTo(3);
            assertThat(out.get(2).newKeys()).containsExactly(30);
        }
    }

    /**
     * Measured, every call emits one cost sample: the keys it applied (none for a block that waits
     * for its turn, all the waiting ones when it comes), the newest vocabulary's entries, and CPU
     * times of which the thread's is never below the work's.
     */
    @Test
    void aMeasuredVocabularyEmitsACostSamplePerCall() throws Exception {
        try (var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new VocabularyFunction().measured()),
                        KeyChunk::column,
                        Types.INT)) {
            h.open();
            h.processElement(chunk(4, 1, 20, 10, 30));
            h.processElement(chunk(4, 0, 10, 5));
            assertThat(h.extractOutputValues()).hasSize(2);
            List<CostSample> samples = new ArrayList<>();
            h.getSideOutput(CostSamples.TAG).forEach(r -> samples.add(r.getValue()));
            assertThat(samples).hasSize(2);
            assertThat(samples)
                    .allSatisfy(
                            s -> {
                                assertThat(s.stage()).isEqualTo(CostSample.Stage.VOCABULARY);
                                assertThat(s.column()).isEqualTo(4);
                                assertThat(s.threadNanos()).isGreaterThanOrEqualTo(s.workNanos());
                                assertThat(s.workNanos()).isNotNegative();
                            });
            assertThat(samples.get(0).values()).isZero();
            assertThat(samples.get(0).entries()).isEqualTo(-1);
            assertThat(samples.get(1).values()).isEqualTo(5);
            assertThat(samples.get(1).entries()).isEqualTo(4);
        }
    }

    /**
     * Log input: lanes 3 and 5 interleave, and their sequence numbers (log offsets) have gaps; the
     * blocks are applied as they arrive and keep their lanes.
     */
    @Test
    void asArrivedAppliesLogBlocksInArrivalOrder() throws Exception {
        try (var h =
                new KeyedOneInputStreamOperatorTestHarness<Integer, KeyChunk, IndexChunk>(
                        new KeyedProcessOperator<>(VocabularyFunction.asArrived()),
                        KeyChunk::column,
                        Types.INT)) {
            h.open();
            h.processElement(
                    new StreamRecord<>(
                            KeyChunk.builder()
                                    .lane(5)
                                    .column(0)
                                    .seq(1000)
                                    .keys(new long[] {9, 8})
                                    .size(2)
                                    .build()));
            h.processElement(
                    new StreamRecord<>(
                            KeyChunk.builder()
                                    .lane(3)
                                    .column(0)
                                    .seq(40)
                                    .keys(new long[] {8, 7})
                                    .size(2)
                                    .build()));
            h.processElement(
                    new StreamRecord<>(
                            KeyChunk.builder()
                                    .lane(5)
                                    .column(0)
                                    .seq(1007)
                                    .keys(new long[] {7, 6})
                                    .size(2)
                                    .build()));
            List<IndexChunk> out = h.extractOutputValues();
            assertThat(out).extracting(IndexChunk::lane).containsExactly(5, 3, 5);
            assertThat(out).extracting(IndexChunk::seq).containsExactly(1000L, 40L, 1007L);
            assertThat(out.get(0).indices()).containsExactly(0, 1);
            assertThat(out.get(1).indices()).containsExactly(1, 2);
            assertThat(out.get(1).newKeys()).containsExactly(7);
            assertThat(out.get(2).indices()).containsExactly(2, 3);
            assertThat(out.get(2).firstNewIndex()).isEqualTo(3);
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<Integer, KeyChunk, IndexChunk>
            asArrivedHarness() throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new KeyedProcessOperator<>(VocabularyFunction.asArrived()),
                KeyChunk::column,
                Types.INT);
    }

    private static StreamRecord<KeyChunk> inEpoch(int epoch, int lane, long seq, long... keys) {
        return new StreamRecord<>(
                KeyChunk.builder()
                        .lane(lane)
                        .column(0)
                        .seq(seq)
                        .keys(keys)
                        .size(keys.length)
                        .epoch(epoch)
                        .build());
    }

    /**
     * A spec switch: lane 1 moves to epoch 1 (indices from 0 again) while lane 2 still sends epoch
     * 0 blocks, which keep growing the old vocabulary; both survive a snapshot, and the next epoch
     * retires epoch 1 in turn.
     */
    @Test
    void epochsHaveTheirOwnIdsAndOldEpochsStayUsable() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = asArrivedHarness()) {
            h.open();
            h.processElement(inEpoch(0, 1, 0, 10, 11));
            h.processElement(inEpoch(1, 1, 2, 11, 12));
            h.processElement(inEpoch(0, 2, 0, 12, 10));
            snapshot = h.snapshot(1, 1);
            List<IndexChunk> out = h.extractOutputValues();
            assertThat(out).extracting(IndexChunk::epoch).containsExactly(0, 1, 0);
            assertThat(out.get(0).indices()).containsExactly(0, 1);
            assertThat(out.get(1).indices()).containsExactly(0, 1);
            assertThat(out.get(1).firstNewIndex()).isZero();
            assertThat(out.get(1).newKeys()).containsExactly(11, 12);
            assertThat(out.get(2).indices()).containsExactly(2, 0);
            assertThat(out.get(2).firstNewIndex()).isEqualTo(2);
            assertThat(out.get(2).newKeys()).containsExactly(12);
        }
        try (var h = asArrivedHarness()) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(inEpoch(1, 1, 4, 12, 13));
            h.processElement(inEpoch(0, 2, 2, 13));
            h.processElement(inEpoch(3, 1, 6, 13, 10));
            h.processElement(inEpoch(1, 2, 4, 14, 11));
            List<IndexChunk> out = h.extractOutputValues();
            assertThat(out).extracting(IndexChunk::epoch).containsExactly(1, 0, 3, 1);
            assertThat(out.get(0).indices()).containsExactly(1, 2);
            assertThat(out.get(1).indices()).containsExactly(3);
            assertThat(out.get(2).indices()).containsExactly(0, 1);
            assertThat(out.get(3).indices()).containsExactly(3, 0);
            assertThat(out.get(3).firstNewIndex()).isEqualTo(3);
        }
    }

    @Test
    void columnsHaveIndependentVocabularies() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(chunk(0, 0, 7, 8));
            h.processElement(chunk(1, 0, 8, 7));
            List<IndexChunk> out = h.extractOutputValues();
            assertThat(out.get(0).indices()).containsExactly(0, 1);
            assertThat(out.get(1).indices()).containsExactly(0, 1);
            assertThat(out.get(1).newKeys()).containsExactly(8, 7);
        }
    }

    /**
     * State survives a snapshot and restore: the vocabulary, the next sequence and the waiting
     * blocks.
     */
    @Test
    void snapshotAndRestoreKeepIdsAndWaitingBlocks() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(chunk(4, 0, 100, 200));
            h.processElement(chunk(4, 2, 400, 100)); // waits for block 1
            snapshot = h.snapshot(1, 1);
            h.getOperator().setCurrentKey(4);
            Vocabulary v =
                    h.getOperator()
                            .getKeyedStateStore()
                            .getState(VocabularyFunction.VOCABULARY)
                            .value();
            assertThat(v.size()).isEqualTo(2);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(chunk(4, 1, 300, 200));
            List<IndexChunk> out = h.extractOutputValues();
            assertThat(out).extracting(IndexChunk::seq).containsExactly(1L, 2L);
            assertThat(out.get(0).indices()).containsExactly(2, 1);
            assertThat(out.get(1).indices()).containsExactly(3, 0);
            assertThat(out.get(1).newKeys()).containsExactly(400);
        }
    }

    @Test
    void aBlockSeenTwiceFailsLoudly() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(chunk(0, 0, 1));
            assertThatThrownBy(() -> h.processElement(chunk(0, 0, 1)))
                    .hasMessageContaining("received block 0 twice");
        }
    }

    private static StreamRecord<KeyChunk> under(
            VocabularyPolicy policy, int column, long seq, long... keys) {
        return new StreamRecord<>(
                KeyChunk.builder()
                        .lane(0)
                        .column(column)
                        .seq(seq)
                        .keys(keys)
                        .size(keys.length)
                        .epoch(0)
                        .policy(policy)
                        .build());
    }

    private static int bucket(long key, int buckets) {
        return new VocabularyPolicy(1, buckets, Vocabulary.MAX_SIZE, null).bucketOf(key);
    }

    /**
     * A frequency threshold across blocks that arrive out of order, with a snapshot between them:
     * the counts are state, and a key is admitted at its second occurrence in sequence order.
     */
    @Test
    void aThresholdCountsAcrossBlocksInSequenceOrderAndSurvivesRestore() throws Exception {
        VocabularyPolicy p = new VocabularyPolicy(2, 3, Vocabulary.MAX_SIZE, null);
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(under(p, 1, 1, 7, 8)); // waits for block 0
            h.processElement(under(p, 1, 0, 8, 9));
            List<IndexChunk> out = h.extractOutputValues();
            assertThat(out.get(0).indices()).containsExactly(bucket(8, 3), bucket(9, 3));
            assertThat(out.get(0).newKeys()).isEmpty();
            assertThat(out.get(0).firstNewIndex()).isEqualTo(3);
            assertThat(out.get(1).indices()).containsExactly(bucket(7, 3), 3);
            assertThat(out.get(1).firstNewIndex()).isEqualTo(3);
            assertThat(out.get(1).newKeys()).containsExactly(8);
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(under(p, 1, 2, 9, 7, 10));
            IndexChunk out = h.extractOutputValues().get(0);
            assertThat(out.indices()).containsExactly(4, 5, bucket(10, 3));
            assertThat(out.firstNewIndex()).isEqualTo(4);
            assertThat(out.newKeys()).containsExactly(9, 7);
        }
    }

    /**
     * Warm start: the first block reports the imported entries as added, from the first index after
     * the OOV buckets; later blocks continue after them.
     */
    @Test
    void anImportedVocabularyIsReportedByItsFirstBlockAndExtended(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("C3.tsv");
        Files.writeString(file, "2\t500\n3\t18446744073709551615\n");
        VocabularyPolicy p = new VocabularyPolicy(1, 2, 4, file.toString());
        try (var h = harness()) {
            h.open();
            h.processElement(under(p, 2, 0, -1L, 77, 500));
            h.processElement(under(p, 2, 1, 78, 79, 77));
            List<IndexChunk> out = h.extractOutputValues();
            assertThat(out.get(0).indices()).containsExactly(3, 4, 2);
            assertThat(out.get(0).firstNewIndex()).isEqualTo(2);
            assertThat(out.get(0).newKeys()).containsExactly(500, -1L, 77);
            assertThat(out.get(1).indices()).containsExactly(5, bucket(79, 2), 4);
            assertThat(out.get(1).firstNewIndex()).isEqualTo(5);
            assertThat(out.get(1).newKeys()).containsExactly(78);
        }
    }

    @Test
    void anUnreadableImportFailsNamingTheColumnAndTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("C5.tsv");
        Files.writeString(file, "0\t1\n2\t5\n");
        VocabularyPolicy p = new VocabularyPolicy(1, 0, Vocabulary.MAX_SIZE, file.toString());
        try (var h = harness()) {
            h.open();
            assertThatThrownBy(() -> h.processElement(under(p, 4, 0, 1)))
                    .hasMessageContaining("column C5: cannot import its vocabulary: ")
                    .hasMessageContaining(file + " line 2 has index 2 where 1 is due");
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<Integer, KeyChunk, IndexChunk> catchingUp(
            VocabularyFunction function, long firstIndex, long... keys) throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new dev.piper.operators.resume.CatchUpOperator<>(
                        function.withFastForward(
                                java.util.Map.of(
                                        3,
                                        new VocabularyFunction.CatchUp(
                                                0,
                                                3,
                                                VocabularyPolicy.FIRST_APPEARANCE,
                                                new dev.piper.core.block.FastForward.Entries(
                                                        0, firstIndex, keys))))),
                KeyChunk::column,
                Types.INT);
    }

    /**
     * A fast-forward: column C4's snapshot holds 10 and 20, and an earlier run committed 30 and 40
     * after it. The restored vocabulary takes them as it opens, so that a checkpoint taken before
     * any block already holds them, and a resume from that one gives 40 its committed index and a
     * new key the next; entries it holds already are checked, not taken twice. The same for a
     * vocabulary kept as entries.
     */
    @Test
    void aFastForwardTakesTheCommittedEntriesAsItOpens() throws Exception {
        for (boolean asEntries : new boolean[] {false, true}) {
            VocabularyFunction function =
                    asEntries
                            ? VocabularyFunction.asArrived().withEntries(16)
                            : VocabularyFunction.asArrived();
            OperatorSubtaskState snapshot;
            try (var h = asArrivedHarness()) {
                h.open();
                h.processElement(
                        new StreamRecord<>(
                                KeyChunk.builder()
                                        .lane(0)
                                        .column(3)
                                        .seq(0)
                                        .keys(new long[] {10, 20})
                                        .size(2)
                                        .build()));
                snapshot = h.snapshot(1, 1);
            }
            if (asEntries) {
                try (var h =
                        new KeyedOneInputStreamOperatorTestHarness<Integer, KeyChunk, IndexChunk>(
                                new KeyedProcessOperator<>(function),
                                KeyChunk::column,
                                Types.INT)) {
                    h.open();
                    h.processElement(
                            new StreamRecord<>(
                                    KeyChunk.builder()
                                            .lane(0)
                                            .column(3)
                                            .seq(0)
                                            .keys(new long[] {10, 20})
                                            .size(2)
                                            .build()));
                    snapshot = h.snapshot(1, 1);
                }
            }
            OperatorSubtaskState caughtUp;
            try (var h = catchingUp(function, 1, 20, 30, 40)) {
                h.initializeState(snapshot);
                h.open();
                caughtUp = h.snapshot(2, 2);
                assertThat(h.extractOutputValues()).isEmpty();
            }
            try (var h =
                    new KeyedOneInputStreamOperatorTestHarness<Integer, KeyChunk, IndexChunk>(
                            new KeyedProcessOperator<>(function), KeyChunk::column, Types.INT)) {
                h.initializeState(caughtUp);
                h.open();
                h.processElement(
                        new StreamRecord<>(
                                KeyChunk.builder()
                                        .lane(0)
                                        .column(3)
                                        .seq(5)
                                        .keys(new long[] {40, 50, 10})
                                        .size(3)
                                        .build()));
                IndexChunk out = h.extractOutputValues().get(0);
                assertThat(out.indices()).as("as entries: %s", asEntries).containsExactly(3, 4, 0);
                assertThat(out.firstNewIndex()).isEqualTo(4);
                assertThat(out.newKeys()).containsExactly(50);
            }
        }
    }

    /**
     * Committed entries past a gap, or other keys than the snapshot's: the job fails, naming it.
     */
    @Test
    void aFastForwardThatDoesNotFitTheVocabularyFails() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = asArrivedHarness()) {
            h.open();
            h.processElement(
                    new StreamRecord<>(
                            KeyChunk.builder()
                                    .lane(0)
                                    .column(3)
                                    .seq(0)
                                    .keys(new long[] {10, 20})
                                    .size(2)
                                    .build()));
            snapshot = h.snapshot(1, 1);
        }
        try (var h = catchingUp(VocabularyFunction.asArrived(), 5, 30)) {
            h.initializeState(snapshot);
            assertThatThrownBy(h::open)
                    .hasMessageContaining(
                            "column C4: the restored snapshot holds 2 vocabulary entries, but the"
                                    + " entries committed past it start at entry 5");
        }
        try (var h = catchingUp(VocabularyFunction.asArrived(), 1, 99, 30)) {
            h.initializeState(snapshot);
            assertThatThrownBy(h::open)
                    .hasMessageContaining(
                            "column C4: index 1 of the entries committed past the restored"
                                    + " snapshot is not the key");
        }
    }
}
