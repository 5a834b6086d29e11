package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An output directory never holds an input, nor lies inside an input directory. */
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
        assertThat(tmp.resolve("elsewhere")).isDirectory();
    }
}
