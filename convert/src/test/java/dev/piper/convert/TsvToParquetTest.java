package dev.piper.convert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A conversion that fails leaves nothing that looks like its result. */
class TsvToParquetTest {

    @TempDir Path tmp;

    @Test
    void aTruncatedGzipLeavesNoParquetFile() throws IOException {
        Path gz = tmp.resolve("day.tsv.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            new CriteoGenerator(4, 0.0005, 0).write(out, 50_000);
        }
        byte[] bytes = Files.readAllBytes(gz);
        Files.write(gz, Arrays.copyOf(bytes, bytes.length / 2));
        Path parquet = tmp.resolve("day.parquet");
        Path dead = tmp.resolve("day.dead-letters.jsonl");
        assertThatThrownBy(
                        () ->
                                TsvToParquet.convert(
                                        gz,
                                        parquet,
                                        dead,
                                        DecodeOptions.defaults(),
                                        CompressionCodecName.SNAPPY,
                                        1_000,
                                        new PrintStream(OutputStream.nullOutputStream())))
                .isInstanceOf(IOException.class);
        try (var files = Files.list(tmp)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .as("no output, no partial file")
                    .containsExactly("day.tsv.gz");
        }
    }
}
