package dev.piper.pipeline.ops;

/**
 * SigridHash, Meta's definition (TorchRec, PreSto, RAP): {@code h = hash_128_to_64(salt,
 * twang_mix64(x))} with folly's two mixing functions, read as a signed 64-bit integer, then {@code
 * floorMod(h, max)}, so the result lies in {@code [0, max)}. {@code max == 1} maps everything to 0;
 * {@code max <= 0} is refused.
 */
public final class SigridHash {

    private static final long K_MUL = 0x9ddfea08eb382d69L;

    private final long salt;
    private final long max;

    /**
     * @throws IllegalArgumentException if {@code max <= 0}
     */
    public SigridHash(long salt, long max) {
        if (max <= 0) {
            throw new IllegalArgumentException("sigrid_hash max must be positive, not " + max);
        }
        this.salt = salt;
        this.max = max;
    }

    /** folly's {@code twang_mix64}: Thomas Wang's 64-bit integer mix. */
    static long twangMix64(long key) {
        key = (~key) + (key << 21);
        key = key ^ (key >>> 24);
        key = key + (key << 3) + (key << 8);
        key = key ^ (key >>> 14);
        key = key + (key << 2) + (key << 4);
        key = key ^ (key >>> 28);
        key = key + (key << 31);
        return key;
    }

    /** folly's {@code hash_128_to_64}: a 128-bit value (upper, lower) mixed down to 64 bits. */
    static long hash128To64(long upper, long lower) {
        long a = (lower ^ upper) * K_MUL;
        a ^= a >>> 47;
        long b = (upper ^ a) * K_MUL;
        b ^= b >>> 47;
        b *= K_MUL;
        return b;
    }

    /** The hash of {@code x}, in {@code [0, max)}. */
    public long hash(long x) {
        return Math.floorMod(hash128To64(salt, twangMix64(x)), max);
    }

    /** {@code out[i] = hash(in[i])} for the first {@code n} values. */
    public void apply(long[] in, int n, long[] out) {
        for (int i = 0; i < n; i++) {
            out[i] = hash(in[i]);
        }
    }

    @Override
    public String toString() {
        return "sigrid_hash(salt=" + salt + ", max=" + max + ")";
    }
}
