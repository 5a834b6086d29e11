package dev.piper.output;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.pipeline.ops.DecodeOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28: a progress line read "0 rows written, -261,858 rows/s" while a {@code rows.parquet}
 * closed: the writer's count went back to 0 as soon as it finished, with the job still running.
 */
class WriterProgressTest {

    @TempDir Path tmp;

    private static AssembledBlock block(long seq, int rows) {
        return AssembledBlock.builder()
                .seq(seq)
                .lines(rows)
                .rows(rows)
                .rowBytes(new byte[rows * 160])
                .deadLetters(new DeadLetter[0])
                .newKeys(new int[26], new long[26][0])
                .build();
    }

    @Test
    void theCountStaysAfterTheWriterFinishesAndClosesUntilTheNextWriterStarts() throws Exception {
        for (RowsFormat format : RowsFormat.values()) {
            Path out = tmp.resolve("out-" + format.id());
            Path staging = Files.createDirectories(tmp.resolve(".staging-" + format.id()));
            try (DlrmOutputWriter writer =
                    new DlrmOutputWriter(staging, out, DecodeOptions.defaults(), format)) {
                assertThat(DlrmOutputWriter.rowsWrittenSoFar(out)).isZero();
                writer.write(block(0, 3));
                writer.write(block(1, 4));
                assertThat(DlrmOutputWriter.rowsWrittenSoFar(out)).as("%s", format).isEqualTo(7);
                writer.finish();
                assertThat(DlrmOutputWriter.rowsWrittenSoFar(out)).as("%s", format).isEqualTo(7);
            }
            assertThat(DlrmOutputWriter.rowsWrittenSoFar(out)).as("%s", format).isEqualTo(7);
            Path again = Files.createDirectories(tmp.resolve(".again-" + format.id()));
            try (DlrmOutputWriter next =
                    new DlrmOutputWriter(again, out, DecodeOptions.defaults(), format)) {
                assertThat(DlrmOutputWriter.rowsWrittenSoFar(out)).as("%s", format).isZero();
                next.write(block(0, 2));
                assertThat(DlrmOutputWriter.rowsWrittenSoFar(out)).as("%s", format).isEqualTo(2);
            }
        }
    }
}
