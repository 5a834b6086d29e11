package dev.piper.pipeline.ops;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reading the two-column tables specs name ({@code mapid}'s id table, {@code vocab}'s import): one
 * {@code a<TAB>b} line each, both unsigned decimals below 2^64, and errors that name the file and
 * the line.
 */
public final class TableFiles {

    private TableFiles() {}

    /** A table that cannot be read; the message names the file and, if it applies, the line. */
    public static final class BadTableFile extends IOException {
        private static final long serialVersionUID = 1L;

        BadTableFile(String message) {
            super(message);
        }
    }

    /**
     * @throws BadTableFile naming {@code what} if {@code file} is not a regular file
     */
    public static void requireFile(Path file, String what) throws BadTableFile {
        if (!Files.isRegularFile(file)) {
            throw new BadTableFile(what + " " + file + " does not exist");
        }
    }

    /** The line's two fields, or a problem naming the line's expected {@code layout}. */
    public static String[] fields(Path file, long lineNo, String line, String layout)
            throws BadTableFile {
        int tab = line.indexOf('\t');
        if (tab < 0 || line.indexOf('\t', tab + 1) >= 0) {
            throw bad(file, lineNo, "is not " + layout + ": \"" + shorten(line) + "\"");
        }
        return new String[] {line.substring(0, tab), line.substring(tab + 1)};
    }

    /**
     * {@code text} as an unsigned decimal below 2^64 (no sign), or a problem naming {@code what}.
     */
    public static long unsigned(Path file, long lineNo, String text, String what)
            throws BadTableFile {
        try {
            if (text.isEmpty() || text.charAt(0) == '+' || text.charAt(0) == '-') {
                throw new NumberFormatException();
            }
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw bad(
                    file,
                    lineNo,
                    "has "
                            + what
                            + " \""
                            + shorten(text)
                            + "\", not an unsigned decimal below 2^64");
        }
    }

    /** A problem with line {@code lineNo} of {@code file}: "FILE line N WHAT". */
    public static BadTableFile bad(Path file, long lineNo, String what) {
        return new BadTableFile(file + " line " + lineNo + " " + what);
    }

    private static String shorten(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "...";
    }
}
