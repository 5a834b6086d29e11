package dev.piper.output;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RawTextTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "6162|ab",
                "61ff62|a\\xFFb",
                "5c|\\\\",
                "c3a9|\u00e9",
                "c3|\\xC3",
                "e282|\\xE2\\x82",
                "0974|'\tt'",
                "f09f9880|\ud83d\ude00"
            })
    void escapesInvalidBytesAndBackslashes(String hex, String expected) {
        byte[] raw = java.util.HexFormat.of().parseHex(hex);
        assertThat(RawText.escape(raw)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"plain text", "tabs\tand\\backslashes"})
    void validUtf8WithoutBackslashesIsUnchanged(String s) {
        String escaped = RawText.escape(s.getBytes(StandardCharsets.UTF_8));
        assertThat(escaped.replace("\\\\", "\\")).isEqualTo(s);
    }
}
