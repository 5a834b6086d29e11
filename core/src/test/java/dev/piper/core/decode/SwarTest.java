package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SwarTest {

    @ParameterizedTest
    @CsvSource({
        "00000000, 0",
        "0000000f, 15",
        "deadbeef, 3735928559",
        "DEADBEEF, 3735928559",
        "ffffffff, 4294967295",
        "12345678, 305419896",
        "aBcDeF09, 2882400009"
    })
    void parsesEightHexDigits(String text, long expected) {
        long w = Swar.load(text.getBytes(StandardCharsets.US_ASCII), 0);
        assertThat(Swar.isHex8(w)).isTrue();
        assertThat(Swar.hex8(w)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({
        "0000000g",
        "g0000000",
        "1234 678",
        "/0000000",
        ":0000000",
        "@ABCDEFG",
        "`abcdefg",
        "'1234567\t'"
    })
    void rejectsANonHexByteAnywhere(String text) {
        assertThat(Swar.isHex8(Swar.load(text.getBytes(StandardCharsets.US_ASCII), 0))).isFalse();
    }

    /**
     * Against the scalar definition on random words: bytes drawn mostly from near the hex ranges
     * (and their case-folded and control-character twins, which a careless fold would accept).
     */
    @Test
    void agreesWithTheScalarRulesOnRandomWords() {
        SplittableRandom random = new SplittableRandom(42);
        byte[] tricky =
                "0123456789abcdefABCDEF/:@G`g\u0010\u0011\u0019\u001aPpYy"
                        .getBytes(StandardCharsets.ISO_8859_1);
        byte[] b = new byte[8];
        for (int n = 0; n < 200_000; n++) {
            for (int i = 0; i < 8; i++) {
                b[i] =
                        random.nextInt(4) == 0
                                ? (byte) random.nextInt(256)
                                : tricky[random.nextInt(tricky.length)];
            }
            boolean scalarHex = true;
            long scalar = 0;
            for (int i = 0; i < 8; i++) {
                int d = Character.digit((char) (b[i] & 0xff), 16);
                if (d < 0 || (b[i] & 0xff) > 0x7f) {
                    scalarHex = false;
                    break;
                }
                scalar = (scalar << 4) | d;
            }
            long w = Swar.load(b, 0);
            assertThat(Swar.isHex8(w))
                    .as(new String(b, StandardCharsets.ISO_8859_1))
                    .isEqualTo(scalarHex);
            if (scalarHex) {
                assertThat(Swar.hex8(w)).isEqualTo(scalar);
            }
        }
    }

    @ParameterizedTest
    @CsvSource({
        "'	0000000', 0, 0",
        "'7	......', 1, 7",
        "'42	99999', 2, 42",
        "'1234567	', 7, 1234567",
        "'0099	123', 4, 99",
        "'9999999	', 7, 9999999",
        "12345678, 8, 12345678",
        "'-5	00000', 0, 0",
        "'12-3	000', 2, 12"
    })
    void readsTheLeadingDecimalDigitsOfAWord(String text, int digits, long value) {
        long w = Swar.load(text.getBytes(StandardCharsets.ISO_8859_1), 0);
        assertThat(Swar.decimalDigits(w)).isEqualTo(digits);
        if (digits > 0) {
            assertThat(Swar.decimal(w, digits)).isEqualTo(value);
        }
    }

    /**
     * Against the scalar definition: random words of digits and the bytes around them ('/', ':',
     * '0' and '9' with the high bit set, a tab), every length of leading digits.
     */
    @Test
    void decimalDigitsAgreeWithTheScalarRulesOnRandomWords() {
        SplittableRandom random = new SplittableRandom(43);
        byte[] tricky = "0123456789/:\t\u00b0\u00b9 -+".getBytes(StandardCharsets.ISO_8859_1);
        byte[] b = new byte[8];
        for (int n = 0; n < 200_000; n++) {
            for (int i = 0; i < 8; i++) {
                b[i] =
                        random.nextInt(5) == 0
                                ? (byte) random.nextInt(256)
                                : random.nextInt(3) == 0
                                        ? tricky[random.nextInt(tricky.length)]
                                        : (byte) ('0' + random.nextInt(10));
            }
            int digits = 0;
            long value = 0;
            while (digits < 8 && b[digits] >= '0' && b[digits] <= '9') {
                value = value * 10 + (b[digits] - '0');
                digits++;
            }
            long w = Swar.load(b, 0);
            assertThat(Swar.decimalDigits(w))
                    .as(new String(b, StandardCharsets.ISO_8859_1))
                    .isEqualTo(digits);
            if (digits > 0) {
                assertThat(Swar.decimal(w, digits)).isEqualTo(value);
            }
        }
    }

    /** Against a plain loop: every target byte, every alignment, matches near word boundaries. */
    @Test
    void indexOfAgreesWithAPlainLoop() {
        SplittableRandom random = new SplittableRandom(7);
        for (int n = 0; n < 20_000; n++) {
            byte[] b = new byte[random.nextInt(40)];
            for (int i = 0; i < b.length; i++) {
                b[i] =
                        (byte)
                                (random.nextInt(3) == 0
                                        ? random.nextInt(256)
                                        : "\t\n\r\u0080\u00ff\u000b".charAt(random.nextInt(6)));
            }
            byte target = (byte) "\t\n\u00ff\u0000".charAt(random.nextInt(4));
            int from = b.length == 0 ? 0 : random.nextInt(b.length + 1);
            int to = from + random.nextInt(b.length - from + 1);
            int expected = -1;
            for (int i = from; i < to; i++) {
                if (b[i] == target) {
                    expected = i;
                    break;
                }
            }
            assertThat(Swar.indexOf(b, target, from, to)).isEqualTo(expected);
        }
    }
}
