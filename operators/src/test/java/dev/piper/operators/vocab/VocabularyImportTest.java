package dev.piper.operators.vocab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.state.Vocabulary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VocabularyImportTest {

    @TempDir Path dir;

    private static final VocabularyPolicy PLAIN_IMPORT =
            new VocabularyPolicy(1, 0, Vocabulary.MAX_SIZE, "unused");

    @Test
    void readsTheBatchOutputsLayout() throws IOException {
        Path file = dir.resolve("C1.tsv");
        Files.writeString(file, "0\t0\n1\t3735928559\n2\t18446744073709551615\n");
        Vocabulary v = VocabularyImport.read(file, PLAIN_IMPORT);
        assertThat(v).isEqualTo(Vocabulary.ofKeys(new long[] {0, 0xdeadbeefL, -1L}, 3));
    }

    @Test
    void anEmptyFileIsAnEmptyVocabularyAndCrlfIsAccepted() throws IOException {
        Path empty = Files.writeString(dir.resolve("e.tsv"), "");
        assertThat(VocabularyImport.read(empty, PLAIN_IMPORT).size()).isZero();
        Path crlf = Files.writeString(dir.resolve("w.tsv"), "0\t5\r\n1\t6\r\n");
        assertThat(VocabularyImport.read(crlf, PLAIN_IMPORT).keyAt(1)).isEqualTo(6);
    }

    /** A string-id column's file, its entries named (a third field), imports its keys. */
    @Test
    void aStringColumnsFileImportsItsKeys() throws IOException {
        Path file = Files.writeString(dir.resolve("C3.tsv"), "0\t10\tu_1\n1\t0\n2\t12\ta\\tb\n");
        Vocabulary v = VocabularyImport.read(file, PLAIN_IMPORT);
        assertThat(v.size()).isEqualTo(3);
        assertThat(v.indexOf(12)).isEqualTo(2);
    }

    @Test
    void indicesStartAfterTheOovBuckets() throws IOException {
        Path file = Files.writeString(dir.resolve("C2.tsv"), "4\t10\n5\t11\n");
        Vocabulary v = VocabularyImport.read(file, new VocabularyPolicy(1, 4, 10, "x"));
        assertThat(v.indexOf(11)).isEqualTo(1);
        assertThatThrownBy(() -> VocabularyImport.read(file, PLAIN_IMPORT))
                .hasMessage(
                        file
                                + " line 1 has index 4 where 0 is due (indices run from the first"
                                + " index, 0 with 0 OOV buckets, without gaps)");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "a gap|0|0\\t1\\n2\\t2\\n|line 2 has index 2 where 1 is due",
                "no tab|0|0 1\\n|line 1 is not index<TAB>key, or index<TAB>key<TAB>string: \"0 1\"",
                "four fields|0|0\\t1\\tu\\t2\\n|line 1 is not index<TAB>key, or",
                "an empty line|0|0\\t1\\n\\n|line 2 is not index<TAB>key",
                "a hex key|0|0\\tff\\n|line 1 has key \"ff\", not an unsigned decimal below 2^64",
                "a key of 2^64|0|0\\t18446744073709551616\\n|line 1 has key \"18446744073709551616\"",
                "a negative key|0|0\\t-1\\n|line 1 has key \"-1\"",
                "a signed index|0|+0\\t1\\n|line 1 has index \"+0\", not an unsigned decimal below 2^64",
                "a repeated key|0|0\\t7\\n1\\t8\\n2\\t7\\n|line 3 repeats key 7 of line 1",
                "more than max_size|2|1\\t1\\n2\\t2\\n3\\t3\\n|line 3 is entry 3, beyond max_size 2",
            })
    void rejectsABadFileNamingItsLine(String name, int maxSize, String content, String message)
            throws IOException {
        Path file =
                Files.writeString(
                        dir.resolve("bad.tsv"), content.replace("\\t", "\t").replace("\\n", "\n"));
        VocabularyPolicy policy =
                maxSize == 0 ? PLAIN_IMPORT : new VocabularyPolicy(1, 1, maxSize, "x");
        assertThatThrownBy(() -> VocabularyImport.read(file, policy))
                .as(name)
                .isInstanceOf(dev.piper.pipeline.ops.TableFiles.BadTableFile.class)
                .hasMessageStartingWith(file + " " + message);
    }

    @Test
    void aMissingFileIsNamed() {
        Path file = dir.resolve("absent.tsv");
        assertThatThrownBy(() -> VocabularyImport.read(file, PLAIN_IMPORT))
                .hasMessage("vocabulary file " + file + " does not exist");
    }
}
