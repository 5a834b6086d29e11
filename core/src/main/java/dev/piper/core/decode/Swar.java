package dev.piper.core.decode;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight ASCII bytes at a time in one {@code long} (SWAR), little-endian: the first byte in memory
 * is the lowest byte of the word. Every byte-wise trick here is exact only when all eight bytes are
 * below 0x80, which {@link #isHex8} checks first; then no addition carries across bytes.
 */
public final class Swar {

    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    private Swar() {}

    /**
     * Where the last line of {@code b[0, end)} starts: after its last {@code \n}, or 0. A plain
     * backward loop: it runs once per block, over the length of one line.
     */
    public static int lastLineStart(byte[] b, int end) {
        for (int i = end - 1; i >= 0; i--) {
            if (b[i] == '\n') {
                return i + 1;
            }
        }
        return 0;
    }

    /**
     * Position of the first {@code target} byte in {@code b[from, to)}, or -1. Eight bytes a step:
     * after {@code w ^= target * 0x01..01} the matching bytes are zero, and {@code (w - 0x01..01) &
     * ~w & 0x80..80} is non-zero exactly when a byte of {@code w} is zero, its lowest set bit
     * marking the first such byte (exact for the lowest one, whatever the byte values).
     */
    public static int indexOf(byte[] b, byte target, int from, int to) {
        long pattern = (target & 0xffL) * ONES;
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long w = load(b, i) ^ pattern;
            long zero = (w - ONES) & ~w & HIGHS;
            if (zero != 0) {
                return i + (Long.numberOfTrailingZeros(zero) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (b[i] == target) {
                return i;
            }
        }
        return -1;
    }

    /** The eight bytes at {@code b[p, p + 8)}. */
    static long load(byte[] b, int p) {
        return (long) LONGS.get(b, p);
    }

    /** Bytes of {@code w} in {@code [lo, hi]} get 0x80, others 0; needs all bytes below 0x80. */
    private static long inRange(long w, int lo, int hi) {
        long atLeastLo = w + (0x80 - lo) * ONES;
        long aboveHi = w + (0x7F - hi) * ONES;
        return atLeastLo & ~aboveHi & HIGHS;
    }

    /** 0x80 in each byte that is a hex letter ({@code a-f} or {@code A-F}). */
    private static long letters(long w) {
        return inRange(w | 0x2020202020202020L, 'a', 'f');
    }

    /** Whether all eight bytes are hex digits {@code 0-9 a-f A-F}. */
    static boolean isHex8(long w) {
        if ((w & HIGHS) != 0) {
            return false;
        }
        return (inRange(w, '0', '9') | letters(w)) == HIGHS;
    }

    /**
     * How many of the bytes of {@code w}, from its first, are decimal digits {@code 0-9} before the
     * first byte that is not (8 if all are). Any byte values: a byte at or above 0x80 is no digit.
     */
    static int decimalDigits(long w) {
        long digits = inRange(w & ~HIGHS, '0', '9') & ~w;
        return Long.numberOfTrailingZeros(~digits & HIGHS) >>> 3;
    }

    /**
     * The value of the first {@code n} bytes of {@code w}, which must be decimal digits, the first
     * most significant; {@code 1 <= n <= 8}. The digits are shifted to the top of the word, so the
     * bytes below them read as leading zeros, then combined in pairs, fours and eights.
     */
    static long decimal(long w, int n) {
        long d = (w << ((Long.BYTES - n) << 3)) & 0x0F0F0F0F0F0F0F0FL;
        d = (d * 10 + (d >>> 8)) & 0x00FF00FF00FF00FFL;
        d = (d * 100 + (d >>> 16)) & 0x0000FFFF0000FFFFL;
        return (d * 10000 + (d >>> 32)) & 0xFFFFFFFFL;
    }

    /**
     * The value of eight hex digits ({@link #isHex8} must hold), the first byte most significant.
     */
    static long hex8(long w) {
        long nibbles = (w & 0x0F0F0F0F0F0F0F0FL) + (letters(w) >>> 7) * 9;
        long pairs = ((nibbles << 4) | (nibbles >>> 8)) & 0x00FF00FF00FF00FFL;
        long quads = ((pairs << 8) | (pairs >>> 16)) & 0x0000FFFF0000FFFFL;
        return ((quads << 16) | (quads >>> 32)) & 0xFFFFFFFFL;
    }

    /**
     * How many of the bytes of {@code w}, from its first, may stand in a JSON string as they are (8
     * if all): printable ASCII but the quote and the backslash. The first byte that may not (a
     * quote, a backslash, a control character or a byte at or above 0x80) is found exactly: each
     * test below flags its lowest match exactly, whatever the bytes above it.
     */
    static int plainJsonChars(long w) {
        long quote = w ^ ('"' * ONES);
        long backslash = w ^ ('\\' * ONES);
        long special =
                ((quote - ONES) & ~quote)
                        | ((backslash - ONES) & ~backslash)
                        | ((w - 0x20 * ONES) & ~w)
                        | w;
        return Long.numberOfTrailingZeros(special & HIGHS) >>> 3;
    }
}
