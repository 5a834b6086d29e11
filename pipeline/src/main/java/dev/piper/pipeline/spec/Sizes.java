package dev.piper.pipeline.spec;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Sizes in bytes as people write them, for specs and command lines alike. */
public final class Sizes {

    private static final Pattern SIZE = Pattern.compile("([0-9]+)\\s*([kmgt]?)b?");

    private Sizes() {}

    /** A size that does not fit a long. */
    public static final class TooLarge extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        TooLarge(String text, Throwable cause) {
            super("too large: " + text, cause);
        }
    }

    /**
     * A size such as {@code 512m}, {@code 4g}, {@code 65536} or {@code 64k} (binary units, as the
     * JVM's {@code -Xmx}), in bytes.
     *
     * @throws IllegalArgumentException if it is not one ({@link TooLarge} if it does not fit a
     *     long)
     */
    public static long bytes(String text) {
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: " + text);
        }
        int shift = "_kmgt".indexOf(m.group(2).isEmpty() ? "_" : m.group(2)) * 10;
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), 1L << shift);
        } catch (ArithmeticException | NumberFormatException e) { // digits only: an overflow
            throw new TooLarge(text, e);
        }
    }
}
