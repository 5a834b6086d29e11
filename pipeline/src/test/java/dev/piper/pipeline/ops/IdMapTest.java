package dev.piper.pipeline.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Mapid (RAP, Table 1: "Maps feature IDs to fixed values"). RAP gives no vectors; these follow the
 * definition in docs/SPECS.md: a table hit becomes its value, a miss the default or itself.
 */
class IdMapTest {

    @TempDir Path dir;

    private Long2LongOpenHashMap table() throws IOException {
        Path file =
                Files.writeString(
                        dir.resolve("ids.tsv"),
                        "7\t70\n0\t5\n18446744073709551615\t1\n42\t18446744073709551615\n");
        return IdMap.read(file);
    }

    @ParameterizedTest(name = "{0} -> {1} (no default), {2} (default 9)")
    @CsvSource({
        "7, 70, 70",
        "0, 5, 5",
        "18446744073709551615, 1, 1",
        "42, 18446744073709551615, 18446744073709551615",
        "8, 8, 9",
        "1, 1, 9",
        "9223372036854775808, 9223372036854775808, 9",
    })
    void mapsAHitToItsValueAndAMissToTheDefaultOrItself(
            String id, String withoutDefault, String withDefault) throws IOException {
        Long2LongOpenHashMap t = table();
        long x = Long.parseUnsignedLong(id);
        assertThat(Long.toUnsignedString(new IdMap(t, null).map(x))).isEqualTo(withoutDefault);
        assertThat(Long.toUnsignedString(new IdMap(t, 9L).map(x))).isEqualTo(withDefault);
    }

    @Test
    void anEmptyTableMapsEverythingToTheDefault() throws IOException {
        Long2LongOpenHashMap empty = IdMap.read(Files.writeString(dir.resolve("e.tsv"), ""));
        assertThat(new IdMap(empty, 0L).map(123)).isZero();
        assertThat(new IdMap(empty, null).map(123)).isEqualTo(123);
        assertThat(new IdMap(empty, null).size()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "no tab|1 2|line 1 is not id<TAB>value: \"1 2\"",
                "three fields|1\\t2\\t3|line 1 is not id<TAB>value",
                "hex id|ff\\t1|line 1 has id \"ff\", not an unsigned decimal below 2^64",
                "negative value|1\\t-1|line 1 has value \"-1\"",
                "id of 2^64|18446744073709551616\\t1|line 1 has id \"18446744073709551616\"",
                "repeated id|1\\t2\\n3\\t4\\n1\\t5|line 3 repeats id 1 (an id may appear once)",
                "empty line|1\\t2\\n\\n|line 2 is not id<TAB>value",
            })
    void rejectsABadTableNamingItsLine(String name, String content, String message)
            throws IOException {
        Path file =
                Files.writeString(
                        dir.resolve("bad.tsv"),
                        content.replace("\\t", "\t").replace("\\n", "\n") + "\n");
        assertThatThrownBy(() -> IdMap.read(file))
                .as(name)
                .isInstanceOf(TableFiles.BadTableFile.class)
                .hasMessageStartingWith(file + " " + message);
    }

    @Test
    void aMissingFileIsNamed() {
        Path file = dir.resolve("absent.tsv");
        assertThatThrownBy(() -> IdMap.read(file))
                .hasMessage("mapid file " + file + " does not exist");
    }
}
