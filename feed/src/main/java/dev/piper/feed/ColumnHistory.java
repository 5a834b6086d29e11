package dev.piper.feed;

import dev.piper.core.serve.VocabularySnapshot;
import it.unimi.dsi.fastutil.ints.Int2LongOpenHashMap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One column's vocabulary in one epoch as its records on the vocabulary topic tell it, read up to a
 * position ({@link TopicSnapshot}): the entries of a column that does not evict (index {@code
 * buckets + i} holds entry {@code i}), or an evicting column's assignments in number order, each
 * checked as it is applied (a fresh index held by no key, a reuse evicting the key its index
 * holds). The column's entries at any position up to that one are cut from it ({@link #at}).
 */
final class ColumnHistory {

    /** A column's entries at a position: index {@code indices[i]} holds {@code keys[i]}. */
    record Entries(int[] indices, long[] keys) {}

    final VocabularySnapshot.Column target;
    private final int position;

    /** Whether the column's records are assignments; set by its first record. */
    boolean evicting;

    private boolean kindKnown;

    /** A column that does not evict: the key of entry {@code i}, index {@code buckets + i}. */
    private long[] entryKeys;

    private BitSet held;

    /** An evicting column: the records not applied yet, by their first assignment's number. */
    private final TreeMap<Long, String[]> waiting = new TreeMap<>();

    /** An evicting column: the assignments applied, in number order. */
    private int applied;

    private int[] assignedIndex = new int[64];
    private long[] assignedKey = new long[64];

    /** An evicting column: the key each index holds after the assignments applied. */
    private final Int2LongOpenHashMap keyAt = new Int2LongOpenHashMap();

    ColumnHistory(VocabularySnapshot.Column target) {
        this.target = target;
        if (target.position() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    target.name() + ": position " + target.position() + " is past 2^31 - 1");
        }
        this.position = (int) target.position();
    }

    boolean reached() {
        return progress() >= position;
    }

    long progress() {
        return evicting ? applied : held == null ? 0 : held.cardinality();
    }

    private void kind(boolean evicts, String where) throws IOException {
        if (kindKnown && evicting != evicts) {
            throw new IOException(
                    where + ": " + target.name() + " has records of entries and of assignments");
        }
        kindKnown = true;
        evicting = evicts;
    }

    /** A vocabulary record of entries ({@code index<TAB>key[<TAB>string]} lines). */
    void entries(String text, String where) throws IOException {
        kind(false, where);
        if (entryKeys == null) {
            entryKeys = new long[position];
            held = new BitSet(position);
        }
        int first = target.oovBuckets();
        for (String line : lines(text)) {
            int tab = line.indexOf('\t');
            int end = line.indexOf('\t', tab + 1);
            int i = Integer.parseInt(line.substring(0, tab)) - first;
            if (i < 0 || i >= position) {
                continue; // an entry past the position
            }
            if (held.get(i)) {
                throw new IOException(
                        where + ": " + target.name() + " index " + (i + first) + " seen twice");
            }
            entryKeys[i] =
                    Long.parseUnsignedLong(line.substring(tab + 1, end < 0 ? line.length() : end));
            held.set(i);
        }
    }

    /**
     * A vocabulary record of assignments from number {@code first} ({@code
     * index<TAB>key<TAB>row<TAB>evicted key[<TAB>string]} lines), applied once every assignment
     * numbered before it is.
     */
    void assignments(long first, String text, String where) throws IOException {
        kind(true, where);
        if (first < applied || waiting.containsKey(first)) {
            throw new IOException(
                    where + ": " + target.name() + " assignments from " + first + " seen twice");
        }
        waiting.put(first, new String[] {text, where});
        Map.Entry<Long, String[]> head;
        while (applied < position
                && (head = waiting.firstEntry()) != null
                && head.getKey() == applied) {
            waiting.pollFirstEntry();
            for (String line : lines(head.getValue()[0])) {
                if (applied == position) {
                    break;
                }
                apply(line.split("\t", -1), head.getValue()[1]);
            }
        }
    }

    private void apply(String[] f, String where) throws IOException {
        int index = Integer.parseInt(f[0]);
        long key = Long.parseUnsignedLong(f[1]);
        boolean reuse = !f[3].isEmpty();
        if (reuse != keyAt.containsKey(index)
                || (reuse && keyAt.get(index) != Long.parseUnsignedLong(f[3]))) {
            throw new IOException(
                    where
                            + ": "
                            + target.name()
                            + " assignment "
                            + applied
                            + " evicts \""
                            + f[3]
                            + "\" from index "
                            + index
                            + ", which holds "
                            + (keyAt.containsKey(index)
                                    ? Long.toUnsignedString(keyAt.get(index))
                                    : "no key"));
        }
        keyAt.put(index, key);
        if (applied == assignedIndex.length) {
            assignedIndex = Arrays.copyOf(assignedIndex, 2 * applied);
            assignedKey = Arrays.copyOf(assignedKey, 2 * applied);
        }
        assignedIndex[applied] = index;
        assignedKey[applied++] = key;
    }

    /**
     * The column's entries at position {@code p}, at most the position read: the first {@code p}
     * entries, or the key each index holds once the first {@code p} assignments are applied.
     */
    Entries at(long p) {
        if (p > progress()) {
            throw new IllegalArgumentException(
                    target.name() + ": position " + p + " is past the " + progress() + " read");
        }
        int n = (int) p;
        if (!evicting) {
            int[] indices = new int[n];
            for (int i = 0; i < n; i++) {
                indices[i] = target.oovBuckets() + i;
            }
            return new Entries(
                    indices, entryKeys == null ? new long[0] : Arrays.copyOf(entryKeys, n));
        }
        Int2LongOpenHashMap keys = new Int2LongOpenHashMap();
        for (int i = 0; i < n; i++) {
            keys.put(assignedIndex[i], assignedKey[i]);
        }
        int[] indices = keys.keySet().toIntArray();
        long[] held = new long[indices.length];
        for (int i = 0; i < indices.length; i++) {
            held[i] = keys.get(indices[i]);
        }
        return new Entries(indices, held);
    }

    private static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        int from = 0;
        while (from < text.length()) {
            int nl = text.indexOf('\n', from);
            int end = nl < 0 ? text.length() : nl;
            if (end > from) {
                lines.add(text.substring(from, end));
            }
            from = end + 1;
        }
        return lines;
    }
}
