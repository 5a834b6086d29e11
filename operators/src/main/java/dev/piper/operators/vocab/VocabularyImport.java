package dev.piper.operators.vocab;

import dev.piper.state.Vocabulary;
import dev.piper.state.VocabularyPolicy;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a vocabulary to warm-start a column with: a file in the layout of the batch output's {@code
 * vocab/Cj.tsv}, one entry a line, {@code index<TAB>key}, the key an unsigned decimal below 2^64.
 * The indices must run without gaps from the policy's first index ({@link
 * VocabularyPolicy#firstIndex()}, the number of OOV buckets), so that every imported key keeps the
 * index the file gives it; an earlier run's output under the same policy imports as it is.
 */
public final class VocabularyImport {

    private VocabularyImport() {}

    /** A file that cannot be imported; the message names the file and, if it applies, the line. */
    public static final class BadVocabularyFile extends IOException {
        private static final long serialVersionUID = 1L;

        BadVocabularyFile(String message) {
            super(message);
        }
    }

    /** The vocabulary of {@code policy}'s import file. */
    public static Vocabulary read(VocabularyPolicy policy) throws IOException {
        if (policy.importPath() == null) {
            throw new IllegalArgumentException("the policy imports nothing");
        }
        return read(Path.of(policy.importPath()), policy);
    }

    /** The vocabulary in {@code file}, checked against {@code policy}. */
    public static Vocabulary read(Path file, VocabularyPolicy policy) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new BadVocabularyFile("vocabulary file " + file + " does not exist");
        }
        Vocabulary v = new Vocabulary();
        long expected = policy.firstIndex();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long lineNo = 0;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isEmpty()) {
                    throw bad(file, lineNo, "is empty");
                }
                int tab = line.indexOf('\t');
                if (tab < 0 || line.indexOf('\t', tab + 1) >= 0) {
                    throw bad(file, lineNo, "is not index<TAB>key: \"" + shorten(line) + "\"");
                }
                long index = parse(file, lineNo, line.substring(0, tab), "index", false);
                if (index != expected) {
                    throw bad(
                            file,
                            lineNo,
                            "has index "
                                    + index
                                    + " where "
                                    + expected
                                    + " is due (indices run from the first index, "
                                    + policy.firstIndex()
                                    + " with "
                                    + policy.oovBuckets()
                                    + " OOV buckets, without gaps)");
                }
                int n = v.size();
                if (n == policy.maxSize()) {
                    throw bad(
                            file,
                            lineNo,
                            "is entry " + (n + 1) + ", beyond max_size " + policy.maxSize());
                }
                long key = parse(file, lineNo, line.substring(tab + 1), "key", true);
                int at = v.getOrAdd(key);
                if (at != n) {
                    throw bad(
                            file,
                            lineNo,
                            "repeats key " + Long.toUnsignedString(key) + " of line " + (at + 1));
                }
                expected++;
            }
        }
        return v;
    }

    private static long parse(Path file, long lineNo, String text, String what, boolean unsigned)
            throws BadVocabularyFile {
        try {
            if (text.isEmpty() || text.charAt(0) == '+' || text.charAt(0) == '-') {
                throw new NumberFormatException();
            }
            return unsigned ? Long.parseUnsignedLong(text) : Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw bad(
                    file,
                    lineNo,
                    "has "
                            + what
                            + " \""
                            + shorten(text)
                            + "\", not "
                            + (unsigned ? "an unsigned decimal below 2^64" : "an index"));
        }
    }

    private static BadVocabularyFile bad(Path file, long lineNo, String what) {
        return new BadVocabularyFile(file + " line " + lineNo + " " + what);
    }

    private static String shorten(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "...";
    }
}
