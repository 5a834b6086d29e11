package dev.piper.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.pipeline.ops.VocabularyPolicy.Eviction;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

class VocabularyEvictionTest {

    private static final int OOV = 4;

    private static VocabularyPolicy lfu(int capacity) {
        return new VocabularyPolicy(
                1, OOV, VocabularyPolicy.MAX_SIZE, null, capacity, Eviction.LFU, 0);
    }

    private static VocabularyPolicy ttl(int capacity, long rows) {
        return new VocabularyPolicy(
                1, OOV, VocabularyPolicy.MAX_SIZE, null, capacity, Eviction.TTL, rows);
    }

    /** Applies one key per row; returns the indices. */
    private static int[] apply(Vocabulary v, VocabularyPolicy p, VocabularyEvents e, long... keys) {
        int[] out = new int[keys.length];
        v.apply(keys, keys.length, out, p, null, e);
        return out;
    }

    @Test
    void lfuEvictsTheLeastFrequentAndReusesItsIndex() {
        Vocabulary v = new Vocabulary();
        VocabularyEvents e = new VocabularyEvents();
        VocabularyPolicy p = lfu(3);
        // a: 3, b: 2, c: 1 occurrence; d evicts c and takes its index
        int[] out = apply(v, p, e, 10, 20, 30, 10, 10, 20, 40);
        assertThat(out).containsExactly(4, 5, 6, 4, 4, 5, 6);
        assertThat(e.size()).isEqualTo(4);
        assertThat(e.fresh()).isEqualTo(3);
        assertThat(e.indices()).containsExactly(0, 1, 2, 2);
        assertThat(e.keys()).containsExactly(10, 20, 30, 40);
        assertThat(e.rows()).containsExactly(0, 1, 2, 6);
        assertThat(e.evicted()).containsExactly(30);
        assertThat(v.indexOf(30)).isEqualTo(-1);
        assertThat(v.indexOf(40)).isEqualTo(2);
        assertThat(v.assignments()).isEqualTo(4);
        // d (count 1) is now the victim: e takes index 2 again; c comes back and evicts e
        out = apply(v, p, e, 50, 30);
        assertThat(out).containsExactly(6, 6);
        assertThat(e.evicted()).containsExactly(40, 50);
        assertThat(e.rows()).containsExactly(0, 1);
        assertThat(v.evictionStamp(0)).isEqualTo(3);
    }

    @Test
    void lfuBreaksTiesByWhoReachedTheCountFirst() {
        Vocabulary v = new Vocabulary();
        VocabularyEvents e = new VocabularyEvents();
        VocabularyPolicy p = lfu(3);
        // all three reach count 2, in the order b, c, a: a new key evicts b
        apply(v, p, e, 1, 2, 3, 2, 3, 1, 9);
        assertThat(e.evicted()).containsExactly(2L);
        assertThat(v.indexOf(9)).isEqualTo(1);
    }

    @Test
    void ttlEvictsOnlyEntriesUnseenForTheTtl() {
        Vocabulary v = new Vocabulary();
        VocabularyEvents e = new VocabularyEvents();
        VocabularyPolicy p = ttl(2, 3);
        // rows 1..: a(1) b(2) c(3): full, a last seen 2 rows ago: c gets a bucket
        int[] out = apply(v, p, e, 100, 200, 300);
        assertThat(out[2]).isEqualTo(p.bucketOf(300));
        assertThat(e.size()).isEqualTo(2);
        // row 4: a unseen for 3 rows: d evicts a; row 5: b unseen for 3 rows: c evicts b
        out = apply(v, p, e, 400, 300);
        assertThat(out).containsExactly(4, 5);
        assertThat(e.evicted()).containsExactly(100, 200);
        assertThat(e.rows()).containsExactly(0, 1);
        assertThat(v.rowsApplied()).isEqualTo(5);
        assertThat(v.evictionStamp(0)).isEqualTo(4);
    }

    @Test
    void aTtlInEventTimeEvictsEntriesTheColumnsClockHasLeftBehind() {
        Vocabulary v = new Vocabulary();
        VocabularyEvents e = new VocabularyEvents();
        VocabularyPolicy p =
                new VocabularyPolicy(
                        1, OOV, VocabularyPolicy.MAX_SIZE, null, 2, Eviction.TTL, 0, 60_000);
        int[] out = new int[3];
        // a at 0 s, b at 30 s: full; c at 50 s: a unseen for 50 s only, c gets a bucket
        v.apply(new long[] {100, 200, 300}, 3, out, p, null, new long[] {0, 30_000, 50_000}, e);
        assertThat(out).containsExactly(4, 5, p.bucketOf(300));
        // a late row (at 10 s) does not turn the clock back; at 61 s a has been unseen for 61 s
        v.apply(new long[] {400, 300}, 2, out, p, null, new long[] {10_000, 61_000}, e);
        assertThat(out[0]).isEqualTo(p.bucketOf(400));
        assertThat(out[1]).isEqualTo(4);
        assertThat(e.evicted()).containsExactly(100);
        assertThat(v.eventClock()).isEqualTo(61_000);
        assertThat(v.evictionStamp(0)).isEqualTo(61_000);
        // rows without keys move the clock too: empty lists at 95 s; then d evicts b (unseen 65 s)
        v.apply(new long[0], 0, new int[0], p, new int[] {0, 0, 0}, new long[] {95_000, 90_000}, e);
        assertThat(v.eventClock()).isEqualTo(95_000);
        v.apply(new long[] {500}, 1, out, p, new int[] {0, 1}, new long[] {95_000}, e);
        assertThat(out[0]).isEqualTo(5);
        assertThat(e.evicted()).containsExactly(200);
        assertThatThrownBy(() -> v.apply(new long[] {1}, 1, out, p, null, null, e))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs each row's event time");
    }

    @Test
    void aListRowNeverEvictsAnIndexItUses() {
        Vocabulary v = new Vocabulary();
        VocabularyEvents e = new VocabularyEvents();
        VocabularyPolicy p = lfu(2);
        long[] keys = {1, 2, 3, 3, 4};
        int[] out = new int[5];
        // row 0: 1, 2, 3 (3 finds no entry its row does not use); row 1: 3, 4
        v.apply(keys, 5, out, p, new int[] {0, 3, 5}, e);
        assertThat(out[0]).isEqualTo(4);
        assertThat(out[1]).isEqualTo(5);
        assertThat(out[2]).isEqualTo(p.bucketOf(3));
        // row 1: 3 evicts 1 (count 1, first), 4 then may not evict 3 (its row's): evicts 2
        assertThat(out[3]).isEqualTo(4);
        assertThat(out[4]).isEqualTo(5);
        assertThat(e.evicted()).containsExactly(1, 2);
        assertThat(e.rows()).containsExactly(0, 0, 1, 1);
        assertThat(v.rowsApplied()).isEqualTo(2);
    }

    @Test
    void aListChunkWithoutRowsOrWithEmptyListsApplies() {
        Vocabulary v = new Vocabulary();
        VocabularyEvents e = new VocabularyEvents();
        v.apply(new long[0], 0, new int[0], lfu(2), new int[] {0}, e);
        assertThat(v.rowsApplied()).isZero();
        int[] out = new int[2];
        // rows [], [5], [], [6]
        v.apply(new long[] {5, 6}, 2, out, lfu(2), new int[] {0, 0, 1, 1, 2}, e);
        assertThat(e.rows()).containsExactly(1, 3);
        assertThat(v.rowsApplied()).isEqualTo(4);
    }

    @Test
    void minCountComposesWithEviction() {
        Vocabulary v = new Vocabulary();
        VocabularyEvents e = new VocabularyEvents();
        VocabularyPolicy p =
                new VocabularyPolicy(2, OOV, VocabularyPolicy.MAX_SIZE, null, 1, Eviction.LFU, 0);
        int[] out = apply(v, p, e, 7, 7, 7, 8, 8);
        // 7 admitted at its 2nd occurrence with count 2, then 3; 8 admitted at its 2nd with
        // count 2, evicting 7 (count 3)? no: LFU evicts the least frequent, 7 is the only entry
        assertThat(out).containsExactly(p.bucketOf(7), 4, 4, p.bucketOf(8), 4);
        assertThat(e.keys()).containsExactly(7, 8);
        assertThat(e.evicted()).containsExactly(7);
    }

    @Test
    void anEvictingPolicyRefusesTheShortApply() {
        assertThatThrownBy(() -> new Vocabulary().apply(new long[] {1}, 1, new int[1], lfu(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("evicting");
    }

    /**
     * A long seeded stream through a small capacity, with list rows, both policies: no key holds
     * two indices and no index two keys, replaying the events row by row names every output index's
     * own key, and a snapshot taken midway and restored continues exactly as the original.
     */
    @Test
    void replayingTheEventsNamesEveryRowsKeysAndARestoreContinuesAlike() throws IOException {
        for (VocabularyPolicy p :
                List.of(lfu(50), ttl(50, 40), lfu(1), ttl(200, 1), withMinCount(lfu(30), 3))) {
            SplittableRandom random = new SplittableRandom(p.hashCode());
            Vocabulary live = new Vocabulary();
            Vocabulary restored = null;
            Map<Integer, Long> replay = new HashMap<>();
            VocabularyEvents e = new VocabularyEvents();
            VocabularyEvents e2 = new VocabularyEvents();
            for (int block = 0; block < 200; block++) {
                int rows = 1 + random.nextInt(20);
                int[] offsets = new int[rows + 1];
                List<Long> keys = new ArrayList<>();
                for (int r = 0; r < rows; r++) {
                    int len = random.nextInt(4);
                    for (int k = 0; k < len; k++) {
                        // skewed: small keys are frequent
                        keys.add((long) Math.min(random.nextInt(400), random.nextInt(400)));
                    }
                    offsets[r + 1] = keys.size();
                }
                long[] in = keys.stream().mapToLong(Long::longValue).toArray();
                int[] out = new int[in.length];
                live.apply(in, in.length, out, p, offsets, e);
                // replay: events take effect at their rows, in order
                int next = 0;
                int[] idx = e.indices();
                long[] ks = e.keys();
                int[] at = e.rows();
                for (int r = 0; r < rows; r++) {
                    while (next < e.size() && at[next] == r) {
                        replay.put(idx[next], ks[next]);
                        next++;
                    }
                    for (int i = offsets[r]; i < offsets[r + 1]; i++) {
                        if (out[i] >= OOV) {
                            assertThat(replay.get(out[i] - OOV))
                                    .as(p + " row key")
                                    .isEqualTo(in[i]);
                        } else {
                            assertThat(out[i]).isEqualTo(p.bucketOf(in[i]));
                        }
                    }
                }
                assertThat(next).isEqualTo(e.size());
                checkConsistent(live, p.capacity());
                if (block == 80) {
                    DataOutputSerializer bytes = new DataOutputSerializer(1024);
                    VocabularySerializer.INSTANCE.serialize(live, bytes);
                    restored =
                            VocabularySerializer.INSTANCE.deserialize(
                                    new DataInputDeserializer(bytes.getCopyOfBuffer()));
                    assertThat(restored).isEqualTo(live);
                } else if (restored != null) {
                    int[] out2 = new int[in.length];
                    restored.apply(in, in.length, out2, p, offsets, e2);
                    assertThat(out2).isEqualTo(out);
                    assertThat(e2.keys()).isEqualTo(e.keys());
                    assertThat(e2.evicted()).isEqualTo(e.evicted());
                }
            }
            assertThat(restored).isEqualTo(live);
            assertThat(live.assignments()).as(p.label()).isGreaterThan(live.size());
        }
    }

    private static VocabularyPolicy withMinCount(VocabularyPolicy p, int minCount) {
        return new VocabularyPolicy(
                minCount,
                p.oovBuckets(),
                p.maxSize(),
                null,
                p.capacity(),
                p.eviction(),
                p.ttlRows());
    }

    /**
     * LFU and TTL over keys bounded to [0, 12,000) at a capacity of 5,000: the table turns direct
     * as it grows, evictions free direct cells; a plain reference model of the policy (counts and
     * stamps per key) gives the same indices, and the vocabulary stays consistent.
     */
    @Test
    void evictionOverBoundedKeysKeepsTheDirectTableConsistent() {
        for (VocabularyPolicy p : List.of(lfu(5_000), ttl(5_000, 3_000))) {
            Vocabulary v = new Vocabulary();
            Vocabulary hashed = new Vocabulary();
            VocabularyEvents e = new VocabularyEvents();
            VocabularyEvents he = new VocabularyEvents();
            SplittableRandom random = new SplittableRandom(11);
            long[] keys = new long[1_000];
            long[] far = new long[keys.length];
            int[] out = new int[keys.length];
            int[] expected = new int[keys.length];
            for (int block = 0; block < 60; block++) {
                for (int i = 0; i < keys.length; i++) {
                    keys[i] = random.nextInt(12_000);
                    far[i] = keys[i] + (1L << 40); // the same keys, out of any direct range
                }
                v.apply(keys, keys.length, out, p, null, e);
                hashed.apply(far, far.length, expected, p, null, he);
                assertThat(out).as("block %d under %s", block, p.label()).isEqualTo(expected);
                assertThat(e.indices()).isEqualTo(he.indices());
                checkConsistent(v, p.capacity());
            }
            assertThat(v.isDirect()).isTrue();
            assertThat(hashed.isDirect()).isFalse();
        }
    }

    private static void checkConsistent(Vocabulary v, int capacity) {
        assertThat(v.size()).isLessThanOrEqualTo(capacity);
        long[] keys = v.keysBetween(0, v.size());
        assertThat(Arrays.stream(keys).distinct().count()).isEqualTo(keys.length);
        for (int i = 0; i < keys.length; i++) {
            assertThat(v.indexOf(keys[i])).isEqualTo(i);
        }
        int[] seen = new int[1];
        v.forEachInEvictionOrder((index, stamp, lastRow) -> seen[0]++);
        assertThat(seen[0]).isEqualTo(v.size());
    }

    /**
     * Heap per entry of a full LFU vocabulary, JOL over the whole graph: the appending vocabulary's
     * at most 28 bytes plus the order's 24.
     */
    @Test
    void anEvictingEntryCostsAtMost52BytesOfHeap() {
        int capacity = 1 << 16;
        Vocabulary v = new Vocabulary();
        VocabularyEvents e = new VocabularyEvents();
        long[] keys = new long[4096];
        int[] out = new int[keys.length];
        SplittableRandom random = new SplittableRandom(5);
        for (int block = 0; block < 40; block++) {
            for (int i = 0; i < keys.length; i++) {
                keys[i] = random.nextLong();
            }
            v.apply(keys, keys.length, out, lfu(capacity), null, e);
        }
        assertThat(v.size()).isEqualTo(capacity);
        long bytes = GraphLayout.parseInstance(v).totalSize();
        assertThat((double) bytes / capacity).isLessThanOrEqualTo(52.0);
    }
}
