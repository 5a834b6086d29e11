package dev.piper.operators.vocab;

import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.state.Vocabulary;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.runtime.TupleSerializer;

/**
 * A column's vocabulary as one keyed-state entry per key ({@code piper.vocab.store: entries}), for
 * vocabularies larger than memory: on RocksDB (or ForSt) each block reads and writes only the
 * entries of its keys, and an incremental checkpoint uploads only what changed, where the default
 * store ({@link Vocabulary} as one state value) reads and writes the whole vocabulary per block on
 * those backends.
 *
 * <p>The indices are the default store's, policy for policy (first appearance, {@code min_count},
 * {@code oov_buckets}, {@code max_size}, {@code import}): an entry, once made, never changes, so a
 * heap cache in front of the state (direct-mapped, {@code piper.vocab.cache-entries} per column and
 * epoch) needs no write-back and no invalidation; it starts empty after a restore, and a miss only
 * costs a state read. A policy that evicts keeps the default store: its capacity bounds its memory.
 *
 * <p>State, keyed by column like the rest of {@link VocabularyFunction}'s:
 *
 * <ul>
 *   <li>{@link #ENTRIES}: (epoch, key) to its entry number (the index less the OOV buckets).
 *   <li>{@link #SIZES}: per epoch, the entries made.
 *   <li>{@link #COUNTS}: under a frequency threshold, (epoch, key) to the occurrences of a key not
 *       admitted yet (removed when it is).
 * </ul>
 *
 * <p>Not thread-safe: one per function instance, used from its task thread.
 */
final class VocabularyEntries {

    static final TypeSerializer<Tuple2<Integer, Long>> EPOCH_KEY =
            new TupleSerializer<>(
                    tupleClass(),
                    new TypeSerializer<?>[] {IntSerializer.INSTANCE, LongSerializer.INSTANCE});

    static final MapStateDescriptor<Tuple2<Integer, Long>, Integer> ENTRIES =
            new MapStateDescriptor<>("vocabulary-entries", EPOCH_KEY, IntSerializer.INSTANCE);
    static final MapStateDescriptor<Integer, Integer> SIZES =
            new MapStateDescriptor<>(
                    "vocabulary-sizes", IntSerializer.INSTANCE, IntSerializer.INSTANCE);
    static final MapStateDescriptor<Tuple2<Integer, Long>, Integer> COUNTS =
            new MapStateDescriptor<>("vocabulary-counts", EPOCH_KEY, IntSerializer.INSTANCE);

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Class<Tuple2<Integer, Long>> tupleClass() {
        return (Class) Tuple2.class;
    }

    private final MapState<Tuple2<Integer, Long>, Integer> entries;
    private final MapState<Integer, Integer> sizes;
    private final MapState<Tuple2<Integer, Long>, Integer> counts;
    private final int cacheEntries;

    /** By (column, epoch): the cache of its entries. */
    private final Map<Long, EntryCache> caches = new HashMap<>();

    /** The probe key, reused: the state copies what it keeps. */
    private final Tuple2<Integer, Long> probe = new Tuple2<>();

    private int lastSize;

    VocabularyEntries(RuntimeContext context, int cacheEntries) {
        this.entries = context.getMapState(ENTRIES);
        this.sizes = context.getMapState(SIZES);
        this.counts = context.getMapState(COUNTS);
        this.cacheEntries = cacheEntries;
    }

    /** The entries of the epoch the last {@link #apply} touched, after it. */
    int lastSize() {
        return lastSize;
    }

    /**
     * GenVocab + ApplyVocab for one block, as {@link VocabularyFunction#apply(Vocabulary,
     * KeyChunk)} does for the same policy and entries.
     */
    IndexChunk apply(KeyChunk chunk) throws Exception {
        VocabularyPolicy policy = chunk.policy();
        int epoch = chunk.epoch();
        Integer stored = sizes.get(epoch);
        // an imported vocabulary's first block reports the imported entries as added too
        long[] importedKeys =
                stored == null && policy.importPath() != null
                        ? importEntries(epoch, policy, chunk.column())
                        : null;
        int size = stored != null ? stored : importedKeys != null ? importedKeys.length : 0;
        int before = importedKeys != null ? 0 : size;
        EntryCache cache =
                caches.computeIfAbsent(
                        ((long) chunk.column() << 32) | (epoch & 0xffffffffL),
                        k -> new EntryCache(cacheEntries));
        int base = policy.firstIndex();
        int minCount = policy.minCount();
        int maxSize = policy.maxSize();
        long[] in = chunk.keys();
        int n = chunk.size();
        int[] out = new int[n];
        long[] added = new long[Math.min(n, 64)];
        int addedCount = 0;
        probe.f0 = epoch;
        for (int i = 0; i < n; i++) {
            long key = in[i];
            int entry = cache.get(key);
            if (entry < 0) {
                probe.f1 = key;
                Integer found = entries.get(probe);
                if (found != null) {
                    entry = found;
                    cache.put(key, entry);
                } else if (size < maxSize && admits(epoch, key, minCount)) {
                    entry = size++;
                    entries.put(Tuple2.of(epoch, key), entry);
                    cache.put(key, entry);
                    if (addedCount == added.length) {
                        added = java.util.Arrays.copyOf(added, Math.min(n, addedCount * 2));
                    }
                    added[addedCount++] = key;
                }
            }
            out[i] = entry >= 0 ? base + entry : policy.bucketOf(key);
        }
        if (stored == null || size != stored) {
            sizes.put(epoch, size);
        }
        lastSize = size;
        long[] reported = java.util.Arrays.copyOf(added, addedCount);
        if (importedKeys != null) {
            long[] all = new long[importedKeys.length + addedCount];
            System.arraycopy(importedKeys, 0, all, 0, importedKeys.length);
            System.arraycopy(added, 0, all, importedKeys.length, addedCount);
            reported = all;
        }
        return new IndexChunk(
                chunk.lane(),
                chunk.column(),
                chunk.seq(),
                out,
                n,
                base + before,
                reported,
                epoch,
                chunk.offsets());
    }

    /**
     * Takes {@code keys}, the entries committed past a restored snapshot from entry {@code from},
     * into the chunk's epoch where it stops short of them ({@link VocabularyFunction}'s
     * fast-forward).
     */
    void catchUp(
            int epoch,
            VocabularyPolicy policy,
            int columnIndex,
            long from,
            long[] keys,
            String column)
            throws Exception {
        Integer stored = sizes.get(epoch);
        int size = stored != null ? stored : 0;
        if (stored == null && policy.importPath() != null) {
            // reported by the committed output already
            size = importEntries(epoch, policy, columnIndex).length;
        }
        int start = VocabularyFunction.catchUpStart(column, size, from, keys.length);
        int base = policy.firstIndex();
        for (int i = 0; i < keys.length; i++) {
            Tuple2<Integer, Long> k = Tuple2.of(epoch, keys[i]);
            Integer found = entries.get(k);
            if (i < start ? found == null || found != from + i : found != null) {
                throw VocabularyFunction.mismatch(column, from + i + base);
            }
            if (i >= start) {
                entries.put(k, (int) (from + i));
            }
        }
        sizes.put(epoch, (int) Math.max(size, from + keys.length));
    }

    /** Counts an occurrence of a key without an entry; whether it now reaches the threshold. */
    private boolean admits(int epoch, long key, int minCount) throws Exception {
        if (minCount <= 1) {
            return true;
        }
        probe.f1 = key;
        Integer seen = counts.get(probe);
        int now = (seen == null ? 0 : seen) + 1;
        if (now < minCount) {
            counts.put(Tuple2.of(epoch, key), now);
            return false;
        }
        if (seen != null) {
            counts.remove(probe);
        }
        return true;
    }

    /** The policy's import file as the epoch's first entries; returns their keys in order. */
    private long[] importEntries(int epoch, VocabularyPolicy policy, int column) throws Exception {
        Vocabulary v = VocabularyImport.readForColumn(policy, column);
        long[] keys = v.keysBetween(0, v.size());
        for (int i = 0; i < keys.length; i++) {
            entries.put(Tuple2.of(epoch, keys[i]), i);
        }
        return keys;
    }

    /**
     * A direct-mapped cache of entries: a key's slot holds the last key that hashed there, so a hit
     * is one probe and a miss replaces the slot. Entries never change, so it is never stale.
     */
    private static final class EntryCache {
        private final long[] keys;
        private final int[] entries; // entry + 1; 0: empty
        private final int mask;

        EntryCache(int capacity) {
            int size = Integer.highestOneBit(Math.max(16, capacity - 1) << 1);
            keys = new long[size];
            entries = new int[size];
            mask = size - 1;
        }

        int get(long key) {
            int slot = (int) VocabularyPolicy.mix(key) & mask;
            return keys[slot] == key ? entries[slot] - 1 : -1;
        }

        void put(long key, int entry) {
            int slot = (int) VocabularyPolicy.mix(key) & mask;
            keys[slot] = key;
            entries[slot] = entry + 1;
        }
    }
}
