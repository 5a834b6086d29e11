package dev.piper.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.ops.VocabularyPolicy;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class VocabularyPolicyTest {

    /**
     * The OOV hash is SplitMix64's finalizer. Vectors: the first three outputs of Vigna's
     * splitmix64.c seeded with 0, i.e. mix64(k * 0x9e3779b97f4a7c15) for k = 1, 2, 3.
     */
    @Test
    void theBucketHashIsSplitMix64sFinalizer() {
        long golden = 0x9e3779b97f4a7c15L;
        assertThat(VocabularyPolicy.mix(golden)).isEqualTo(0xe220a8397b1dcdafL);
        assertThat(VocabularyPolicy.mix(2 * golden)).isEqualTo(0x6e789e6aa1b965f4L);
        assertThat(VocabularyPolicy.mix(3 * golden)).isEqualTo(0x06c45d188009454fL);

        VocabularyPolicy p = new VocabularyPolicy(1, 1000, Vocabulary.MAX_SIZE, null);
        assertThat(p.bucketOf(golden)).isEqualTo(Long.remainderUnsigned(0xe220a8397b1dcdafL, 1000));
        assertThat(p.bucketOf(golden)).isEqualTo(535); // 16294208416658607535 mod 1000
        assertThat(new VocabularyPolicy(1, 1, 5, null).bucketOf(golden)).isZero();
    }

    static Stream<Arguments> cases() {
        int b5 = bucket(5, 4), b6 = bucket(6, 4), b7 = bucket(7, 4), b8 = bucket(8, 4);
        int c12 = bucket(12, 3), c13 = bucket(13, 3);
        return Stream.of(
                Arguments.of(
                        "default: first appearance from 0",
                        VocabularyPolicy.FIRST_APPEARANCE,
                        new long[] {5, 6, 5, 7},
                        new int[] {0, 1, 0, 2},
                        3),
                Arguments.of(
                        "oov buckets alone shift the entries",
                        new VocabularyPolicy(1, 4, Vocabulary.MAX_SIZE, null),
                        new long[] {5, 6, 5, 7},
                        new int[] {4, 5, 4, 6},
                        3),
                Arguments.of(
                        "min_count 2: admitted at the second occurrence",
                        new VocabularyPolicy(2, 4, Vocabulary.MAX_SIZE, null),
                        new long[] {5, 6, 5, 7, 6, 6, 5, 8},
                        new int[] {b5, b6, 4, b7, 5, 5, 4, b8},
                        2),
                Arguments.of(
                        "min_count 3 within one block",
                        new VocabularyPolicy(3, 4, Vocabulary.MAX_SIZE, null),
                        new long[] {7, 7, 8, 7, 7, 8},
                        new int[] {b7, b7, b8, 4, 4, b8},
                        1),
                Arguments.of(
                        "max_size 2: later keys go to their bucket",
                        new VocabularyPolicy(1, 3, 2, null),
                        new long[] {10, 11, 12, 10, 13, 11},
                        new int[] {3, 4, c12, 3, c13, 4},
                        2),
                Arguments.of(
                        "min_count and max_size: a key that qualifies too late is not admitted",
                        new VocabularyPolicy(2, 4, 1, null),
                        new long[] {5, 6, 6, 5, 5},
                        new int[] {b5, b6, 4, b5, b5},
                        1),
                Arguments.of(
                        "keys at both ends of the unsigned range",
                        new VocabularyPolicy(1, 2, Vocabulary.MAX_SIZE, null),
                        new long[] {0, -1L, Long.MIN_VALUE, -1L},
                        new int[] {2, 3, 4, 3},
                        3));
    }

    private static int bucket(long key, int buckets) {
        return (int) Long.remainderUnsigned(VocabularyPolicy.mix(key), buckets);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void mapsKeysUnderThePolicy(
            String name, VocabularyPolicy policy, long[] keys, int[] expected, int size) {
        Vocabulary v = new Vocabulary();
        int[] out = new int[keys.length];
        v.apply(keys, keys.length, out, policy);
        assertThat(out).as(name).containsExactly(expected);
        assertThat(v.size()).isEqualTo(size);

        // one key at a time, as blocks of one, gives the same
        Vocabulary w = new Vocabulary();
        int[] one = new int[1];
        for (int i = 0; i < keys.length; i++) {
            w.apply(new long[] {keys[i]}, 1, one, policy);
            assertThat(one[0]).as(name + ", key " + i).isEqualTo(expected[i]);
        }
        assertThat(w).isEqualTo(v);
    }

    @Test
    void countsAreKeptUntilAdmissionAndDroppedWhenFull() {
        VocabularyPolicy p = new VocabularyPolicy(3, 1, 2, null);
        Vocabulary v = new Vocabulary();
        int[] out = new int[8];
        v.apply(new long[] {1, 2, 1, 3, 1, 2}, 6, out, p);
        assertThat(v.size()).isEqualTo(1); // 1 admitted at its third occurrence
        assertThat(v.countOf(1)).isZero();
        assertThat(v.countOf(2)).isEqualTo(2);
        assertThat(v.countOf(3)).isEqualTo(1);
        assertThat(v.countedKeys()).isEqualTo(2);

        v.apply(new long[] {2}, 1, out, p);
        assertThat(out[0]).isEqualTo(2); // base 1 + rank 1
        assertThat(v.size()).isEqualTo(2);
        assertThat(v.countedKeys()).as("full: counts dropped").isZero();
        v.apply(new long[] {3, 3, 3, 4}, 4, out, p);
        assertThat(out).startsWith(0, 0, 0, 0);
        assertThat(v.countedKeys()).isZero();
    }

    /**
     * 200,000 keys from a skewed seeded distribution against a map-based reference; the bound is
     * reached.
     */
    @Test
    void agreesWithAReferenceOnSkewedKeys() {
        VocabularyPolicy p = new VocabularyPolicy(4, 16, 3_000, null);
        SplittableRandom random = new SplittableRandom(7);
        Vocabulary v = new Vocabulary();
        Map<Long, Integer> index = new HashMap<>();
        Map<Long, Integer> seen = new HashMap<>();
        int block = 1000;
        long[] keys = new long[block];
        int[] out = new int[block];
        for (int b = 0; b < 200; b++) {
            for (int i = 0; i < block; i++) {
                keys[i] = (long) Math.floor(1e6 * Math.pow(random.nextDouble(), 3));
            }
            v.apply(keys, block, out, p);
            for (int i = 0; i < block; i++) {
                long k = keys[i];
                Integer id = index.get(k);
                if (id == null && index.size() < 3_000 && seen.merge(k, 1, Integer::sum) >= 4) {
                    id = index.size();
                    index.put(k, id);
                }
                int expected = id != null ? 16 + id : bucket(k, 16);
                assertThat(out[i]).as("block %d row %d key %d", b, i, k).isEqualTo(expected);
            }
        }
        assertThat(v.size()).as("the bound is reached").isEqualTo(3_000).isEqualTo(index.size());
    }

    @Test
    void labelsListWhatDiffersFromTheDefault() {
        assertThat(VocabularyPolicy.FIRST_APPEARANCE.label()).isEqualTo("vocab");
        assertThat(new VocabularyPolicy(3, 8, Vocabulary.MAX_SIZE, null).label())
                .isEqualTo("vocab(min_count=3,oov_buckets=8)");
        assertThat(new VocabularyPolicy(1, 1, 100, "/v/C1.tsv").label())
                .isEqualTo("vocab(oov_buckets=1,max_size=100,import=/v/C1.tsv)");
        assertThat(new VocabularyPolicy(1, 0, Vocabulary.MAX_SIZE, "a").isFirstAppearance())
                .isFalse();
    }

    @Test
    void rejectsPoliciesThatLeaveAKeyWithoutAnIndex() {
        assertThatThrownBy(() -> new VocabularyPolicy(2, 0, Vocabulary.MAX_SIZE, null))
                .hasMessage(
                        "vocab min_count leaves keys without an entry, and those need an OOV"
                                + " bucket: set oov_buckets to at least 1");
        assertThatThrownBy(() -> new VocabularyPolicy(1, 0, 10, null))
                .hasMessageStartingWith("vocab max_size leaves keys without an entry");
        assertThatThrownBy(() -> new VocabularyPolicy(0, 1, 10, null))
                .hasMessage("vocab min_count must be at least 1, not 0");
        assertThatThrownBy(() -> new VocabularyPolicy(1, -1, 10, null))
                .hasMessageStartingWith("vocab oov_buckets must be between 0 and");
        assertThatThrownBy(() -> new VocabularyPolicy(1, 1, 0, null))
                .hasMessageStartingWith("vocab max_size must be between 1 and");
        assertThatThrownBy(() -> new VocabularyPolicy(1, 1, 10, ""))
                .hasMessage("vocab import must name a file");
    }

    @Test
    void restoredCountsRejectAnAdmittedKey() {
        Vocabulary v = Vocabulary.ofKeys(new long[] {9}, 1);
        assertThatThrownBy(() -> v.putCount(9, 1)).hasMessageContaining("which has an entry");
        assertThatThrownBy(() -> v.putCount(8, 0)).hasMessageContaining("count 0");
    }
}
