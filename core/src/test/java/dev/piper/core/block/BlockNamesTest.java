package dev.piper.core.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A block's names: the first entry of a key names it, a fill entry names it nothing. */
class BlockNamesTest {

    private static BlockNames column(long[] keys, int[] lengths, String text) {
        return new BlockNames(
                new long[][] {null, keys},
                new int[][] {null, lengths},
                new byte[][] {null, text.getBytes(StandardCharsets.UTF_8)});
    }

    @Test
    void theFirstEntryOfAKeyNamesIt() {
        // keys 5 ("ab"), 0 (the fill, no string), 5 again ("zz", collided), 9 ("ü")
        BlockNames names = column(new long[] {5, 0, 5, 9}, new int[] {2, -1, 2, 2}, "abzzü");
        assertThat(names.strings(1)).containsExactly("ab", null, "zz", "ü");
        assertThat(names.namesOf(1, new long[] {9, 5, 0, 7, 5}))
                .containsExactly("ü", "ab", null, null, "ab");
        assertThat(names.namesOf(0, new long[] {5})).isNull(); // a column without names
        assertThat(names.namesOf(1, new long[0])).isNull();
    }

    @Test
    void lengthsMustAddUpToTheText() {
        assertThatThrownBy(() -> column(new long[] {1, 2}, new int[] {2, 2}, "abc"))
                .hasMessageContaining("column 1: 4 bytes of strings in 3");
        assertThatThrownBy(() -> column(new long[] {1}, new int[] {1, 1}, "ab"))
                .hasMessageContaining("not one string per key");
    }
}
