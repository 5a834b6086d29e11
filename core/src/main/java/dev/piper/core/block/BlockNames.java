package dev.piper.core.block;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.nio.charset.StandardCharsets;

/**
 * The original strings of a block's hash64 columns: per such column, each distinct string of the
 * block's rows once, with the key it ended as (its XXH64 hash after the column's id operators), in
 * the order the rows first hold them. The block's new vocabulary entries take their names from here
 * when the block is assembled: a key is admitted in a block whose rows hold it, so the block knows
 * its string. Where two strings end as one key (a modulus), the one the block held first names it.
 *
 * <p>The strings stay UTF-8 bytes, one column's end to end, until an entry needs its name: a block
 * holds thousands of them, of which a few name new entries.
 *
 * @param keys per sparse column, the keys, or null for a column that does not hash strings
 * @param lengths per sparse column, the byte length of each key's string, parallel to {@code keys};
 *     -1 for the column's fill id (a row without a value took it before any row held a string of
 *     that key): no string
 * @param text per sparse column, the strings' UTF-8 bytes, in order
 */
public record BlockNames(long[][] keys, int[][] lengths, byte[][] text) {

    public BlockNames {
        if (keys.length != lengths.length || keys.length != text.length) {
            throw new IllegalArgumentException(
                    "keys of "
                            + keys.length
                            + " columns, lengths of "
                            + lengths.length
                            + ", text of "
                            + text.length);
        }
        for (int c = 0; c < keys.length; c++) {
            if (keys[c] == null) {
                if (lengths[c] != null || text[c] != null) {
                    throw new IllegalArgumentException("column " + c + ": strings without keys");
                }
                continue;
            }
            if (lengths[c] == null || text[c] == null || lengths[c].length != keys[c].length) {
                throw new IllegalArgumentException("column " + c + ": not one string per key");
            }
            long total = 0;
            for (int n : lengths[c]) {
                if (n < -1) {
                    throw new IllegalArgumentException("column " + c + ": a length of " + n);
                }
                total += Math.max(0, n);
            }
            if (total != text[c].length) {
                throw new IllegalArgumentException(
                        "column " + c + ": " + total + " bytes of strings in " + text[c].length);
            }
        }
    }

    /** The number of sparse columns. */
    public int columns() {
        return keys.length;
    }

    /** Whether sparse column {@code c} has names. */
    public boolean has(int c) {
        return keys[c] != null;
    }

    /** Column {@code c}'s strings, in order (null for the fill id); for tests and tools. */
    public String[] strings(int c) {
        if (keys[c] == null) {
            return null;
        }
        String[] out = new String[keys[c].length];
        int at = 0;
        for (int i = 0; i < out.length; i++) {
            int n = lengths[c][i];
            if (n >= 0) {
                out[i] = new String(text[c], at, n, StandardCharsets.UTF_8);
                at += n;
            }
        }
        return out;
    }

    /**
     * The names of {@code wanted} in column {@code c}, parallel to it: the string of each key's
     * first entry (null for a key this block holds no string for: the fill id, an n-gram's), or
     * null when the column has no names or nothing is wanted. One pass over the column's entries.
     */
    public String[] namesOf(int c, long[] wanted) {
        if (keys[c] == null || wanted.length == 0) {
            return null;
        }
        Long2IntOpenHashMap first = new Long2IntOpenHashMap(wanted.length);
        first.defaultReturnValue(-1);
        for (int j = 0; j < wanted.length; j++) {
            first.putIfAbsent(wanted[j], j);
        }
        String[] out = new String[wanted.length];
        boolean[] done = new boolean[wanted.length];
        long[] k = keys[c];
        int[] len = lengths[c];
        int left = first.size();
        int offset = 0;
        for (int i = 0; i < k.length && left > 0; i++) {
            int n = len[i];
            int j = first.get(k[i]);
            if (j >= 0 && !done[j]) { // the key's first entry names it
                done[j] = true;
                left--;
                if (n >= 0) {
                    out[j] = new String(text[c], offset, n, StandardCharsets.UTF_8);
                }
            }
            offset += Math.max(0, n);
        }
        for (int j = 0; j < wanted.length; j++) {
            out[j] = out[first.get(wanted[j])]; // a key wanted twice: named as its first place
        }
        return out;
    }
}
