package dev.piper.pipeline.join;

import java.nio.charset.StandardCharsets;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * Which negative rows the join keeps: those whose key's hash falls below the rate, so a replay, the
 * batch job and the stream keep the same ones at any parallelism.
 */
public final class NegativeSampling {

    /** The hash's seed: fixed forever, as a changed one would keep other rows. */
    static final long SEED = 0x6e65675f73616d70L;

    private static final XXHash64 XXH64 = XXHashFactory.safeInstance().hash64();

    private NegativeSampling() {}

    /** Whether a negative row of {@code key} is kept at {@code rate}, in (0, 1]. */
    public static boolean keeps(String key, double rate) {
        return rate >= 1 || unit(key) < rate;
    }

    /** {@code key}'s point in [0, 1): the top 53 bits of the XXH64 of its UTF-8. */
    static double unit(String key) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        return (XXH64.hash(b, 0, b.length, SEED) >>> 11) * 0x1.0p-53;
    }
}
