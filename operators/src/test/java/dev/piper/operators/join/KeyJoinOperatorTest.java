package dev.piper.operators.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.join.JoinInput;
import dev.piper.core.join.JoinedLine;
import dev.piper.pipeline.join.ActionStream;
import dev.piper.pipeline.join.EmitPolicy;
import dev.piper.pipeline.join.JoinSettings;
import dev.piper.pipeline.join.LabelSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.contrib.streaming.state.EmbeddedRocksDBStateBackend;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The stream's key join under Flink's harness: rows as the watermark closes their windows, and the
 * count of the impressions its state holds, the gauge's, kept across a restore and summed into the
 * first subtask after a rescale.
 */
class KeyJoinOperatorTest {

    private static final int MAX_PARALLELISM = 128;

    private static final LabelSpec LABELS =
            new LabelSpec(
                    "rid",
                    new JoinSettings(
                            List.of(new ActionStream("click", 60_000, EmitPolicy.WAIT)), 0, 0, 1),
                    List.of(JoinSerializersTest.source()));

    private static KeyedOneInputStreamOperatorTestHarness<String, JoinInput, JoinedLine> harness(
            KeyJoinOperator f, int parallelism, int subtask) throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                f, JoinInput::key, Types.STRING, MAX_PARALLELISM, parallelism, subtask);
    }

    private static JoinInput impression(String key, long t) {
        byte[] line =
                ("{\"rid\":\"" + key + "\",\"ts\":" + t + "}").getBytes(StandardCharsets.UTF_8);
        return new JoinInput(-1, key, t, 0, t, Long.MIN_VALUE, null, 0, line, false);
    }

    private static JoinInput click(String key, long t) {
        byte[] raw = ("{\"rid\":\"" + key + "\",\"cid\":\"c\"}").getBytes(StandardCharsets.UTF_8);
        return new JoinInput(0, key, t, 0, t, Long.MIN_VALUE, "c-" + key, 0, raw, false);
    }

    @Test
    void theImpressionsHeldAreCountedAcrossARestoreAndARescale() throws Exception {
        KeyJoinOperator f = new KeyJoinOperator(LABELS, 100);
        OperatorSubtaskState snapshot;
        try (var h = harness(f, 1, 0)) {
            h.open();
            for (int i = 0; i < 4; i++) {
                h.processElement(impression("k" + i, 1_000 * (i + 1)), 1_000 * (i + 1));
            }
            h.processElement(click("k1", 2_500), 2_500);
            assertThat(f.impressionsHeld()).isEqualTo(4);
            // the first two windows close: k0 unclicked, k1 clicked; both then forgotten
            h.processWatermark(62_000);
            List<JoinedLine> rows = new ArrayList<>(h.extractOutputValues());
            rows.sort(JoinedLine.ORDER); // the order lane's: keys advance in order of falling due
            assertThat(rows).extracting(JoinedLine::key).containsExactly("k0", "k1");
            assertThat(new String(rows.get(1).line(), StandardCharsets.UTF_8))
                    .startsWith("{\"labels\":{\"click\":1,\"click_delay_ms\":500,");
            assertThat(f.impressionsHeld()).isEqualTo(2);
            snapshot = h.snapshot(1, 1);
        }

        KeyJoinOperator restored = new KeyJoinOperator(LABELS, 100);
        try (var h = harness(restored, 1, 0)) {
            h.initializeState(snapshot);
            h.open();
            assertThat(restored.impressionsHeld()).isEqualTo(2);
            h.processWatermark(Long.MAX_VALUE); // every window closes, every impression forgotten
            assertThat(h.extractOutputValues())
                    .extracting(JoinedLine::key)
                    .containsExactly("k2", "k3");
            assertThat(restored.impressionsHeld()).isZero();
        }

        long[] held = new long[2];
        List<String> keys = new ArrayList<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            KeyJoinOperator part = new KeyJoinOperator(LABELS, 100);
            try (var h = harness(part, 2, subtask)) {
                h.initializeState(
                        AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                snapshot, MAX_PARALLELISM, 1, 2, subtask));
                h.open();
                held[subtask] = part.impressionsHeld();
                // each subtask queues the keys it was given, from their state
                h.processWatermark(Long.MAX_VALUE);
                h.extractOutputValues().forEach(l -> keys.add(l.key()));
            }
        }
        assertThat(held).as("the first subtask takes the sum").containsExactly(2, 0);
        assertThat(keys).containsExactlyInAnyOrder("k2", "k3");
    }

    @Test
    void aKeyDueAgainAtAnotherTimeIsAdvancedOnceAtEach() throws Exception {
        KeyJoinOperator f = new KeyJoinOperator(LABELS, 100);
        try (var h = harness(f, 1, 0)) {
            h.open();
            // alone in its key, the impression is first due as its window closes, at 70 s
            h.processElement(impression("k", 10_000), 10_000);
            // the click is due before: the key is queued at its time too
            h.processElement(click("k", 5_000), 5_000);
            assertThat(f.queued()).as("queued at 70 s, then at 5 s").isEqualTo(2);
            h.processWatermark(20_000); // the click is an orphan: its key had no impression yet
            assertThat(h.extractOutputValues()).isEmpty();
            assertThat(f.impressionsHeld()).isEqualTo(1);
            // advanced at 5 s and queued at 70 s again, beside its first entry there
            assertThat(f.queued()).isEqualTo(2);
            h.processWatermark(70_000); // the window closes: one row; the second entry stale
            List<JoinedLine> rows = h.extractOutputValues();
            assertThat(rows).extracting(JoinedLine::key).containsExactly("k");
            assertThat(new String(rows.get(0).line(), StandardCharsets.UTF_8))
                    .startsWith("{\"labels\":{\"click\":0,");
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).hasSize(1);
            assertThat(f.impressionsHeld()).isZero();
            assertThat(f.queued()).isZero();
            assertThat(h.getSideOutput(KeyJoinOperator.DEAD_LETTERS))
                    .extracting(r -> r.getValue().reason())
                    .containsExactly("orphan_action");
        }
    }

    /**
     * Snapshots of the key join written by the build whose state was the keys' objects (format 1,
     * 58a09163), on the heap and in RocksDB, restore in this one, each key read into format 2: four
     * impressions k0 to k3 at 1 to 4 s, clicks for k1 at 2.5 s, k2 at 3.5 s and k3 at 63.5 s, the
     * watermark at 62 s (k0's and k1's rows out and forgotten; k2 placed with its click joined, k3
     * alone with its click waiting). Written with this test's harness and operator by a test of
     * that build, {@code OperatorSnapshotUtil.writeStateHandle} of {@code snapshot(1, 1)}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"heap", "rocksdb"})
    void aSnapshotOfFormatOneRestoresAndGoesOn(String backend) throws Exception {
        String resource =
                Path.of(
                                getClass()
                                        .getResource("key-join-format-1-" + backend + ".snapshot")
                                        .toURI())
                        .toString();
        KeyJoinOperator restored = new KeyJoinOperator(LABELS, 100);
        OperatorSubtaskState again;
        try (var h = harness(restored, 1, 0)) {
            h.setStateBackend(
                    backend.equals("heap")
                            ? new HashMapStateBackend()
                            : new EmbeddedRocksDBStateBackend());
            h.initializeState(OperatorSnapshotUtil.readStateHandle(resource));
            h.open();
            assertThat(restored.impressionsHeld()).isEqualTo(2);
            h.processWatermark(63_000); // k2's window closes at 63 s, k3's click still waits
            assertThat(h.extractOutputValues())
                    .extracting(l -> new String(l.line(), StandardCharsets.UTF_8))
                    .containsExactly(
                            "{\"labels\":{\"click\":1,\"click_delay_ms\":500,\"click_count\":1,"
                                    + "\"click_value\":0,\"weight\":1,\"copy\":0},\"rid\":\"k2\",\"ts\":3000}");
            again = h.snapshot(2, 2); // in format 2
        }
        try (var h = harness(new KeyJoinOperator(LABELS, 100), 1, 0)) {
            h.setStateBackend(
                    backend.equals("heap")
                            ? new HashMapStateBackend()
                            : new EmbeddedRocksDBStateBackend());
            h.initializeState(again);
            h.open();
            h.processWatermark(Long.MAX_VALUE); // k3's click, 59.5 s after it, joins
            assertThat(h.extractOutputValues())
                    .extracting(JoinedLine::key, l -> new String(l.line(), StandardCharsets.UTF_8))
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(
                                    "k3",
                                    "{\"labels\":{\"click\":1,\"click_delay_ms\":59500,"
                                            + "\"click_count\":1,\"click_value\":0,\"weight\":1,\"copy\":0},"
                                            + "\"rid\":\"k3\",\"ts\":4000}"));
        }
    }
}
