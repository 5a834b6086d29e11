package dev.piper.pipeline.ops;

/**
 * Ngram on list columns: each run of {@code n} consecutive ids of a list becomes one id, so a list
 * of {@code k} ids becomes {@code max(0, k - n + 1)} n-gram ids, in order; {@code n = 1} keeps the
 * list. An n-gram's id folds its ids with folly's {@code hash_128_to_64} (the mix SigridHash ends
 * with): {@code h = x[i]}, then {@code h = hash_128_to_64(h, x[i + j])} for {@code j = 1..n-1},
 * unsigned 64 bits. Follow it with {@code sigrid_hash} or {@code modulus} to bound the ids.
 *
 * <p>RAP lists Ngram as feature generation, "an n-gram across multiple sparse features"; this is
 * the n-gram within one list column (the definition), which is how a single multi-hot
 * feature yields its n-gram feature. Lists are an offsets array ({@code rows + 1} entries) and a
 * values array, as in {@link FirstX}.
 */
public final class Ngram {

    /** The longest n-gram: beyond, nearly every list would be too short to have one. */
    public static final int MAX_N = 16;

    private final int n;

    /**
     * @throws IllegalArgumentException if {@code n} is not in {@code [1, MAX_N]}
     */
    public Ngram(int n) {
        if (n < 1 || n > MAX_N) {
            throw new IllegalArgumentException(
                    "ngram \"n\" must be from 1 to " + MAX_N + ", not " + n);
        }
        this.n = n;
    }

    /** The id of the n-gram {@code ids[from, from + n)}. */
    public long gram(long[] ids, int from) {
        long h = ids[from];
        for (int j = 1; j < n; j++) {
            h = SigridHash.hash128To64(h, ids[from + j]);
        }
        return h;
    }

    /**
     * Writes the n-gram lists of the first {@code rows} lists to {@code outOffsets} ({@code rows +
     * 1} entries) and {@code outValues}, and returns how many ids it wrote. {@code outValues} needs
     * room for at most {@code offsets[rows] - offsets[0]} ids; it may not be {@code values}.
     */
    public int apply(int[] offsets, long[] values, int rows, int[] outOffsets, long[] outValues) {
        int written = 0;
        outOffsets[0] = 0;
        for (int r = 0; r < rows; r++) {
            for (int i = offsets[r]; i + n <= offsets[r + 1]; i++) {
                outValues[written++] = gram(values, i);
            }
            outOffsets[r + 1] = written;
        }
        return written;
    }

    @Override
    public String toString() {
        return "ngram(" + n + ")";
    }
}
