package dev.piper.state;

import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.pipeline.ops.VocabularyPolicy.Eviction;
import java.util.Arrays;

/**
 * The order in which a full evicting {@link Vocabulary} gives up its entries, over the entries'
 * indices {@code 0..size)}: a doubly linked list whose head is the next victim.
 *
 * <ul>
 *   <li>{@link Eviction#TTL}: least recently seen first; an occurrence moves its entry to the tail,
 *       and the entry's stamp is the row it was last seen in.
 *   <li>{@link Eviction#LFU}: fewest occurrences first, then the entry that reached its count
 *       first. Entries of one count form a run of the list (a group); an occurrence moves its entry
 *       to the tail of the next count's run, creating that run if there is none. O(1) per
 *       occurrence (Shah, Mitra and Matani's constant-time LFU). The stamp is the count.
 * </ul>
 *
 * <p>Both keep, per entry, the row of its last occurrence (as an int: its low 32 bits), so that an
 * entry used by the row being applied is never the victim of another key of the same row (a list
 * column's row, whose indices would otherwise name two keys at once).
 *
 * <p>Per entry: 4 bytes each for next, prev and last row, 8 for the stamp, and under LFU 4 for its
 * group: 20 to 24 bytes. Groups (LFU): 24 bytes each, at most one per distinct count.
 */
final class EvictionOrder {

    private static final int NIL = -1;

    private final Eviction kind;

    private int[] next;
    private int[] prev;
    private long[] stamp;
    private int[] lastRow;

    /** The list's ends, for TTL; under LFU the list is the groups' runs in count order. */
    private int head = NIL;

    private int tail = NIL;

    // LFU groups: runs of entries of one count, in increasing count order
    private int[] group;
    private long[] groupCount;
    private int[] groupHead;
    private int[] groupTail;
    private int[] groupNext;
    private int[] groupPrev;
    private int groupFirst = NIL;
    private int freeGroup = NIL;
    private int groupsUsed;

    /** While {@link #restore} appends: the group it appended to last. */
    private int restoredGroup = NIL;

    /**
     * The order of an evicting vocabulary whose first {@code entries} entries (imported) are each
     * seen once, at {@code stamp}.
     */
    static EvictionOrder of(VocabularyPolicy policy, int entries, long stamp) {
        EvictionOrder o =
                new EvictionOrder(policy.eviction(), Math.min(policy.capacity(), 1 << 16));
        for (int i = 0; i < entries; i++) {
            o.add(i, 1, stamp);
        }
        return o;
    }

    EvictionOrder(Eviction kind, int expected) {
        if (kind == Eviction.NONE) {
            throw new IllegalArgumentException(
                    "no eviction order for a vocabulary that does not evict");
        }
        this.kind = kind;
        int n = Math.max(8, expected);
        next = new int[n];
        prev = new int[n];
        stamp = new long[n];
        lastRow = new int[n];
        if (kind == Eviction.LFU) {
            group = new int[n];
            int g = 8;
            groupCount = new long[g];
            groupHead = new int[g];
            groupTail = new int[g];
            groupNext = new int[g];
            groupPrev = new int[g];
        }
    }

    Eviction kind() {
        return kind;
    }

    /** Makes room for entries {@code 0..capacity)}. */
    private void ensure(int index) {
        if (index < next.length) {
            return;
        }
        int grown =
                (int)
                        Math.min(
                                Vocabulary.MAX_SIZE,
                                Math.max(index + 1L, next.length + (next.length >> 1) + 1L));
        next = Arrays.copyOf(next, grown);
        prev = Arrays.copyOf(prev, grown);
        stamp = Arrays.copyOf(stamp, grown);
        lastRow = Arrays.copyOf(lastRow, grown);
        if (group != null) {
            group = Arrays.copyOf(group, grown);
        }
    }

    /**
     * Adds entry {@code index} (new, or just evicted and reused), seen in {@code row}: under TTL at
     * the tail, under LFU at the tail of the run of {@code count} occurrences.
     */
    void add(int index, long count, long row) {
        ensure(index);
        lastRow[index] = (int) row;
        if (kind == Eviction.TTL) {
            stamp[index] = row;
            linkAtTail(index);
            return;
        }
        stamp[index] = count;
        // the run of this count: the groups before it have smaller counts (few: counts start small)
        int before = NIL;
        int g = groupFirst;
        while (g != NIL && groupCount[g] < count) {
            before = g;
            g = groupNext[g];
        }
        if (g == NIL || groupCount[g] != count) {
            g = newGroupAfter(before, count);
        }
        appendToGroup(g, index);
    }

    /** An occurrence of entry {@code index} in {@code row}. */
    void touch(int index, long row) {
        lastRow[index] = (int) row;
        if (kind == Eviction.TTL) {
            stamp[index] = row;
            if (tail != index) {
                unlinkList(index);
                linkAtTail(index);
            }
            return;
        }
        long count = stamp[index];
        if (count == Long.MAX_VALUE) {
            return;
        }
        stamp[index] = count + 1;
        int g = group[index];
        int after = groupNext[g];
        if (after != NIL && groupCount[after] == count + 1) {
            removeFromGroup(g, index);
            appendToGroup(after, index);
        } else if (groupHead[g] == index && groupTail[g] == index) {
            groupCount[g] = count + 1; // alone in its run: the run moves up a count
        } else {
            removeFromGroup(g, index);
            appendToGroup(newGroupAfter(g, count + 1), index);
        }
    }

    /**
     * The entry whose index a new key in {@code row} takes, or -1 if none may go: the head, unless
     * it was seen in this row (then the next that was not) or, under TTL, it has been seen in the
     * last {@code ttlRows} rows.
     */
    int victim(long row, long ttlRows) {
        int row32 = (int) row;
        if (kind == Eviction.TTL) {
            int h = head;
            return h != NIL && row - stamp[h] >= ttlRows ? h : NIL;
        }
        for (int g = groupFirst; g != NIL; g = groupNext[g]) {
            for (int i = groupHead[g]; i != NIL; i = next[i]) {
                if (lastRow[i] != row32) {
                    return i;
                }
            }
        }
        return NIL;
    }

    /** Takes entry {@code index} out of the order (it is evicted). */
    void remove(int index) {
        if (kind == Eviction.TTL) {
            unlinkList(index);
        } else {
            removeFromGroup(group[index], index);
        }
    }

    /** The count (LFU) or the row last seen (TTL) of entry {@code index}. */
    long stamp(int index) {
        return stamp[index];
    }

    /** Calls {@code visitor} with every entry and its stamp, from the next victim on. */
    void forEach(EntryVisitor visitor) {
        if (kind == Eviction.TTL) {
            for (int i = head; i != NIL; i = next[i]) {
                visitor.accept(i, stamp[i]);
            }
            return;
        }
        for (int g = groupFirst; g != NIL; g = groupNext[g]) {
            for (int i = groupHead[g]; i != NIL; i = next[i]) {
                visitor.accept(i, stamp[i]);
            }
        }
    }

    @FunctionalInterface
    interface EntryVisitor {
        void accept(int index, long stamp);
    }

    /**
     * Appends entry {@code index} at the end of the order when restoring it, into an order that
     * only {@code restore} has filled: stamps (counts, rows) must not decrease.
     *
     * @throws IllegalArgumentException if the stamp is out of order
     */
    void restore(int index, long stampValue, long lastRowValue) {
        ensure(index);
        if (kind == Eviction.TTL) {
            if (tail != NIL && stamp[tail] > stampValue) {
                throw new IllegalArgumentException(
                        "entry "
                                + index
                                + " last seen in row "
                                + stampValue
                                + " after one seen in row "
                                + stamp[tail]);
            }
            stamp[index] = stampValue;
            lastRow[index] = (int) lastRowValue;
            linkAtTail(index);
            return;
        }
        int last = restoredGroup;
        if (last != NIL && groupCount[last] > stampValue) {
            throw new IllegalArgumentException(
                    "entry "
                            + index
                            + " with count "
                            + stampValue
                            + " after one with count "
                            + groupCount[last]);
        }
        if (stampValue < 1) {
            throw new IllegalArgumentException("entry " + index + " with count " + stampValue);
        }
        stamp[index] = stampValue;
        lastRow[index] = (int) lastRowValue;
        int g =
                last != NIL && groupCount[last] == stampValue
                        ? last
                        : newGroupAfter(last, stampValue);
        appendToGroup(g, index);
        restoredGroup = g;
    }

    /** The low 32 bits of the row entry {@code index} was last seen in. */
    int lastRow(int index) {
        return lastRow[index];
    }

    EvictionOrder copy() {
        EvictionOrder c = new EvictionOrder(kind, 0);
        c.next = next.clone();
        c.prev = prev.clone();
        c.stamp = stamp.clone();
        c.lastRow = lastRow.clone();
        c.head = head;
        c.tail = tail;
        if (group != null) {
            c.group = group.clone();
            c.groupCount = groupCount.clone();
            c.groupHead = groupHead.clone();
            c.groupTail = groupTail.clone();
            c.groupNext = groupNext.clone();
            c.groupPrev = groupPrev.clone();
            c.groupFirst = groupFirst;
            c.freeGroup = freeGroup;
            c.groupsUsed = groupsUsed;
        }
        return c;
    }

    // --- TTL's list

    private void linkAtTail(int i) {
        next[i] = NIL;
        prev[i] = tail;
        if (tail == NIL) {
            head = i;
        } else {
            next[tail] = i;
        }
        tail = i;
    }

    private void unlinkList(int i) {
        int p = prev[i];
        int n = next[i];
        if (p == NIL) {
            head = n;
        } else {
            next[p] = n;
        }
        if (n == NIL) {
            tail = p;
        } else {
            prev[n] = p;
        }
    }

    // --- LFU's groups

    private void appendToGroup(int g, int i) {
        group[i] = g;
        next[i] = NIL;
        int t = groupTail[g];
        prev[i] = t;
        if (t == NIL) {
            groupHead[g] = i;
        } else {
            next[t] = i;
        }
        groupTail[g] = i;
    }

    private void removeFromGroup(int g, int i) {
        int p = prev[i];
        int n = next[i];
        if (p == NIL) {
            groupHead[g] = n;
        } else {
            next[p] = n;
        }
        if (n == NIL) {
            groupTail[g] = p;
        } else {
            prev[n] = p;
        }
        if (groupHead[g] == NIL) {
            freeGroup(g);
        }
    }

    /** A new, empty group of {@code count} after group {@code before} (NIL: first). */
    private int newGroupAfter(int before, long count) {
        int g;
        if (freeGroup != NIL) {
            g = freeGroup;
            freeGroup = groupNext[g];
        } else {
            if (groupsUsed == groupCount.length) {
                int grown = groupsUsed + (groupsUsed >> 1) + 1;
                groupCount = Arrays.copyOf(groupCount, grown);
                groupHead = Arrays.copyOf(groupHead, grown);
                groupTail = Arrays.copyOf(groupTail, grown);
                groupNext = Arrays.copyOf(groupNext, grown);
                groupPrev = Arrays.copyOf(groupPrev, grown);
            }
            g = groupsUsed++;
        }
        groupCount[g] = count;
        groupHead[g] = NIL;
        groupTail[g] = NIL;
        int after = before == NIL ? groupFirst : groupNext[before];
        groupPrev[g] = before;
        groupNext[g] = after;
        if (before == NIL) {
            groupFirst = g;
        } else {
            groupNext[before] = g;
        }
        if (after != NIL) {
            groupPrev[after] = g;
        }
        return g;
    }

    private void freeGroup(int g) {
        int p = groupPrev[g];
        int n = groupNext[g];
        if (p == NIL) {
            groupFirst = n;
        } else {
            groupNext[p] = n;
        }
        if (n != NIL) {
            groupPrev[n] = p;
        }
        groupNext[g] = freeGroup;
        freeGroup = g;
    }
}
