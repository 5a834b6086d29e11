package dev.piper.operators.vocab;

import dev.piper.pipeline.ops.TableFiles;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.state.Vocabulary;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a vocabulary to warm-start a column with: a file in the layout of the batch output's {@code
 * vocab/Cj.tsv}, one entry a line, {@code index<TAB>key}, the key an unsigned decimal below 2^64 (a
 * third field, a hash64 key's original string, is read past). The indices must run without gaps
 * from the policy's first index ({@link VocabularyPolicy#firstIndex()}, the number of OOV buckets),
 * so that every imported key keeps the index the file gives it; an earlier run's output under the
 * same policy imports as it is.
 */
public final class VocabularyImport {

    private VocabularyImport() {}

    /** The vocabulary of {@code policy}'s import file. */
    public static Vocabulary read(VocabularyPolicy policy) throws IOException {
        if (policy.importPath() == null) {
            throw new IllegalArgumentException("the policy imports nothing");
        }
        return read(Path.of(policy.importPath()), policy);
    }

    /**
     * The vocabulary of {@code policy}'s import file for the column {@code column} (0 for C1), on
     * the subtask that owns it; a file that cannot be read fails the job naming the column and the
     * file.
     */
    static Vocabulary readForColumn(VocabularyPolicy policy, int column) {
        try {
            return read(policy);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "column C" + (column + 1) + ": cannot import its vocabulary: " + e.getMessage(),
                    e);
        }
    }

    /** The vocabulary in {@code file}, checked against {@code policy}. */
    public static Vocabulary read(Path file, VocabularyPolicy policy) throws IOException {
        TableFiles.requireFile(file, "vocabulary file");
        Vocabulary v = new Vocabulary();
        long expected = policy.firstIndex();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long lineNo = 0;
            while ((line = in.readLine()) != null) {
                lineNo++;
                int tab = line.indexOf('\t');
                int third = tab < 0 ? -1 : line.indexOf('\t', tab + 1);
                // a string-id column's third field, the key's string, has no tab of its own
                String[] f =
                        TableFiles.fields(
                                file,
                                lineNo,
                                third < 0 || line.indexOf('\t', third + 1) >= 0
                                        ? line
                                        : line.substring(0, third),
                                "index<TAB>key, or index<TAB>key<TAB>string");
                long index = TableFiles.unsigned(file, lineNo, f[0], "index");
                if (index != expected) {
                    throw TableFiles.bad(
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
                    throw TableFiles.bad(
                            file,
                            lineNo,
                            "is entry " + (n + 1) + ", beyond max_size " + policy.maxSize());
                }
                long key = TableFiles.unsigned(file, lineNo, f[1], "key");
                int at = v.getOrAdd(key);
                if (at != n) {
                    throw TableFiles.bad(
                            file,
                            lineNo,
                            "repeats key " + Long.toUnsignedString(key) + " of line " + (at + 1));
                }
                expected++;
            }
        }
        return v;
    }
}
