package dev.piper.pipeline.input;

import java.nio.charset.StandardCharsets;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * The 64-bit key of a string id ({@code hash64} in a chain): XXH64 with seed 0 over the string's
 * UTF-8 bytes, read as an unsigned 64-bit integer. XXH64 is Yann Collet's xxHash (the reference in
 * C, {@code xxhsum -H1}; Python's {@code xxhash.xxh64_intdigest(s, seed=0)}; ClickHouse's {@code
 * xxHash64}), computed here by lz4-java (its pure-Java instance: no Unsafe), the library Kafka's
 * clients already ship. The test vectors in {@code docs/SPECS.md} are checked by {@code
 * StringIdsTest}.
 */
public final class StringIds {

    /** The hash's seed: fixed forever, since keys are what vocabularies remember. */
    public static final long SEED = 0;

    private static final XXHash64 XXH64 = XXHashFactory.safeInstance().hash64();

    private StringIds() {}

    /** The key of the UTF-8 text in {@code bytes[offset, offset + length)}. */
    public static long key(byte[] bytes, int offset, int length) {
        return XXH64.hash(bytes, offset, length, SEED);
    }

    /** The key of {@code id}. */
    public static long key(String id) {
        byte[] b = id.getBytes(StandardCharsets.UTF_8);
        return key(b, 0, b.length);
    }
}
