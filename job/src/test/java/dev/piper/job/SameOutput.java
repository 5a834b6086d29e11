package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.connectors.output.OutputLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The check that a stream's consumed output is a batch run's, byte for byte. */
public final class SameOutput {

    private SameOutput() {}

    /**
     * {@code rows.bin} and every {@code vocab/C*.tsv} of {@code consumed} equal those of {@code
     * batch} byte for byte ({@code what} names the run in failures). Dead letters differ by design:
     * a stream's say where in Kafka the line was, a batch run's where in the file.
     */
    public static void assertRowsAndVocabulariesEqual(Path consumed, Path batch, String what)
            throws IOException {
        assertThat(
                        Files.mismatch(
                                consumed.resolve(OutputLayout.ROWS),
                                batch.resolve(OutputLayout.ROWS)))
                .as("%s %s", what, OutputLayout.ROWS)
                .isEqualTo(-1);
        for (int c = 0; c < 26; c++) {
            String file = OutputLayout.vocabFile(c);
            assertThat(Files.mismatch(consumed.resolve(file), batch.resolve(file)))
                    .as("%s %s", what, file)
                    .isEqualTo(-1);
        }
    }
}
