package dev.piper.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23: a full disk was reported as "The TaskExecutor is shutting down.": the writer's close,
 * called while the task was already failing, tried to write its buffers, failed again, and Flink
 * took that for fatal. With Linux's {@code /dev/full} (every write fails with ENOSPC, as on a full
 * disk) behind an output file: the write fails naming the file, and the close after it is quiet.
 */
class FullDiskTest {

    private static final Path FULL = Path.of("/dev/full");

    @TempDir Path tmp;

    @Test
    void aFullDiskFailsTheWriteNamingTheFileAndTheCloseAfterItIsQuiet() throws Exception {
        assertThat(FULL).as("Linux's /dev/full").exists();
        Path dir = Files.createDirectories(tmp.resolve(".out.staging-0"));
        Files.createSymbolicLink(dir.resolve(OutputLayout.ROWS), FULL);
        Files.createDirectories(dir.resolve(OutputLayout.VOCAB_DIR));
        Files.createSymbolicLink(dir.resolve(OutputLayout.vocabFile(0)), FULL);
        DlrmOutputWriter writer =
                new DlrmOutputWriter(
                        dir, tmp.resolve("out"), DecodeOptions.defaults(), RowsFormat.DLRM_ROWS);
        int rows = 40_000; // 6.4 MB of rows: more than the direct writer buffers
        long[][] keys = new long[26][0];
        keys[0] = new long[] {7};
        AssembledBlock block =
                AssembledBlock.builder()
                        .seq(0)
                        .lines(rows)
                        .rows(rows)
                        .rowBytes(new byte[rows * 160])
                        .deadLetters(new DeadLetter[0])
                        .newKeys(new int[26], keys)
                        .build();
        assertThatThrownBy(() -> writer.write(block))
                .isInstanceOf(IOException.class)
                .hasMessage(dir.resolve(OutputLayout.ROWS) + ": No space left on device");
        writer.close(); // the vocabulary's buffered entry cannot be written either: not raised
    }

    @Test
    void aBufferedFileNamesItselfWhenItCannotBeWritten() throws Exception {
        assertThat(FULL).as("Linux's /dev/full").exists();
        try (OutputStream out = NamedOutput.open(FULL)) {
            assertThatThrownBy(() -> out.write(new byte[16]))
                    .hasMessage(FULL + ": No space left on device");
        }
    }
}
