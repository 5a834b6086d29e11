package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An output directory never holds an input, nor lies inside an input directory; a previous output
 * stays whole until a new run publishes.
 */
class PrepareOutputTest {

    @TempDir Path tmp;

    @Test
    void anInputInsideTheOutputIsRefusedBeforeAnythingIsRemoved() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("out"));
        Path input = Files.writeString(out.resolve("rows.bin"), "1\t2\n");
        Files.writeString(out.resolve("metadata.json"), "{}");
        assertThatThrownBy(() -> Preprocess.prepareOutput(out, true, List.of(input)))
                .hasMessageContaining("lies inside the output directory");
        assertThat(input).exists();
        assertThat(out.resolve("metadata.json")).exists();
        // also through a symbolic link to the directory
        Path link = Files.createSymbolicLink(tmp.resolve("link"), out);
        assertThatThrownBy(() -> Preprocess.prepareOutput(link, true, List.of(input)))
                .hasMessageContaining("lies inside the output directory");
    }

    @Test
    void overwritingLeavesThePreviousOutputInPlaceAndRefusesForeignFiles() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("previous"));
        Files.writeString(out.resolve("rows.bin"), "rows");
        Files.writeString(out.resolve("metadata.json"), "{}");
        assertThatThrownBy(() -> Preprocess.prepareOutput(out, false))
                .hasMessage(out + " is not empty (use --overwrite to replace a previous run)");
        Preprocess.prepareOutput(out, true);
        assertThat(out.resolve("rows.bin")).hasContent("rows");
        assertThat(out.resolve("metadata.json")).hasContent("{}");
        Files.writeString(out.resolve("notes.txt"), "mine");
        assertThatThrownBy(() -> Preprocess.prepareOutput(out, true))
                .hasMessage(
                        out
                                + " holds notes.txt, which is not a piper output file; refusing to"
                                + " overwrite");
    }

    @Test
    void anOutputInsideAnInputDirectoryIsRefused() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Files.writeString(data.resolve("part-0.parquet"), "x");
        assertThatThrownBy(
                        () -> Preprocess.prepareOutput(data.resolve("out"), false, List.of(data)))
                .hasMessage(
                        "the output directory "
                                + data.resolve("out")
                                + " lies inside the input directory "
                                + data
                                + ", whose files the run reads; write the output elsewhere");
        assertThat(data.resolve("out")).doesNotExist();
        Preprocess.prepareOutput(tmp.resolve("elsewhere"), false, List.of(data));
        // accepted, and left alone: the run's publication creates it whole (OutputCommit)
        assertThat(tmp.resolve("elsewhere")).doesNotExist();
    }
}
