package dev.piper.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The position file, as the trainer client writes it: read back column for column in column order
 * (C10 after C9), and refused naming the field when it is not one.
 */
class VocabularyPositionTest {

    @TempDir Path dir;

    @Test
    void aPositionFileIsReadBackInColumnOrder() throws Exception {
        Path file = dir.resolve("p.json");
        Files.writeString(
                file,
                """
                {"format": "piper-vocab-position", "version": 1, "pipeline": "clicks/2",
                 "source": "trainer checkpoint after 1024 rows",
                 "columns": {"C10": {"epoch": 0, "oov_buckets": 0, "position": 3},
                             "C2": {"epoch": 1, "oov_buckets": 4, "position": 0},
                             "C1": {"epoch": 0, "oov_buckets": 0, "position": 12},
                             "C3": {"epoch": 0, "oov_buckets": 0, "position": 1},
                             "C4": {"epoch": 0, "oov_buckets": 0, "position": 1},
                             "C5": {"epoch": 0, "oov_buckets": 0, "position": 1},
                             "C6": {"epoch": 0, "oov_buckets": 0, "position": 1},
                             "C7": {"epoch": 0, "oov_buckets": 0, "position": 1},
                             "C8": {"epoch": 0, "oov_buckets": 0, "position": 1},
                             "C9": {"epoch": 0, "oov_buckets": 0, "position": 1}}}
                """);
        VocabularyPosition p = VocabularyPosition.read(file);
        assertThat(p.pipeline()).isEqualTo("clicks/2");
        assertThat(p.columns().stream().map(VocabularySnapshot.Column::name).toList())
                .containsExactly("C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10");
        assertThat(p.columns().get(1)).isEqualTo(new VocabularySnapshot.Column("C2", 1, 4, 0));
        Path again = dir.resolve("again.json");
        p.write(again);
        assertThat(VocabularyPosition.read(again)).isEqualTo(p);
    }

    @Test
    void whatIsNotAPositionIsRefusedNamingTheField() throws Exception {
        assertThatThrownBy(() -> VocabularyPosition.read(write("{\"format\": \"x\"}")))
                .hasMessageEndingWith(
                        ": not a vocabulary position (\"format\" is not \"piper-vocab-position\")");
        assertThatThrownBy(
                        () ->
                                VocabularyPosition.read(
                                        write(
                                                "{\"format\": \"piper-vocab-position\", \"version\":"
                                                        + " 1, \"columns\": {\"C1\": {\"epoch\": 0,"
                                                        + " \"oov_buckets\": 0, \"position\":"
                                                        + " -5}}}")))
                .hasMessageEndingWith(
                        "columns.C1.position: -5 is not an integer from 0 to 9223372036854775807");
        assertThatThrownBy(
                        () ->
                                VocabularyPosition.read(
                                        write(
                                                "{\"format\": \"piper-vocab-position\", \"version\":"
                                                        + " 1, \"columns\": {\"C2\": {\"epoch\": 0,"
                                                        + " \"oov_buckets\": 0, \"position\":"
                                                        + " 5}}}")))
                .hasMessageEndingWith(": columns [C2] are not C1..C1");
        assertThatThrownBy(() -> VocabularyPosition.read(write("{not json")))
                .hasMessageContaining(": not JSON (");
        assertThatThrownBy(
                        () ->
                                new VocabularyPosition(
                                        "",
                                        "",
                                        List.of(new VocabularySnapshot.Column("C1", 0, 0, -1))))
                .hasMessageStartingWith("C1: a position needs its epoch, buckets and position");
    }

    private Path write(String text) throws Exception {
        return Files.writeString(Files.createTempFile(dir, "p", ".json"), text);
    }
}
