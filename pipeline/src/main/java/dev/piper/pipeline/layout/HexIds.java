package dev.piper.pipeline.layout;

import java.util.Arrays;

/**
 * What a categorical id's text is, for every decoder: hexadecimal digits (either case) read as an
 * unsigned 64-bit id, leading zeros allowed, at most 16 significant digits (docs/SEMANTICS.md). The
 * text decoder parses Criteo lines with it, the Parquet reader ids stored as text.
 */
public final class HexIds {

    /** The text is an id. */
    public static final int OK = 0;

    /** The text has a character that is not a hex digit. */
    public static final int NOT_HEX = 1;

    /** The text has more than 16 significant digits. */
    public static final int OVERFLOW = 2;

    /** Value of a hex digit, or -1. */
    private static final byte[] DIGIT = new byte[256];

    static {
        Arrays.fill(DIGIT, (byte) -1);
        for (int c = '0'; c <= '9'; c++) {
            DIGIT[c] = (byte) (c - '0');
        }
        for (int c = 'a'; c <= 'f'; c++) {
            DIGIT[c] = (byte) (c - 'a' + 10);
            DIGIT[c - 'a' + 'A'] = (byte) (c - 'a' + 10);
        }
    }

    private HexIds() {}

    /** The value of hex digit {@code b}, or -1 if it is none. */
    public static int digit(byte b) {
        return DIGIT[b & 0xff];
    }

    /** Whether {@code b[s, e)} is an id: {@link #OK}, {@link #NOT_HEX} or {@link #OVERFLOW}. */
    public static int status(byte[] b, int s, int e) {
        int significant = 0;
        for (int i = s; i < e; i++) {
            int d = DIGIT[b[i] & 0xff];
            if (d < 0) {
                return NOT_HEX;
            }
            if (significant > 0 || d != 0) {
                significant++;
            }
        }
        return significant > 16 ? OVERFLOW : OK;
    }

    /** As {@link #status(byte[], int, int)}, over the characters {@code c[s, e)}. */
    public static int status(char[] c, int s, int e) {
        int significant = 0;
        for (int i = s; i < e; i++) {
            int d = c[i] < 256 ? DIGIT[c[i]] : -1;
            if (d < 0) {
                return NOT_HEX;
            }
            if (significant > 0 || d != 0) {
                significant++;
            }
        }
        return significant > 16 ? OVERFLOW : OK;
    }

    /** As {@link #value(byte[], int, int)}, over the characters {@code c[s, e)}. */
    public static long value(char[] c, int s, int e) {
        long v = 0;
        for (int i = s; i < e; i++) {
            v = (v << 4) | DIGIT[c[i]];
        }
        return v;
    }

    /** The reason a bad id of this {@link #status} rejects its line. */
    public static Reason reason(int status) {
        return status == NOT_HEX ? Reason.CATEGORICAL_NOT_HEX : Reason.CATEGORICAL_OVERFLOW;
    }

    /** What is wrong with a bad id of this {@link #status}, as dead letters word it. */
    public static String problem(int status) {
        return status == NOT_HEX ? "is not hexadecimal" : "does not fit in 64 bits";
    }

    /** The id of {@code b[s, e)}, whose {@link #status} is {@link #OK}; empty text gives 0. */
    public static long value(byte[] b, int s, int e) {
        long v = 0;
        for (int i = s; i < e; i++) {
            v = (v << 4) | DIGIT[b[i] & 0xff];
        }
        return v;
    }
}
