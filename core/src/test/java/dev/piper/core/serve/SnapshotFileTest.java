package dev.piper.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot file: what is written is read back entry for entry (gaps an evicting column leaves,
 * OOV buckets, a batch output's end as position); its bytes are frozen (a snapshot written today is
 * read by tomorrow's build); a file cut short, damaged or of another kind is refused naming why; a
 * snapshot of other columns is refused by the spec it does not fit.
 */
class SnapshotFileTest {

    @TempDir Path dir;

    private static final List<VocabularySnapshot.Column> TWO =
            List.of(
                    new VocabularySnapshot.Column("C1", 0, 2, 3),
                    new VocabularySnapshot.Column("C2", 1, 0, -1));

    private static VocabularySnapshot small() {
        return VocabularySnapshot.of(
                "t/2", "test", TWO, new int[][] {{4, 2}, {0}}, new long[][] {{-1L, 171L}, {2748L}});
    }

    @Test
    void whatIsWrittenIsReadBack() throws Exception {
        SplittableRandom random = new SplittableRandom(42);
        int n = 50_000;
        int[] indices = new int[n];
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            indices[i] = 8 + 2 * i + (random.nextInt(3) == 0 ? 1 : 0); // gaps, as after evictions
            keys[i] = random.nextLong();
        }
        VocabularySnapshot snapshot =
                VocabularySnapshot.of(
                        "clicks/3",
                        "vocab topic v at rows/1@7",
                        List.of(
                                new VocabularySnapshot.Column("C1", 2, 8, 61_234),
                                new VocabularySnapshot.Column("C2", 0, 0, 0)),
                        new int[][] {indices, {}},
                        new long[][] {keys, {}});
        Path file = dir.resolve("s.snapshot");
        snapshot.write(file);
        VocabularySnapshot back = VocabularySnapshot.load(file);
        assertThat(back.pipeline()).isEqualTo("clicks/3");
        assertThat(back.source()).isEqualTo("vocab topic v at rows/1@7");
        assertThat(back.columnList()).isEqualTo(snapshot.columnList());
        for (int i = 0; i < n; i++) {
            assertThat(back.indexOf(0, keys[i])).isEqualTo(indices[i]);
        }
        assertThat(back.entries(0)).isEqualTo(n);
        assertThat(back.tableSize(0)).isEqualTo(snapshot.tableSize(0));
        assertThat(back.entries(1)).isZero();
        assertThat(back.reservedIndex(1)).isZero();
        assertThat(back.tableSize(1)).isEqualTo(1); // the reserved index's row alone
        assertThat(dir.toFile().list()).containsExactly("s.snapshot"); // no temporary file left
    }

    @Test
    void theBytesAreFrozen() throws Exception {
        Path file = dir.resolve("s.snapshot");
        small().write(file);
        String header =
                "piper vocabulary snapshot 1\n"
                        + "{\"pipeline\":\"t/2\",\"source\":\"test\",\"body_bytes\":36,"
                        + "\"crc32\":3487271173,\"columns\":["
                        + "{\"name\":\"C1\",\"epoch\":0,\"oov_buckets\":2,\"position\":3,"
                        + "\"entries\":2,\"table_size\":5,\"reserved_index\":null},"
                        + "{\"name\":\"C2\",\"epoch\":1,\"oov_buckets\":0,\"position\":null,"
                        + "\"entries\":1,\"table_size\":2,\"reserved_index\":1}]}\n";
        String body =
                "02000000"
                        + "04000000"
                        + "ab00000000000000"
                        + "ffffffffffffffff" // C1, index order
                        + "00000000"
                        + "bc0a000000000000"; // C2
        byte[] bytes = Files.readAllBytes(file);
        assertThat(new String(bytes, 0, header.length(), StandardCharsets.US_ASCII))
                .isEqualTo(header);
        assertThat(HexFormat.of().formatHex(bytes, header.length(), bytes.length)).isEqualTo(body);
        VocabularySnapshot back = VocabularySnapshot.load(file);
        assertThat(back.indexOf(0, 171)).isEqualTo(2);
        assertThat(back.indexOf(0, -1L)).isEqualTo(4);
        assertThat(back.indexOf(1, 2748)).isZero();
        assertThat(back.indexOf(1, 171)).isEqualTo(-1);
        assertThat(back.reservedIndex(1)).isEqualTo(1);
        assertThat(back.tableSize(1)).isEqualTo(2); // the entry and the reserved index's row
        assertThat(back.tableSize(0)).isEqualTo(5); // the buckets take unknown keys
    }

    /**
     * A file written before the header announced the reserved index's row (C2's {@code table_size}
     * 1, no {@code reserved_index}) reads as it did: readers take neither from the header.
     */
    @Test
    void aFileOfTheEarlierHeaderReadsTheSame() throws Exception {
        Path file = dir.resolve("old.snapshot");
        byte[] header =
                ("piper vocabulary snapshot 1\n"
                                + "{\"pipeline\":\"t/2\",\"source\":\"test\",\"body_bytes\":36,"
                                + "\"crc32\":3487271173,\"columns\":["
                                + "{\"name\":\"C1\",\"epoch\":0,\"oov_buckets\":2,\"position\":3,"
                                + "\"entries\":2,\"table_size\":5},"
                                + "{\"name\":\"C2\",\"epoch\":1,\"oov_buckets\":0,"
                                + "\"position\":null,\"entries\":1,\"table_size\":1}]}\n")
                        .getBytes(StandardCharsets.US_ASCII);
        byte[] body =
                HexFormat.of()
                        .parseHex(
                                "02000000"
                                        + "04000000"
                                        + "ab00000000000000"
                                        + "ffffffffffffffff"
                                        + "00000000"
                                        + "bc0a000000000000");
        Files.write(file, header);
        Files.write(file, body, java.nio.file.StandardOpenOption.APPEND);
        VocabularySnapshot back = VocabularySnapshot.load(file);
        assertThat(back.indexOf(0, 171)).isEqualTo(2);
        assertThat(back.indexOf(1, 2748)).isZero();
        assertThat(back.reservedIndex(1)).isEqualTo(1);
        assertThat(back.tableSize(1)).isEqualTo(2);
    }

    @Test
    void aFileCutShortDamagedOrOfAnotherKindIsRefused() throws Exception {
        Path file = dir.resolve("s.snapshot");
        small().write(file);
        byte[] bytes = Files.readAllBytes(file);

        Path cut = dir.resolve("cut");
        Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length - 5));
        assertThatThrownBy(() -> VocabularySnapshot.load(cut))
                .hasMessage(
                        cut
                                + ": the header announces 36 bytes of entries, the file holds 31"
                                + " (cut short or damaged)");

        Path damaged = dir.resolve("damaged");
        byte[] flipped = bytes.clone();
        flipped[bytes.length - 1] ^= 1;
        Files.write(damaged, flipped);
        assertThatThrownBy(() -> VocabularySnapshot.load(damaged))
                .hasMessage(damaged + ": the entries do not match the header's crc32 (damaged)");

        Path other = dir.resolve("other");
        Files.writeString(other, "0\t171\n");
        assertThatThrownBy(() -> VocabularySnapshot.load(other))
                .hasMessage(
                        other
                                + ": not a vocabulary snapshot (its first line is not \"piper"
                                + " vocabulary snapshot 1\")");
    }

    @Test
    void entriesThatCannotBeAVocabularyAreRefused() {
        assertThatThrownBy(
                        () ->
                                VocabularySnapshot.of(
                                        "", "", TWO, new int[][] {{1}, {}}, new long[][] {{5}, {}}))
                .hasMessage("C1: index 1 is below the column's first entry, 2");
        assertThatThrownBy(
                        () ->
                                VocabularySnapshot.of(
                                        "",
                                        "",
                                        TWO,
                                        new int[][] {{2, 3}, {}},
                                        new long[][] {{5, 5}, {}}))
                .hasMessage("C1: key 5 at indices 2 and 3");
        assertThatThrownBy(
                        () ->
                                VocabularySnapshot.of(
                                        "",
                                        "",
                                        TWO,
                                        new int[][] {{2, 2}, {}},
                                        new long[][] {{5, 6}, {}}))
                .hasMessage("C1: index 2 holds two keys");
    }

    @Test
    void aSnapshotOfOtherColumnsDoesNotFitTheSpec() throws Exception {
        DecodeOptions options =
                SpecCompiler.decodeOptions(
                        SpecParser.parse(
                                ("{\"name\": \"t\", \"version\": 1,"
                                                + " \"input\": {\"format\": \"criteo-tsv\","
                                                + " \"dense\": 1, \"sparse\": 2},"
                                                + " \"columns\": {\"label\": [\"decode\", \"fill_missing\"],"
                                                + " \"I1\": [\"decode\", \"fill_missing\"],"
                                                + " \"C1\": [\"decode\","
                                                + " \"fill_missing\", \"hex2int\", {\"op\":"
                                                + " \"vocab\", \"min_count\": 2,"
                                                + " \"oov_buckets\": 10}],"
                                                + " \"C2\": [\"decode\", \"fill_missing\", \"hex2int\","
                                                + " \"vocab\"]}}")
                                        .getBytes(StandardCharsets.UTF_8),
                                "t"),
                        1024);
        assertThatThrownBy(() -> new Transform(options, small()))
                .hasMessage(
                        "sparse column 1 of the snapshot is C1 with 2 OOV buckets; the spec's is"
                                + " C1 with 10");
    }
}
