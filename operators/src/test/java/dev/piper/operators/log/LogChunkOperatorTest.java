package dev.piper.operators.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.FastForward;
import dev.piper.core.block.LogRecord;
import dev.piper.core.block.RawChunk;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class LogChunkOperatorTest {

    private static OneInputStreamOperatorTestHarness<LogRecord, RawChunk> harness(
            int maxBytes, int maxLines) throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new LogChunkOperator(maxBytes, maxLines, 100));
    }

    private static StreamRecord<LogRecord> record(int partition, long offset, String value) {
        return new StreamRecord<>(
                new LogRecord(
                        partition, offset, 1000 + offset, value.getBytes(StandardCharsets.UTF_8)));
    }

    private static String text(RawChunk c) {
        return new String(c.data(), 0, c.length(), StandardCharsets.UTF_8);
    }

    private static List<RawChunk> chunks(OneInputStreamOperatorTestHarness<LogRecord, RawChunk> h) {
        return h.extractOutputValues();
    }

    @Test
    void cutsAtTheLineLimitAndAfterTheLinger() throws Exception {
        try (var h = harness(1 << 20, 3)) {
            h.open();
            h.setProcessingTime(0);
            for (int i = 0; i < 7; i++) {
                h.processElement(record(0, 10 + i, "l" + i));
            }
            assertThat(chunks(h))
                    .extracting(LogChunkOperatorTest::text)
                    .containsExactly("l0\nl1\nl2\n", "l3\nl4\nl5\n");
            h.setProcessingTime(99);
            assertThat(chunks(h)).hasSize(2);
            h.setProcessingTime(100); // the lingering block with l6
            List<RawChunk> out = chunks(h);
            assertThat(out).extracting(RawChunk::seq).containsExactly(0L, 1L, 2L);
            assertThat(text(out.get(2))).isEqualTo("l6\n");
            assertThat(out.get(1).origin().offsets()).containsExactly(13, 14, 15);
            assertThat(out.get(1).origin().firstTimestamp()).isEqualTo(1013);
            assertThat(out.get(1).origin().lastTimestamp()).isEqualTo(1015);
            assertThat(out).allSatisfy(c -> assertThat(c.lastLineCut()).isFalse());
        }
    }

    @Test
    void cutsBeforeABlockWouldExceedItsBytes() throws Exception {
        try (var h = harness(10, 100)) {
            h.open();
            h.processElement(record(0, 0, "aaaa")); // 5 bytes with its break
            h.processElement(record(0, 1, "bbbb")); // 10: full
            h.processElement(record(0, 2, "cc"));
            h.processElement(record(0, 3, "dddddddddddddddd")); // alone, larger than a block
            assertThat(chunks(h))
                    .extracting(LogChunkOperatorTest::text)
                    .containsExactly("aaaa\nbbbb\n", "cc\n", "dddddddddddddddd\n");
        }
    }

    /** A pipeline of JSON events takes each record whole: a pretty-printed event is one line. */
    @Test
    void aWholeRecordIsOneLineWhateverBreaksItHolds() throws Exception {
        try (var h =
                new OneInputStreamOperatorTestHarness<LogRecord, RawChunk>(
                        new LogChunkOperator(1 << 20, new int[] {2}, new boolean[] {true}, 100))) {
            h.open();
            h.processElement(record(0, 0, "{\n  \"a\": 1,\r\n  \"b\": \"x\"\n}\n"));
            h.processElement(record(0, 1, "{\"a\": 2}"));
            List<RawChunk> out = chunks(h);
            assertThat(out)
                    .extracting(LogChunkOperatorTest::text)
                    .containsExactly("{   \"a\": 1,    \"b\": \"x\" } \n{\"a\": 2}\n");
            assertThat(out.get(0).origin().firstLines()).containsExactly(0, 1);
        }
        assertThat(dev.piper.core.block.LogRecord.oneLine(new byte[] {'{', '}'}))
                .containsExactly('{', '}');
    }

    @Test
    void multiLineAndEmptyValuesAreLines() throws Exception {
        try (var h = harness(1 << 20, 100)) {
            h.open();
            h.processElement(record(0, 5, "a\nb\n"));
            h.processElement(record(0, 6, ""));
            h.processElement(record(0, 9, "c\r\nd"));
            h.processElement(record(0, 10, "\n"));
            h.prepareSnapshotPreBarrier(1);
            RawChunk c = chunks(h).get(0);
            assertThat(text(c)).isEqualTo("a\nb\n\nc\r\nd\n\n");
            assertThat(c.origin().offsets()).containsExactly(5, 6, 9, 10);
            assertThat(c.origin().firstLines()).containsExactly(0, 2, 3, 5);
            assertThat(c.origin().offsetOfLine(4)).isEqualTo(9);
        }
    }

    @Test
    void aRecordWithMoreLinesThanABlockContinuesInTheNext() throws Exception {
        try (var h = harness(1 << 20, 2)) {
            h.open();
            h.processElement(record(1, 0, "x"));
            h.processElement(record(1, 1, "1\n2\n3\n4\n5"));
            h.processElement(record(1, 2, "y"));
            h.prepareSnapshotPreBarrier(1);
            List<RawChunk> out = chunks(h);
            assertThat(out)
                    .extracting(LogChunkOperatorTest::text)
                    .containsExactly("x\n1\n", "2\n3\n", "4\n5\n", "y\n");
            assertThat(out.get(0).origin().offsets()).containsExactly(0, 1);
            assertThat(out.get(1).origin().offsets()).containsExactly(1);
            assertThat(out.get(2).origin().offsets()).containsExactly(1);
            assertThat(out.get(3).origin().offsets()).containsExactly(2);
            assertThat(out).extracting(RawChunk::lane).containsOnly(1);
            assertThat(out).extracting(RawChunk::seq).containsExactly(0L, 1L, 2L, 3L);
        }
    }

    @Test
    void theBarrierCutsEveryLaneAndEachLaneCountsItsOwnBlocks() throws Exception {
        try (var h = harness(1 << 20, 2)) {
            h.open();
            h.processElement(record(0, 0, "p0a"));
            h.processElement(record(3, 0, "p3a"));
            h.processElement(record(0, 1, "p0b")); // full: block 0/0
            h.processElement(record(3, 1, "p3b")); // full: block 3/0
            h.processElement(record(0, 2, "p0c"));
            h.prepareSnapshotPreBarrier(1); // block 0/1
            h.snapshot(1, 1);
            assertThat(chunks(h))
                    .extracting(c -> c.lane() + "/" + c.seq() + ":" + text(c).trim())
                    .containsExactly("0/0:p0a\np0b", "3/0:p3a\np3b", "0/1:p0c");
        }
    }

    /**
     * Union state: after a restore (here at another parallelism) each partition continues its
     * numbering wherever it is read, and a stale counter kept by a subtask that no longer reads the
     * partition loses to the larger one.
     */
    @Test
    void countersFollowTheirPartitionsAcrossARescale() throws Exception {
        OperatorSubtaskState a;
        OperatorSubtaskState b;
        try (var h = harness(1 << 20, 1)) {
            h.open();
            h.processElement(record(0, 0, "x"));
            h.processElement(record(0, 1, "x"));
            h.processElement(record(1, 0, "x")); // later moves to the other subtask
            a = h.snapshot(1, 1);
        }
        try (var h = harness(1 << 20, 1)) {
            h.open();
            for (int i = 1; i <= 4; i++) {
                h.processElement(record(1, i, "x"));
            }
            b = h.snapshot(1, 1);
        }
        OperatorSubtaskState merged = AbstractStreamOperatorTestHarness.repackageState(a, b);
        try (var h = harness(1 << 20, 1)) {
            h.initializeState(merged);
            h.open();
            h.processElement(record(1, 5, "x"));
            h.processElement(record(0, 2, "x"));
            h.processElement(record(2, 0, "x"));
            assertThat(chunks(h))
                    .extracting(c -> c.lane() + "/" + c.seq())
                    .containsExactly("1/4", "0/2", "2/0");
        }
    }

    /**
     * A fast-forward: the snapshot's lane 0 stands at block 2 (offsets 0 and 1 in blocks 0 and 1),
     * and an earlier run committed its blocks 2 to 4, offsets 2 to 6, after it. The restored lane
     * passes over those offsets (the source delivers them again) and numbers its next block 5; a
     * checkpoint taken before it has read past them keeps the skip, so a resume from that one
     * passes over them too; a lane without a fast-forward goes on as restored.
     */
    @Test
    void aFastForwardPassesOverTheCommittedBlocks() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness(1 << 20, 1)) {
            h.open();
            h.processElement(record(0, 0, "a"));
            h.processElement(record(0, 1, "b"));
            h.processElement(record(1, 0, "c"));
            snapshot = h.snapshot(1, 1);
        }
        var tails = java.util.Map.of(0, new FastForward.LaneTail(2, 4, 6));
        OperatorSubtaskState early;
        try (var h = fastForwarded(tails)) {
            h.initializeState(snapshot);
            h.open();
            for (long offset = 2; offset <= 4; offset++) {
                h.processElement(record(0, offset, "again"));
            }
            early = h.snapshot(2, 2); // before offsets 5 and 6 came again
            h.processElement(record(0, 5, "again"));
            h.processElement(record(0, 6, "again"));
            h.processElement(record(0, 7, "new"));
            h.processElement(record(1, 1, "d"));
            assertThat(chunks(h))
                    .extracting(c -> c.lane() + "/" + c.seq() + ":" + text(c).trim())
                    .containsExactly("0/5:new", "1/1:d");
        }
        // a resume from the checkpoint taken while passing over: no fast-forward of its own
        try (var h = harness(1 << 20, 1)) {
            h.initializeState(early);
            h.open();
            h.processElement(record(0, 5, "again"));
            h.processElement(record(0, 6, "again"));
            h.processElement(record(0, 7, "new"));
            assertThat(chunks(h))
                    .extracting(c -> c.lane() + "/" + c.seq() + ":" + text(c).trim())
                    .containsExactly("0/5:new");
        }
        // a restart from a later checkpoint of the same job: the fast-forward is past
        OperatorSubtaskState later;
        try (var h = fastForwarded(tails)) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(record(0, 7, "new"));
            h.processElement(record(0, 8, "newer"));
            later = h.snapshot(3, 3);
        }
        try (var h = fastForwarded(tails)) {
            h.initializeState(later);
            h.open();
            h.processElement(record(0, 9, "newest"));
            assertThat(chunks(h))
                    .extracting(c -> c.lane() + "/" + c.seq() + ":" + text(c).trim())
                    .containsExactly("0/7:newest");
        }
    }

    /** A snapshot that does not stand where the committed blocks past it start: refused, named. */
    @Test
    void aFastForwardThatDoesNotFitTheSnapshotFails() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness(1 << 20, 1)) {
            h.open();
            h.processElement(record(0, 0, "a"));
            snapshot = h.snapshot(1, 1);
        }
        try (var h = fastForwarded(java.util.Map.of(0, new FastForward.LaneTail(3, 4, 6)))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> h.initializeState(snapshot))
                    .hasMessageContaining(
                            "lane 0 of pipeline 0: the restored snapshot numbers its next block 1,"
                                    + " but the output committed past it holds blocks 3 to 4");
        }
    }

    private static OneInputStreamOperatorTestHarness<LogRecord, RawChunk> fastForwarded(
            java.util.Map<Integer, FastForward.LaneTail> tails) throws Exception {
        return new OneInputStreamOperatorTestHarness<>(
                new LogChunkOperator(1 << 20, 1, 100).withFastForward(tails));
    }
}
