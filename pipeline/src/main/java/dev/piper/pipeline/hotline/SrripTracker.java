package dev.piper.pipeline.hotline;

/**
 * Hotline's Embedding Access Logger in software: a set-associative table of a fixed number of
 * entries (sparse column, index), replaced by Static Re-Reference Interval Prediction (SRRIP) with
 * 2-bit re-reference prediction values (RRPV). A hit sets the entry's RRPV to 0; a miss inserts at
 * RRPV 2 (the maximum less one, Hotline's choice), evicting an entry at RRPV 3 of the set, after
 * ageing the set's entries until one is. Each entry also keeps an access count (saturating), by
 * which its hot set is ranked; Hotline's hardware keeps the RRPV alone.
 *
 * <p>Its memory is bounded: {@code entries} x 13 bytes (key, RRPV, count), whatever the input.
 */
public final class SrripTracker {

    /** Entries per set. */
    public static final int WAYS = 16;

    /** Bytes of one entry: an 8-byte key, a 1-byte RRPV and a 4-byte count. */
    public static final int ENTRY_BYTES = 13;

    private static final byte MAX_RRPV = 3;
    private static final byte INSERT_RRPV = MAX_RRPV - 1;

    private final int sets;
    private final long[] keys; // key + 1; 0: empty
    private final byte[] rrpv;
    private final int[] counts;

    public SrripTracker(int entries) {
        if (entries < WAYS || Integer.bitCount(entries) != 1) {
            throw new IllegalArgumentException(
                    "tracker entries must be a power of two of at least " + WAYS + ": " + entries);
        }
        this.sets = entries / WAYS;
        this.keys = new long[entries];
        this.rrpv = new byte[entries];
        this.counts = new int[entries];
    }

    /** Its capacity in entries. */
    public int capacity() {
        return keys.length;
    }

    /** Counts one access of {@code index} of sparse column {@code column}. */
    public void access(int column, int index) {
        long stored = TopEntries.key(column, index) + 1;
        int base = (int) (HotlineSettings.mix(stored) & (sets - 1)) * WAYS;
        for (int w = base; w < base + WAYS; w++) {
            if (keys[w] == stored) {
                rrpv[w] = 0;
                if (counts[w] != Integer.MAX_VALUE) {
                    counts[w]++;
                }
                return;
            }
        }
        while (true) {
            for (int w = base; w < base + WAYS; w++) {
                if (keys[w] == 0 || rrpv[w] == MAX_RRPV) {
                    keys[w] = stored;
                    rrpv[w] = INSERT_RRPV;
                    counts[w] = 1;
                    return;
                }
            }
            for (int w = base; w < base + WAYS; w++) {
                rrpv[w]++;
            }
        }
    }

    /** Multiplies every count by {@code factor}, rounding down (entries stay until evicted). */
    public void decay(double factor) {
        if (factor >= 1) {
            return;
        }
        for (int i = 0; i < counts.length; i++) {
            counts[i] = (int) (counts[i] * factor);
        }
    }

    /** The {@code k} most counted entries it holds, their keys sorted ({@link TopEntries}). */
    public long[] top(int k) {
        int n = size();
        long[] held = new long[n];
        int[] c = new int[n];
        int j = 0;
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != 0) {
                held[j] = keys[i] - 1;
                c[j++] = counts[i];
            }
        }
        return TopEntries.select(held, c, n, k);
    }

    /** Number of occupied entries. */
    public int size() {
        int n = 0;
        for (long k : keys) {
            if (k != 0) {
                n++;
            }
        }
        return n;
    }

    /** Slot {@code i}'s key (column and index), or -1 if it is empty. */
    public long keyAt(int i) {
        return keys[i] - 1;
    }

    public byte rrpvAt(int i) {
        return rrpv[i];
    }

    public int countAt(int i) {
        return counts[i];
    }

    /** Fills slot {@code i} (restoring a snapshot). */
    public void restore(int i, long key, byte r, int count) {
        if (r < 0 || r > MAX_RRPV) {
            throw new IllegalArgumentException("RRPV " + r + " is not 0.." + MAX_RRPV);
        }
        keys[i] = key + 1;
        rrpv[i] = r;
        counts[i] = count;
    }
}
