package dev.piper.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openjdk.jol.info.GraphLayout;

class VocabularyTest {

    @Test
    void indicesAreFirstAppearanceRanks() {
        Vocabulary v = new Vocabulary();
        assertThat(v.getOrAdd(42)).isZero();
        assertThat(v.getOrAdd(7)).isEqualTo(1);
        assertThat(v.getOrAdd(42)).isZero();
        assertThat(v.getOrAdd(0)).isEqualTo(2);
        assertThat(v.getOrAdd(-1L)).isEqualTo(3);
        assertThat(v.size()).isEqualTo(4);
        assertThat(v.keyAt(3)).isEqualTo(-1L);
        assertThat(v.indexOf(7)).isEqualTo(1);
        assertThat(v.indexOf(8)).isEqualTo(-1);
        assertThat(v.keysBetween(1, 4)).containsExactly(7, 0, -1L);
    }

    @Test
    void applyMapsABlockAndAddsUnseenKeysInOrder() {
        Vocabulary v = new Vocabulary();
        int[] out = new int[6];
        v.apply(new long[] {5, 9, 5, 1, 9, 99}, 5, out);
        assertThat(out).containsExactly(0, 1, 0, 2, 1, 0);
        assertThat(v.size()).isEqualTo(3);
    }

    /** Agrees with a plain HashMap through many table doublings, on adversarial-looking keys. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void agreesWithAHashMapAcrossGrowth(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Vocabulary v = new Vocabulary();
        Map<Long, Integer> reference = new HashMap<>();
        for (int i = 0; i < 300_000; i++) {
            long key =
                    switch (i % 3) {
                        case 0 -> random.nextLong();
                        case 1 -> random.nextInt(50_000) * 1024L; // low bits all zero
                        default -> random.nextInt(1000);
                    };
            Integer expected = reference.putIfAbsent(key, reference.size());
            assertThat(v.getOrAdd(key))
                    .isEqualTo(expected == null ? reference.size() - 1 : expected);
        }
        assertThat(v.size()).isEqualTo(reference.size());
        reference.forEach((k, idx) -> assertThat(v.indexOf(k)).isEqualTo(idx));
    }

    /**
     * Keys bounded as a modulus or sigrid_hash bounds them turn the table direct when it doubles;
     * later keys outside the range (negative, large) turn it back into a hashed table; every index
     * agrees with a HashMap throughout, and so do a copy and a vocabulary rebuilt from the keys.
     */
    @ParameterizedTest
    @ValueSource(longs = {4, 5})
    void boundedKeysAgreeWithAHashMapThroughTheDirectTableAndBack(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Vocabulary v = new Vocabulary();
        Map<Long, Integer> reference = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            long key =
                    i < 150_000
                            ? random.nextInt(20_000)
                            : switch (i % 3) {
                                case 0 -> -1 - random.nextInt(100);
                                case 1 -> 1L << 40 | random.nextInt(100);
                                default -> random.nextInt(40_000);
                            };
            Integer expected = reference.putIfAbsent(key, reference.size());
            assertThat(v.getOrAdd(key))
                    .as("key %d at step %d", key, i)
                    .isEqualTo(expected == null ? reference.size() - 1 : expected);
            if (i == 149_999) {
                assertThat(v.isDirect()).isTrue();
                assertThat(v.indexOf(20_000)).isEqualTo(-1);
                assertThat(v.indexOf(-5)).isEqualTo(-1); // a lookup outside the range
                Vocabulary copy = v.copy();
                Vocabulary rebuilt = Vocabulary.ofKeys(v.keysBetween(0, v.size()), v.size());
                for (Map.Entry<Long, Integer> e : reference.entrySet()) {
                    assertThat(copy.indexOf(e.getKey())).isEqualTo(e.getValue());
                    assertThat(rebuilt.indexOf(e.getKey())).isEqualTo(e.getValue());
                }
                assertThat(rebuilt).isEqualTo(v);
                assertThat(rebuilt.isDirect()).isTrue();
                assertThat(v.isDirect()).isTrue(); // the lookups outside the range left it so
                assertThat(copy.getOrAdd(-7)).isEqualTo(v.size()); // the copy leaves alone
                assertThat(copy.isDirect()).isFalse();
                assertThat(v.indexOf(-7)).isEqualTo(-1);
            }
        }
        assertThat(v.isDirect()).isFalse();
        assertThat(v.size()).isEqualTo(reference.size());
        reference.forEach((k, idx) -> assertThat(v.indexOf(k)).isEqualTo(idx));
    }

    @Test
    void ofKeysRebuildsAndRejectsDuplicates() {
        Vocabulary v = Vocabulary.ofKeys(new long[] {3, 1, 2}, 3);
        assertThat(v.indexOf(1)).isEqualTo(1);
        assertThat(v).isEqualTo(Vocabulary.ofKeys(new long[] {3, 1, 2, 77}, 3));
        assertThatThrownBy(() -> Vocabulary.ofKeys(new long[] {3, 1, 3}, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duplicate key 3 at indices 0 and 2");
    }

    @Test
    void copyIsIndependent() {
        Vocabulary v = Vocabulary.ofKeys(new long[] {1, 2}, 2);
        Vocabulary c = v.copy();
        c.getOrAdd(3);
        assertThat(v.size()).isEqualTo(2);
        assertThat(c.size()).isEqualTo(3);
        assertThat(v.indexOf(3)).isEqualTo(-1);
    }

    /**
     * The heap cost stays within the 40 bytes per entry budget at every point between table
     * doublings; measured with JOL over the whole object graph (headers and padding included).
     */
    @ParameterizedTest
    @ValueSource(
            ints = {1_000, 65_536, 65_537, 100_000, 1_000_000, 1_572_864, 1_572_865, 3_000_000})
    void heapCostIsAtMost40BytesPerEntry(int entries) {
        Vocabulary v = new Vocabulary();
        SplittableRandom random = new SplittableRandom(entries);
        while (v.size() < entries) {
            v.getOrAdd(random.nextLong());
        }
        long bytes = GraphLayout.parseInstance(v).totalSize();
        assertThat((double) bytes / entries).isLessThanOrEqualTo(40.0);
    }
}
