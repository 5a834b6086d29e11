package dev.piper.connectors.parquet.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.connectors.parquet.source.ParquetFileSource;
import dev.piper.core.block.ColumnBlock;
import dev.piper.pipeline.layout.RowLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.ParquetDecodingException;

/**
 * Coverage-guided fuzzing of the Parquet reader (Jazzer) on whole files: any bytes are either
 * refused before a job starts (what {@code preprocess} checks: an {@link IOException} or {@link
 * IllegalArgumentException} naming the file), or read so that every row of every row group is one
 * row or one dead letter, or fail while reading with an {@link IOException} or {@link
 * ParquetDecodingException}; never another exception. The committed inputs (small files written by
 * {@code convert}, under {@code ParquetReaderFuzzTestInputs/}) run in every build; {@code
 * docs/RELIABILITY.md} says how to fuzz.
 */
class ParquetReaderFuzzTest {

    @FuzzTest(maxDuration = "10m")
    void anyFileIsReadWholeOrRefused(byte[] bytes) throws IOException {
        Path file = Files.createTempFile("fuzz", ".parquet");
        try {
            Files.write(file, bytes);
            try {
                ParquetFileSource.check(file.toString(), RowLayout.CRITEO, Map.of());
            } catch (IOException | IllegalArgumentException refused) {
                return;
            }
            List<ColumnBlock> blocks;
            try {
                blocks = ParquetBlocks.read(ParquetFiles.open(new LocalInputFile(file)), file);
            } catch (IOException | ParquetDecodingException failed) {
                return;
            }
            long rows;
            try (var reader = ParquetFiles.open(new LocalInputFile(file))) {
                rows = reader.getRecordCount();
            }
            long lines = 0;
            for (ColumnBlock b : blocks) {
                assertThat(b.rows() + b.deadLetters().length).isEqualTo(b.lines());
                lines += b.lines();
            }
            assertThat(lines).isEqualTo(rows);
        } finally {
            Files.delete(file);
        }
    }
}
