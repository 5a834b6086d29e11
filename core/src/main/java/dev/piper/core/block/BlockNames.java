package dev.piper.core.block;

import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;

/**
 * The original strings of a block's hash64 columns: per such column, each distinct string of the
 * block's rows once, with the key it ended as (its XXH64 hash after the column's id operators), in
 * the order the rows first hold them. The block's new vocabulary entries take their names from here
 * when the block is assembled: a key is admitted in a block whose rows hold it, so the block knows
 * its string. Where two strings end as one key (a modulus), the one the block held first names it.
 *
 * @param keys per sparse column, the keys, or null for a column that does not hash strings
 * @param names per sparse column, the string of each key, parallel to {@code keys}; null for the
 *     column's fill id (a row without a value took it, before any row held a string of that key)
 */
public record BlockNames(long[][] keys, String[][] names) {

    public BlockNames {
        if (keys.length != names.length) {
            throw new IllegalArgumentException(
                    "names of " + names.length + " columns for keys of " + keys.length);
        }
        for (int c = 0; c < keys.length; c++) {
            if ((keys[c] == null) != (names[c] == null)
                    || keys[c] != null && keys[c].length != names[c].length) {
                throw new IllegalArgumentException("column " + c + ": not one name per key");
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

    /**
     * The names of {@code wanted} in column {@code c}, parallel to it (null for a key this block
     * holds no string for, e.g. an n-gram's), or null when the column has no names or nothing is
     * wanted.
     */
    public String[] namesOf(int c, long[] wanted) {
        if (keys[c] == null || wanted.length == 0) {
            return null;
        }
        long[] k = keys[c];
        String[] n = names[c];
        Long2ObjectOpenHashMap<String> byKey = new Long2ObjectOpenHashMap<>(k.length);
        for (int i = 0; i < k.length; i++) {
            byKey.putIfAbsent(k[i], n[i]); // the first string of a key names it
        }
        String[] out = new String[wanted.length];
        for (int i = 0; i < wanted.length; i++) {
            out[i] = byKey.get(wanted[i]);
        }
        return out;
    }
}
