package dev.piper.output;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An evicting column's vocabulary as its assignments rebuild it, written as {@code
 * vocab/Cj.assignments.tsv} ({@link OutputLayout#assignmentsFile}) and, at the end, the map {@code
 * vocab/Cj.tsv} of the key each index then holds. Shared by {@code preprocess}'s writer and {@code
 * consume}, so both files mean the same in either.
 *
 * <p>Every assignment is checked as it is replayed, so a file written is one a trainer can replay:
 * assignments come in number order without gaps; a fresh one takes the next index no key held; a
 * reuse names the key its index holds as the one it evicts; no key holds two indices at once; rows
 * never go back.
 */
public final class AssignmentLog {

    private final String column;
    private final int firstIndex;
    private final OutputStream out;
    private final StringBuilder line = new StringBuilder(64);

    /** The key each index holds, from {@link #firstIndex}; {@code held} of them are. */
    private long[] holders = new long[16];

    /** The original string of each held key (hash64 columns), or null until a key has one. */
    private String[] holderNames;

    private int held;

    /** The index (less {@link #firstIndex}) each held key holds. */
    private final Long2IntOpenHashMap indexOf = new Long2IntOpenHashMap();

    private long next;
    private long evictions;
    private long lastRow;

    /**
     * @param column the column's name in errors ({@code C3}, {@code C3.epoch1})
     * @param firstIndex the first entry's index (the OOV buckets before it)
     * @param out the assignments file, written a line per assignment; not closed here
     */
    public AssignmentLog(String column, int firstIndex, OutputStream out) {
        this.column = column;
        this.firstIndex = firstIndex;
        this.out = out;
        indexOf.defaultReturnValue(-1);
    }

    /**
     * Replays and writes assignment number {@code number}: from output row {@code row} on, {@code
     * index} names {@code key}, evicting {@code evicted} when {@code reused}; {@code name} is the
     * key's original string (a hash64 column's), or null.
     *
     * @throws IllegalStateException if it does not follow from the assignments before it
     */
    public void append(
            long number, long row, int index, long key, boolean reused, long evicted, String name)
            throws IOException {
        if (number != next) {
            throw fail(number, "comes after assignment " + (next - 1) + " (a gap or a repeat)");
        }
        if (row < lastRow) {
            throw fail(
                    number,
                    "takes effect at row " + row + ", before the previous one's row " + lastRow);
        }
        int entry = index - firstIndex;
        int holding = indexOf.get(key);
        if (holding >= 0) {
            throw fail(
                    number,
                    "gives key "
                            + Long.toUnsignedString(key)
                            + " index "
                            + index
                            + " while it holds index "
                            + (firstIndex + holding));
        }
        if (reused) {
            if (entry < 0 || entry >= held || holders[entry] != evicted) {
                throw fail(
                        number,
                        "evicts key "
                                + Long.toUnsignedString(evicted)
                                + " from index "
                                + index
                                + ", which holds "
                                + (entry >= 0 && entry < held
                                        ? "key " + Long.toUnsignedString(holders[entry])
                                        : "no key"));
            }
            indexOf.remove(evicted);
            evictions++;
        } else {
            if (entry != held) {
                throw fail(
                        number, "takes new index " + index + ", expected " + (firstIndex + held));
            }
            if (held == holders.length) {
                holders = Arrays.copyOf(holders, held * 2);
                if (holderNames != null) {
                    holderNames = Arrays.copyOf(holderNames, held * 2);
                }
            }
            held++;
        }
        holders[entry] = key;
        if (name != null && holderNames == null) {
            holderNames = new String[holders.length];
        }
        if (holderNames != null) {
            holderNames[entry] = name;
        }
        indexOf.put(key, entry);
        line.setLength(0);
        line.append(row)
                .append('\t')
                .append(index)
                .append('\t')
                .append(Long.toUnsignedString(key))
                .append('\t');
        if (reused) {
            line.append(Long.toUnsignedString(evicted));
        }
        if (name != null) {
            NameText.append(line.append('\t'), name);
        }
        line.append('\n');
        out.write(line.toString().getBytes(StandardCharsets.UTF_8));
        next++;
        lastRow = row;
    }

    private IllegalStateException fail(long number, String what) {
        return new IllegalStateException(column + ": assignment " + number + " " + what);
    }

    /** The number of the next assignment: the assignments replayed. */
    public long next() {
        return next;
    }

    /** The assignments that reused an evicted key's index. */
    public long evictions() {
        return evictions;
    }

    /** The indices a key holds (at most the capacity). */
    public int held() {
        return held;
    }

    /**
     * Writes the vocabulary file: {@code index<TAB>key} for every held index, in index order, and
     * {@code <TAB>string} after a key with an original string ({@link NameText}).
     */
    public void writeMap(OutputStream vocab) throws IOException {
        StringBuilder text = new StringBuilder(32);
        for (int i = 0; i < held; i++) {
            text.setLength(0);
            text.append(firstIndex + i).append('\t').append(Long.toUnsignedString(holders[i]));
            if (holderNames != null && holderNames[i] != null) {
                NameText.append(text.append('\t'), holderNames[i]);
            }
            text.append('\n');
            vocab.write(text.toString().getBytes(StandardCharsets.UTF_8));
        }
    }
}
