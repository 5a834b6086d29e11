package dev.piper.pipeline.ops;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * How a column's vocabulary ({@code dev.piper.state.Vocabulary}) gives out indices: which keys get
 * an entry, and where a key without one goes.
 *
 * <h2>Index layout</h2>
 *
 * <pre>
 *   [0, oovBuckets)                      the OOV buckets: a key without an entry goes to bucket
 *                                        mix64(key) mod oovBuckets (unsigned)
 *   [oovBuckets, oovBuckets + size)      the entries, in the order they were admitted
 * </pre>
 *
 * The buckets come first because a streaming vocabulary grows: buckets placed after the entries (as
 * tf.Transform does with its fixed vocabularies) would move with every admission, and an index must
 * never change once written. With the default policy there are no buckets and the entries start at
 * 0, which is DLRM's layout. {@code mix64} is Stafford's variant 13 of the MurmurHash3 finalizer
 * (SplitMix64's), so any tool can recompute a bucket.
 *
 * <h2>Admission</h2>
 *
 * A key seen for the first time is admitted at once, unless:
 *
 * <ul>
 *   <li>{@code minCount > 1}, the frequency threshold: the key is admitted at its {@code
 *       minCount}-th occurrence in the column's stream, and its earlier occurrences go to its OOV
 *       bucket. This is the one-pass (streaming-safe) reading of "ids only for keys seen at least k
 *       times": an index is fixed the moment it is given out, so rows read before a key qualified
 *       keep the bucket (an offline two-pass tool would give those rows the id too). Counts of keys
 *       not yet admitted are kept exactly, in the vocabulary's state.
 *   <li>the vocabulary holds {@code maxSize} entries: a full vocabulary admits nothing more, every
 *       unseen key goes to its bucket, and the counts are dropped.
 *   <li>the vocabulary holds {@code capacity} entries and evicts ({@link Eviction}): a key that is
 *       admitted takes the index of a victim, which leaves the vocabulary, unless no entry may be
 *       evicted yet (TTL: none unseen for {@code ttlRows} rows, or {@code ttlMs} of event time),
 *       when the key goes to its bucket.
 * </ul>
 *
 * Both need at least one OOV bucket, so that every key has an index. An imported vocabulary ({@code
 * importPath}) is the column's first entries, in the file's order, before any input.
 *
 * @param minCount occurrences a key needs before it is admitted, at least 1
 * @param oovBuckets buckets for keys without an entry, 0 to {@link #MAX_OOV_BUCKETS}
 * @param maxSize the most entries, 1 to {@link #MAX_SIZE}
 * @param importPath a vocabulary file whose keys are the first entries, or null
 * @param capacity the most entries of an evicting vocabulary, 1 to {@link #MAX_SIZE}; 0 when it
 *     does not evict
 * @param eviction how a full vocabulary chooses the entry whose index a new key reuses
 * @param ttlRows under {@link Eviction#TTL}, the rows of the column's input after which an unseen
 *     entry may be evicted; 0 otherwise
 * @param ttlMs under {@link Eviction#TTL}, instead of {@code ttlRows}: the event time (ms) after
 *     which an unseen entry may be evicted, on the column's clock (the latest event time of its
 *     input so far); 0 otherwise
 */
public record VocabularyPolicy(
        int minCount,
        int oovBuckets,
        int maxSize,
        String importPath,
        int capacity,
        Eviction eviction,
        long ttlRows,
        long ttlMs)
        implements Serializable {

    /** How a full vocabulary with a {@code capacity} makes room for a new key. */
    public enum Eviction {
        /** It does not: {@code max_size} bounds it, and unseen keys go to their buckets. */
        NONE,
        /**
         * Least frequently used: the entry with the fewest occurrences since it was admitted (a key
         * admitted under {@code min_count} starts with that count); among equals, the one that
         * reached its count first.
         */
        LFU,
        /**
         * Time to live, in rows or event time: the entry seen least recently, once it has not been
         * seen in the last {@code ttlRows} rows of the column (or {@code ttlMs} of its clock);
         * while none has, new keys go to their buckets.
         */
        TTL;

        /** The name in specs: {@code lfu}, {@code ttl}. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A policy that does not evict. */
    public VocabularyPolicy(int minCount, int oovBuckets, int maxSize, String importPath) {
        this(minCount, oovBuckets, maxSize, importPath, 0, Eviction.NONE, 0, 0);
    }

    /** A policy whose time to live, if any, is counted in rows. */
    public VocabularyPolicy(
            int minCount,
            int oovBuckets,
            int maxSize,
            String importPath,
            int capacity,
            Eviction eviction,
            long ttlRows) {
        this(minCount, oovBuckets, maxSize, importPath, capacity, eviction, ttlRows, 0);
    }

    /**
     * The largest number of entries of a vocabulary. Indices are int32 in {@code rows.bin}; the
     * bound keeps a vocabulary's table (two cells an entry) within one Java array.
     */
    public static final int MAX_SIZE = 1 << 29;

    /**
     * Stafford's variant 13 of the MurmurHash3 finalizer: every input bit reaches every output bit.
     * The OOV bucket of a key and a vocabulary's table slot both start from it.
     */
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** The most OOV buckets: with {@link #MAX_SIZE} entries, indices stay int32. */
    public static final int MAX_OOV_BUCKETS = 1 << 30;

    /** Every key admitted at its first appearance, from index 0 (DLRM). */
    public static final VocabularyPolicy FIRST_APPEARANCE =
            new VocabularyPolicy(1, 0, MAX_SIZE, null);

    public VocabularyPolicy {
        if (minCount < 1) {
            throw new IllegalArgumentException(
                    "vocab min_count must be at least 1, not " + minCount);
        }
        if (oovBuckets < 0 || oovBuckets > MAX_OOV_BUCKETS) {
            throw new IllegalArgumentException(
                    "vocab oov_buckets must be between 0 and "
                            + MAX_OOV_BUCKETS
                            + ", not "
                            + oovBuckets);
        }
        if (maxSize < 1 || maxSize > MAX_SIZE) {
            throw new IllegalArgumentException(
                    "vocab max_size must be between 1 and " + MAX_SIZE + ", not " + maxSize);
        }
        if (oovBuckets == 0 && (minCount > 1 || maxSize < MAX_SIZE)) {
            throw new IllegalArgumentException(
                    "vocab "
                            + (minCount > 1 ? "min_count" : "max_size")
                            + " leaves keys without an entry, and those need an OOV bucket:"
                            + " set oov_buckets to at least 1");
        }
        if (importPath != null && importPath.isEmpty()) {
            throw new IllegalArgumentException("vocab import must name a file");
        }
        if (eviction == null) {
            throw new IllegalArgumentException(
                    "vocab eviction must be given (NONE if it does not)");
        }
        if (eviction == Eviction.NONE) {
            if (capacity != 0) {
                throw new IllegalArgumentException(
                        "vocab capacity bounds an evicting vocabulary: set evict to \"lfu\" or"
                                + " \"ttl\" (or use max_size, which stops admitting once full)");
            }
        } else {
            if (capacity < 1 || capacity > MAX_SIZE) {
                throw new IllegalArgumentException(
                        "vocab evict needs a capacity between 1 and "
                                + MAX_SIZE
                                + ", not "
                                + capacity);
            }
            if (maxSize != MAX_SIZE) {
                throw new IllegalArgumentException(
                        "vocab max_size and capacity both bound the vocabulary: give capacity"
                                + " alone with evict");
            }
            if (oovBuckets == 0) {
                throw new IllegalArgumentException(
                        "vocab evict sends a new key to its OOV bucket when no entry may go (under"
                                + " ttl none has expired; under lfu every entry is used by the key's"
                                + " own row): set oov_buckets to at least 1");
            }
        }
        if (ttlMs < 0 || (ttlMs > 0 && ttlRows != 0)) {
            throw new IllegalArgumentException(
                    "vocab ttl is rows or a span of event time, not "
                            + ttlRows
                            + " rows and "
                            + ttlMs
                            + " ms");
        }
        if (eviction == Eviction.TTL) {
            if (ttlRows < 1 && ttlMs < 1) {
                throw new IllegalArgumentException(
                        "vocab evict \"ttl\" needs a ttl of at least 1 row, not " + ttlRows);
            }
        } else if (ttlRows != 0 || ttlMs != 0) {
            throw new IllegalArgumentException(
                    "vocab ttl applies to evict \"ttl\" only, not to "
                            + (eviction == Eviction.NONE
                                    ? "a vocabulary that does not evict"
                                    : "\"" + eviction.label() + "\""));
        }
    }

    /** True when the time to live is counted in event time: the rows' times must reach it. */
    public boolean ttlInEventTime() {
        return ttlMs > 0;
    }

    /** True when a full vocabulary evicts an entry to admit a key ({@code capacity} given). */
    public boolean evicts() {
        return eviction != Eviction.NONE;
    }

    /**
     * The most entries the vocabulary holds: {@code capacity} if it evicts, else {@code maxSize}.
     */
    public int entryBound() {
        return evicts() ? capacity : maxSize;
    }

    /** The default policy: no threshold, no buckets, no bound, nothing imported. */
    public boolean isFirstAppearance() {
        return equals(FIRST_APPEARANCE);
    }

    /** The index of the first entry. */
    public int firstIndex() {
        return oovBuckets;
    }

    /** The OOV bucket (an index below {@link #oovBuckets()}) of a key without an entry. */
    public int bucketOf(long key) {
        return oovBuckets == 1 ? 0 : (int) Long.remainderUnsigned(mix(key), oovBuckets);
    }

    /**
     * The parameters as chains print them: {@code vocab} for the default policy, else e.g. {@code
     * vocab(min_count=3,oov_buckets=8)} with only the parameters that differ from the default.
     */
    public String label() {
        List<String> params = new ArrayList<>(4);
        if (minCount != 1) {
            params.add("min_count=" + minCount);
        }
        if (oovBuckets != 0) {
            params.add("oov_buckets=" + oovBuckets);
        }
        if (maxSize != MAX_SIZE) {
            params.add("max_size=" + maxSize);
        }
        if (evicts()) {
            params.add("capacity=" + capacity);
            params.add("evict=" + eviction.label());
        }
        if (ttlRows != 0) {
            params.add("ttl=" + ttlRows + "rows");
        }
        if (ttlMs != 0) {
            params.add("ttl=" + ttlMs + "ms");
        }
        if (importPath != null) {
            params.add("import=" + importPath);
        }
        return params.isEmpty() ? "vocab" : "vocab(" + String.join(",", params) + ")";
    }
}
