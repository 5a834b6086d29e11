package dev.piper.operators.vocab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.state.Vocabulary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The vocabulary kept as one state entry per key ({@code piper.vocab.store: entries}) gives the
 * default store's indices, block for block: under every policy that does not evict, across a spec
 * switch's epochs, with blocks out of order, through a snapshot and restore, with a cache too small
 * to hold anything for long, and on RocksDB.
 */
class VocabularyEntriesTest {

    @TempDir static Path dir;

    /** Per column: first appearance, a threshold with buckets, a bound, a warm start. */
    private static VocabularyPolicy[] policies;

    @BeforeAll
    static void policies() throws Exception {
        Path imported =
                Files.writeString(dir.resolve("C4.tsv"), "2\t5\n3\t0\n4\t18446744073709551615\n");
        policies =
                new VocabularyPolicy[] {
                    VocabularyPolicy.FIRST_APPEARANCE,
                    new VocabularyPolicy(2, 3, Vocabulary.MAX_SIZE, null),
                    new VocabularyPolicy(1, 2, 50, null),
                    new VocabularyPolicy(1, 2, Vocabulary.MAX_SIZE, imported.toString())
                };
    }

    /**
     * 40 blocks of 4 columns, 64 skewed keys each (0 and negative keys among them), column 0 moving
     * to epoch 1 at block 25; blocks arrive shuffled within windows of three.
     */
    private static List<KeyChunk> blocks() {
        SplittableRandom random = new SplittableRandom(27);
        List<KeyChunk> all = new ArrayList<>();
        for (int window = 0; window < 40; window += 3) {
            List<KeyChunk> shuffled = new ArrayList<>();
            for (int seq = window; seq < Math.min(40, window + 3); seq++) {
                for (int c = 0; c < 4; c++) {
                    long[] keys = new long[64];
                    for (int i = 0; i < keys.length; i++) {
                        int r = random.nextInt(300);
                        keys[i] = (long) r * r / 50 - 3; // skewed, from -3
                    }
                    int epoch = c == 0 && seq >= 25 ? 1 : 0;
                    shuffled.add(
                            KeyChunk.builder()
                                    .lane(0)
                                    .column(c)
                                    .seq(seq)
                                    .keys(keys)
                                    .size(keys.length)
                                    .epoch(epoch)
                                    .policy(policies[c])
                                    .build());
                }
            }
            Collections.shuffle(shuffled, new java.util.Random(window));
            all.addAll(shuffled);
        }
        return all;
    }

    /** What a block's result says: its identity, indices, first new index and new keys. */
    private static String describe(IndexChunk c) {
        return "C"
                + (c.column() + 1)
                + " seq "
                + c.seq()
                + " epoch "
                + c.epoch()
                + ": "
                + Arrays.toString(Arrays.copyOf(c.indices(), c.size()))
                + " from "
                + c.firstNewIndex()
                + " new "
                + Arrays.toString(c.newKeys());
    }

    private static KeyedOneInputStreamOperatorTestHarness<Integer, KeyChunk, IndexChunk> harness(
            VocabularyFunction f, boolean rocksdb) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(f), KeyChunk::column, Types.INT);
        if (rocksdb) {
            h.setStateBackend(new EmbeddedRocksDBStateBackend(true));
        }
        return h;
    }

    /**
     * Every block's result, a snapshot taken after {@code 60} chunks and restored into a new one.
     */
    private static List<String> run(VocabularyFunction f, boolean rocksdb) throws Exception {
        List<KeyChunk> blocks = blocks();
        List<String> out = new ArrayList<>();
        OperatorSubtaskState snapshot;
        try (var h = harness(f, rocksdb)) {
            h.open();
            for (KeyChunk b : blocks.subList(0, 60)) {
                h.processElement(new StreamRecord<>(b));
            }
            h.extractOutputValues().forEach(c -> out.add(describe(c)));
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness(f, rocksdb)) {
            h.initializeState(snapshot);
            h.open();
            for (KeyChunk b : blocks.subList(60, blocks.size())) {
                h.processElement(new StreamRecord<>(b));
            }
            h.extractOutputValues().forEach(c -> out.add(describe(c)));
        }
        return out;
    }

    @Test
    void entriesGiveTheDefaultStoresIndicesBlockForBlock() throws Exception {
        List<String> expected = run(new VocabularyFunction(), false);
        assertThat(expected).hasSize(160);
        // the policies are at work: buckets, a full bound, imported keys, two epochs
        assertThat(expected).anyMatch(s -> s.startsWith("C3 seq 39 epoch 0") && s.endsWith("[]"));
        assertThat(expected)
                .anyMatch(s -> s.startsWith("C4 seq 0 epoch 0") && s.contains("new [5, 0, -1"));
        assertThat(expected).anyMatch(s -> s.startsWith("C1 seq 25 epoch 1: [0,"));

        assertThat(run(new VocabularyFunction().withEntries(1 << 16), false)).isEqualTo(expected);
        assertThat(run(new VocabularyFunction().withEntries(16), false)).isEqualTo(expected);
        assertThat(run(new VocabularyFunction().withEntries(16), true)).isEqualTo(expected);
    }

    @Test
    void anEvictingColumnKeepsTheDefaultStore() throws Exception {
        VocabularyPolicy lfu =
                new VocabularyPolicy(
                        1, 1, Vocabulary.MAX_SIZE, null, 2, VocabularyPolicy.Eviction.LFU, 0);
        try (var h = harness(new VocabularyFunction().withEntries(16), false)) {
            h.open();
            h.processElement(
                    new StreamRecord<>(
                            KeyChunk.builder()
                                    .lane(0)
                                    .column(0)
                                    .seq(0)
                                    .keys(new long[] {7, 8, 9})
                                    .size(3)
                                    .epoch(0)
                                    .policy(lfu)
                                    .build()));
            IndexChunk out = h.extractOutputValues().get(0);
            assertThat(out.assignments()).isNotNull();
            assertThat(out.assignments().size()).isEqualTo(3); // 7, 8, then 9 evicting one
            h.getOperator().setCurrentKey(0);
            assertThat(
                            h.getOperator()
                                    .getKeyedStateStore()
                                    .getState(VocabularyFunction.VOCABULARY)
                                    .value()
                                    .size())
                    .isEqualTo(2);
        }
    }

    @Test
    void anEmptyCacheIsRefused() {
        assertThatThrownBy(() -> new VocabularyFunction().withEntries(0))
                .hasMessageContaining("at least 1 entry, not 0");
    }
}
