package dev.piper.state;

import dev.piper.pipeline.ops.VocabularyPolicy;
import java.util.Arrays;

/**
 * The vocabulary of one column: it maps a 64-bit key to a dense index, the rank of the key's first
 * appearance (0, 1, 2, ...). Append-only, unless its policy evicts ({@link
 * VocabularyPolicy#evicts()}): then, once it holds {@code capacity} entries, a key it admits takes
 * the index of a victim chosen by an {@link EvictionOrder}, and the victim leaves.
 *
 * <p>Layout, chosen for heap cost and for a cheap snapshot:
 *
 * <ul>
 *   <li>{@code keys[i]} is the key of index {@code i} (the reverse map, in index order). It grows
 *       by 1.5x.
 *   <li>{@code slots} is an open-addressing table (linear probing, power-of-two capacity, load at
 *       most 1/2) whose cells hold {@code index + 1}; 0 marks an empty cell. The key of a cell is
 *       read through {@code keys}, so the table costs 4 bytes a cell.
 *   <li><b>Direct</b>: when the table doubles and every key lies in {@code [0, capacity)} (keys
 *       bounded by a modulus or sigrid_hash's max, once the vocabulary holds a quarter of the range
 *       or more), the new table is indexed by the key itself: {@code slots[key]} holds {@code index
 *       + 1}. A lookup is one read instead of a probe and a read of {@code keys} (two cache misses
 *       in a large vocabulary); the table is no larger than the hashed one it replaces and stops
 *       doubling. A key outside the range turns it back into a hashed table, so any key is
 *       accepted.
 * </ul>
 *
 * <p>Heap cost per entry: the table is 8 to 16 bytes (load 1/4 to 1/2 between doublings), the key
 * array 8 to 12 bytes, so at most 28 bytes plus two array headers; {@code VocabularyTest} measures
 * it with JOL. Only the key array is snapshotted ({@link VocabularySerializer}): the table is
 * rebuilt on restore, so the on-disk cost is 8 bytes an entry.
 *
 * <p>Under a {@link VocabularyPolicy} with a frequency threshold, the vocabulary also counts the
 * keys it has not admitted yet ({@link #countedKeys()}, {@link AdmissionCounts}): a fastutil {@code
 * Long2IntOpenHashMap}, about 16 bytes a key at its default load, absent (null) under every other
 * policy, and dropped when the vocabulary is full.
 *
 * <p>An evicting vocabulary also keeps its {@link EvictionOrder} (20 to 24 bytes an entry), the
 * rows it has applied (the clock of a TTL, and of the row each assignment is reported at), under a
 * TTL in event time the latest event time of its input (that TTL's clock) and the number of
 * assignments it made ({@link #assignments()}); table cells of evicted keys are freed by
 * backward-shift deletion, so the table never holds tombstones.
 *
 * <p>Not thread-safe; each instance belongs to one keyed-state entry of one operator subtask.
 */
public final class Vocabulary {

    private static final int MIN_TABLE = 16;

    /**
     * The smallest direct table: below it a hashed table fits the caches anyway, and a vocabulary
     * of small keys that might grow beyond them stays hashed.
     */
    private static final int MIN_DIRECT = 1 << 12;

    private static final int MIN_KEYS = 8;

    /** The largest number of entries: {@link VocabularyPolicy#MAX_SIZE}. */
    public static final int MAX_SIZE = VocabularyPolicy.MAX_SIZE;

    private long[] keys;
    private int size;
    private int[] slots;
    private int shift;

    /**
     * Whether {@code slots} is indexed by the key itself (every key in {@code [0, slots.length)}).
     */
    private boolean direct;

    /** Occurrences of keys not admitted yet, under a frequency threshold; null otherwise. */
    private AdmissionCounts counts = new AdmissionCounts();

    /** Under an evicting policy: the order of its victims; null otherwise. */
    private EvictionOrder order;

    /** Under an evicting policy: the rows applied so far. */
    private long rows;

    /**
     * Under a TTL in event time: the latest event time (ms) of the rows applied, {@link #NO_CLOCK}
     * before the first; the stamps of its eviction order are such times.
     */
    private long clock = NO_CLOCK;

    /** The {@link #eventClock()} of a vocabulary that has seen no event time. */
    public static final long NO_CLOCK = Long.MIN_VALUE;

    /** Under an evicting policy: the assignments made so far (fresh and reused indices). */
    private long assignments;

    public Vocabulary() {
        this(0);
    }

    /** An empty vocabulary sized for {@code expected} entries without growing. */
    public Vocabulary(int expected) {
        if (expected < 0 || expected > MAX_SIZE) {
            throw new IllegalArgumentException("expected size out of range: " + expected);
        }
        keys = new long[Math.max(MIN_KEYS, expected)];
        allocateTable(tableCapacityFor(expected));
    }

    /**
     * A vocabulary holding {@code keys[0..n)} at indices {@code 0..n)}.
     *
     * @throws IllegalArgumentException if a key occurs twice
     */
    public static Vocabulary ofKeys(long[] keys, int n) {
        Vocabulary v = new Vocabulary(n);
        for (int i = 0; i < n; i++) {
            int before = v.size;
            int index = v.getOrAdd(keys[i]);
            if (index != before) {
                throw new IllegalArgumentException(
                        "duplicate key "
                                + Long.toUnsignedString(keys[i])
                                + " at indices "
                                + index
                                + " and "
                                + i);
            }
        }
        // the table was sized for n and never doubled: direct now, as a grown one would be
        if (v.slots.length >= MIN_DIRECT && v.keysBelow(v.slots.length)) {
            v.rehash(v.slots.length, true);
        }
        return v;
    }

    public int size() {
        return size;
    }

    /** The key of {@code index}, which must be below {@link #size()}. */
    public long keyAt(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("index " + index + " of " + size);
        }
        return keys[index];
    }

    /** Copies the keys of indices {@code [from, to)} into a new array. */
    public long[] keysBetween(int from, int to) {
        if (from < 0 || to > size || from > to) {
            throw new IndexOutOfBoundsException("[" + from + ", " + to + ") of " + size);
        }
        return Arrays.copyOfRange(keys, from, to);
    }

    /** Whether the table is direct (indexed by the key): for tests. */
    boolean isDirect() {
        return direct;
    }

    /** The index of {@code key}, or -1 if it has none. */
    public int indexOf(long key) {
        if (direct) { // a key outside the range has no entry, and the table stays direct
            return key >= 0 && key < slots.length ? slots[(int) key] - 1 : -1;
        }
        return slots[probe(key)] - 1;
    }

    /** The index of {@code key}; a key seen for the first time gets the next index. */
    public int getOrAdd(long key) {
        int slot = probe(key);
        int cell = slots[slot];
        return cell != 0 ? cell - 1 : insertAt(slot, key);
    }

    /**
     * The table slot of {@code key}: its cell if the key has an entry, else the empty cell where it
     * would go (linear probing). A key outside a direct table's range turns it into a hashed one
     * first, so a caller reads {@code slots} only after the call.
     */
    private int probe(long key) {
        if (direct) {
            if (key >= 0 && key < slots.length) {
                return (int) key;
            }
            rehash(tableCapacityFor(size + 1), false); // a key outside the range: hashed now
        }
        int mask = slots.length - 1;
        int slot = slotOf(key);
        while (true) {
            int cell = slots[slot];
            if (cell == 0 || keys[cell - 1] == key) {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** Maps {@code in[0..n)} to indices in {@code out[0..n)}, adding unseen keys in order. */
    public void apply(long[] in, int n, int[] out) {
        for (int i = 0; i < n; i++) {
            out[i] = getOrAdd(in[i]);
        }
    }

    /**
     * Maps {@code in[0..n)} to indices in {@code out[0..n)} under {@code policy}: an entry's index
     * is {@code policy.firstIndex()} plus its rank, a key the policy does not admit (yet) gets its
     * OOV bucket. Under the default policy this is {@link #apply(long[], int, int[])}.
     *
     * @throws IllegalArgumentException if the policy evicts (see {@link #apply(long[], int, int[],
     *     VocabularyPolicy, int[], VocabularyEvents)})
     */
    public void apply(long[] in, int n, int[] out, VocabularyPolicy policy) {
        if (policy.isFirstAppearance()) {
            apply(in, n, out);
            return;
        }
        if (policy.evicts()) {
            throw new IllegalArgumentException(
                    "an evicting policy needs the rows and events: " + policy.label());
        }
        int base = policy.firstIndex();
        int minCount = policy.minCount();
        int maxSize = policy.maxSize();
        for (int i = 0; i < n; i++) {
            long key = in[i];
            int slot = probe(key);
            int index = slots[slot] - 1;
            if (index < 0 && size < maxSize && counts.admits(key, minCount)) {
                index = insertAt(slot, key);
                if (size == maxSize) {
                    counts.drop(); // full: no key will be admitted any more
                }
            }
            out[i] = index >= 0 ? base + index : policy.bucketOf(key);
        }
    }

    /**
     * As {@link #apply(long[], int, int[], VocabularyPolicy)} for any policy, evicting ones
     * included, recording into {@code events} (cleared first) the assignments an evicting policy
     * makes.
     *
     * @param offsets for a list column, where each row's keys start ({@code rows + 1} entries, the
     *     last {@code n}); null when every row has one key
     */
    public void apply(
            long[] in,
            int n,
            int[] out,
            VocabularyPolicy policy,
            int[] offsets,
            VocabularyEvents events) {
        apply(in, n, out, policy, offsets, null, events);
    }

    /**
     * As above, with the rows' event times, which a TTL in event time needs: its clock is the
     * latest event time of the rows applied, an entry's stamp the clock when it was last seen, and
     * an entry may go once the clock is {@code ttlMs} past its stamp.
     *
     * @param times per row, its event time in milliseconds since the epoch; read only under a TTL
     *     in event time (may be null otherwise)
     */
    public void apply(
            long[] in,
            int n,
            int[] out,
            VocabularyPolicy policy,
            int[] offsets,
            long[] times,
            VocabularyEvents events) {
        events.clear();
        int rowsInBlock = offsets == null ? n : offsets.length - 1;
        boolean timed = policy.ttlInEventTime();
        checkTimes(policy, times, rowsInBlock);
        if (!policy.evicts()) {
            apply(in, n, out, policy);
            return;
        }
        startOrder(policy, timed && rowsInBlock > 0 ? times[0] : 0);
        int base = policy.firstIndex();
        int minCount = policy.minCount();
        int capacity = policy.capacity();
        long ttl = timed ? policy.ttlMs() : policy.ttlRows();
        int row = 0;
        int rowEnd = offsets == null || offsets.length < 2 ? 1 : offsets[1];
        for (int i = 0; i < n; i++) {
            if (offsets == null) {
                row = i;
            } else {
                while (i >= rowEnd) {
                    row++;
                    rowEnd = offsets[row + 1];
                }
            }
            long now;
            if (timed) {
                clock = Math.max(clock, times[row]);
                now = clock;
            } else {
                now = rows + row + 1;
            }
            long key = in[i];
            int slot = probe(key);
            int index = slots[slot] - 1;
            if (index >= 0) {
                order.touch(index, now);
            } else {
                int victim = size < capacity ? -1 : order.victim(now, ttl);
                boolean room = size < capacity || victim >= 0;
                if (room && counts.admits(key, minCount)) {
                    if (victim < 0) {
                        index = insertAt(slot, key);
                        events.assignFresh(index, key, row);
                    } else {
                        long old = keys[victim];
                        order.remove(victim);
                        removeKey(old);
                        keys[victim] = key;
                        int to = probe(key); // before slots is read: probe may replace it
                        slots[to] = victim + 1;
                        index = victim;
                        events.reuse(index, key, old, row);
                    }
                    order.add(index, minCount, now);
                    assignments++;
                } else if (!room) {
                    counts.note(key, minCount);
                }
            }
            out[i] = index >= 0 ? base + index : policy.bucketOf(key);
        }
        if (timed && offsets != null) {
            for (int r = 0; r < rowsInBlock; r++) {
                clock = Math.max(clock, times[r]); // rows without keys (empty lists) too
            }
        }
        rows += rowsInBlock;
    }

    /** A ttl in event time needs a time for each row of the block. */
    private static void checkTimes(VocabularyPolicy policy, long[] times, int rowsInBlock) {
        if (policy.ttlInEventTime()
                && rowsInBlock > 0
                && (times == null || times.length < rowsInBlock)) {
            throw new IllegalArgumentException(
                    "a ttl of "
                            + policy.ttlMs()
                            + " ms of event time needs each row's event time, and a block of "
                            + rowsInBlock
                            + " rows has "
                            + (times == null ? "none" : times.length));
        }
    }

    /**
     * The eviction order, at the first block under an evicting policy: the entries so far
     * (imported) seen once, before the first row ({@code firstStamp}: 0, or its event time).
     */
    private void startOrder(VocabularyPolicy policy, long firstStamp) {
        if (order == null) {
            if (size > policy.capacity()) {
                throw new IllegalStateException(
                        "vocabulary of "
                                + size
                                + " entries over its capacity "
                                + policy.capacity());
            }
            order = EvictionOrder.of(policy, size, firstStamp);
            assignments = size;
        } else if (order.kind() != policy.eviction()) {
            throw new IllegalStateException(
                    "vocabulary evicting by " + order.kind() + " applied under " + policy.label());
        }
    }

    /** Frees the table cell of {@code key}, which has an entry (backward-shift deletion). */
    private void removeKey(long key) {
        if (direct) {
            slots[(int) key] = 0;
            return;
        }
        int mask = slots.length - 1;
        int hole = probe(key);
        int j = hole;
        while (true) {
            j = (j + 1) & mask;
            int cell = slots[j];
            if (cell == 0) {
                break;
            }
            int home = slotOf(keys[cell - 1]);
            // the cell at j may move back to the hole unless its home lies cyclically in (hole, j]
            boolean stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
            if (!stays) {
                slots[hole] = cell;
                hole = j;
            }
        }
        slots[hole] = 0;
    }

    /** The assignments made: fresh and reused indices of an evicting policy, else the size. */
    public long assignments() {
        return order == null ? size : assignments;
    }

    /** The rows an evicting vocabulary has applied; 0 for others. */
    public long rowsApplied() {
        return rows;
    }

    /**
     * Under a TTL in event time, the latest event time of the rows applied; {@link #NO_CLOCK}
     * before the first, and for every other vocabulary.
     */
    public long eventClock() {
        return clock;
    }

    /** Restores the {@link #eventClock()} (state restore, after {@link #restoreEviction}). */
    public void restoreEventClock(long time) {
        checkEvicting();
        clock = time;
    }

    /** Whether this vocabulary has applied an evicting policy (it keeps an eviction order). */
    public boolean evicting() {
        return order != null;
    }

    /**
     * The count (LFU) or the row it was last seen in (TTL) of entry {@code index} of an evicting
     * vocabulary.
     */
    public long evictionStamp(int index) {
        checkEvicting();
        return order.stamp(keyIndex(index));
    }

    /**
     * Calls {@code visitor} with every entry of an evicting vocabulary, from the next victim on.
     */
    public void forEachInEvictionOrder(EvictionVisitor visitor) {
        checkEvicting();
        order.forEach((index, stamp) -> visitor.accept(index, stamp, order.lastRow(index)));
    }

    /** Receives the entries of {@link #forEachInEvictionOrder}. */
    @FunctionalInterface
    public interface EvictionVisitor {
        /**
         * @param lastRow the low 32 bits of the row the entry was last seen in
         */
        void accept(int index, long stamp, int lastRow);
    }

    /** The eviction policy whose order this vocabulary keeps; NONE if it keeps none. */
    public VocabularyPolicy.Eviction eviction() {
        return order == null ? VocabularyPolicy.Eviction.NONE : order.kind();
    }

    /**
     * Restores an evicting vocabulary's order and counters (state restore): {@link
     * #restoreEvictionEntry} then takes each entry from the next victim on.
     */
    public void restoreEviction(VocabularyPolicy.Eviction kind, long rowsApplied, long made) {
        if (kind == VocabularyPolicy.Eviction.NONE
                || order != null
                || rowsApplied < 0
                || made < size) {
            throw new IllegalArgumentException(
                    "eviction state "
                            + kind
                            + ", "
                            + rowsApplied
                            + " rows, "
                            + made
                            + " assignments for "
                            + size
                            + " entries");
        }
        order = new EvictionOrder(kind, size);
        rows = rowsApplied;
        assignments = made;
    }

    /** See {@link #restoreEviction}. */
    public void restoreEvictionEntry(int index, long stamp, int lastRow) {
        checkEvicting();
        order.restore(keyIndex(index), stamp, lastRow);
    }

    private void checkEvicting() {
        if (order == null) {
            throw new IllegalStateException("the vocabulary does not evict");
        }
    }

    private int keyIndex(int index) {
        if (index < 0 || index >= size) {
            throw new IllegalArgumentException("index " + index + " of " + size);
        }
        return index;
    }

    /** How many keys are counted but not admitted (frequency threshold); 0 under other policies. */
    public int countedKeys() {
        return counts.size();
    }

    /** The occurrences counted for a key not admitted yet; 0 if none. */
    public int countOf(long key) {
        return counts.get(key);
    }

    /** Calls {@code visitor} with every counted key and its count, in no particular order. */
    public void forEachCount(CountVisitor visitor) {
        counts.forEach(visitor);
    }

    /** Receives the counts of {@link #forEachCount}. */
    @FunctionalInterface
    public interface CountVisitor {
        void accept(long key, int count);
    }

    /**
     * Restores the count of an unadmitted key (state restore).
     *
     * @throws IllegalArgumentException if the key has an entry or the count is not positive
     */
    public void putCount(long key, int count) {
        if (count < 1 || indexOf(key) >= 0) {
            throw new IllegalArgumentException(
                    "count "
                            + count
                            + " for key "
                            + Long.toUnsignedString(key)
                            + (count < 1 ? "" : ", which has an entry"));
        }
        counts.put(key, count);
    }

    /** A deep, independent copy. */
    public Vocabulary copy() {
        Vocabulary c = new Vocabulary(0);
        c.keys = Arrays.copyOf(keys, keys.length);
        c.size = size;
        c.slots = slots.clone();
        c.shift = shift;
        c.direct = direct;
        c.counts = counts.copy();
        c.order = order == null ? null : order.copy();
        c.rows = rows;
        c.clock = clock;
        c.assignments = assignments;
        return c;
    }

    private int insertAt(int slot, long key) {
        if (size == MAX_SIZE) {
            throw new IllegalStateException("vocabulary is full: " + MAX_SIZE + " entries");
        }
        int index = size;
        if (index == keys.length) {
            int grown = (int) Math.min(MAX_SIZE, (long) keys.length + (keys.length >> 1) + 1);
            keys = Arrays.copyOf(keys, grown);
        }
        keys[index] = key;
        size = index + 1;
        if (!direct && size > (slots.length >> 1)) {
            rehash(slots.length << 1, true);
        } else {
            slots[slot] = index + 1;
        }
        return index;
    }

    /**
     * A table of {@code capacity} cells holding every entry: direct if {@code mayBeDirect}, every
     * key lies in {@code [0, capacity)} and {@code capacity} is at least {@link #MIN_DIRECT}, else
     * hashed.
     */
    private void rehash(int capacity, boolean mayBeDirect) {
        allocateTable(capacity);
        if (mayBeDirect && capacity >= MIN_DIRECT && keysBelow(capacity)) {
            direct = true;
            for (int i = 0; i < size; i++) {
                slots[(int) keys[i]] = i + 1;
            }
            return;
        }
        direct = false;
        int mask = capacity - 1;
        for (int i = 0; i < size; i++) {
            int slot = slotOf(keys[i]);
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = i + 1;
        }
    }

    /** Whether every key lies in {@code [0, bound)}. */
    private boolean keysBelow(int bound) {
        for (int i = 0; i < size; i++) {
            long k = keys[i];
            if (k < 0 || k >= bound) {
                return false;
            }
        }
        return true;
    }

    private void allocateTable(int capacity) {
        slots = new int[capacity];
        shift = 64 - Integer.numberOfTrailingZeros(capacity);
    }

    private static int tableCapacityFor(int entries) {
        long needed = Math.max(MIN_TABLE, 2L * entries + 2);
        return (int) Math.min(1L << 30, Long.highestOneBit(needed - 1) << 1);
    }

    private int slotOf(long key) {
        return (int) (VocabularyPolicy.mix(key) >>> shift);
    }

    /**
     * Equal when both hold the same keys at the same indices and the same counts, and, evicting,
     * the same order, stamps and counters.
     */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Vocabulary)) {
            return false;
        }
        Vocabulary other = (Vocabulary) o;
        return size == other.size
                && Arrays.equals(keys, 0, size, other.keys, 0, other.size)
                && countedKeys() == other.countedKeys()
                && counts.sameAs(other.counts)
                && sameEviction(other);
    }

    private boolean sameEviction(Vocabulary other) {
        if (order == null || other.order == null) {
            return order == other.order;
        }
        if (order.kind() != other.order.kind()
                || rows != other.rows
                || clock != other.clock
                || assignments != other.assignments) {
            return false;
        }
        long[] mine = evictionSequence();
        return Arrays.equals(mine, other.evictionSequence());
    }

    /** The eviction order as (index, stamp, last row) triples. */
    private long[] evictionSequence() {
        long[] seq = new long[3 * size];
        int[] at = {0};
        order.forEach(
                (index, stamp) -> {
                    seq[at[0]++] = index;
                    seq[at[0]++] = stamp;
                    seq[at[0]++] = order.lastRow(index);
                });
        return seq;
    }

    @Override
    public int hashCode() {
        int h = size;
        for (int i = 0; i < size; i++) {
            h = 31 * h + Long.hashCode(keys[i]);
        }
        return 31 * h + countedKeys();
    }

    @Override
    public String toString() {
        return "Vocabulary{size="
                + size
                + (counts.size() == 0 ? "" : ", counted=" + counts.size())
                + (order == null
                        ? ""
                        : ", evict=" + order.kind().label() + ", assignments=" + assignments)
                + "}";
    }
}
