package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CriteoDecoderTest {

    private static final DecodeOptions DEFAULTS = DecodeOptions.defaults();

    /** 40 fields: label, I1..I13, C1..C26, with the given overrides by field index. */
    private static String line(String... overrides) {
        String[] f = new String[CriteoLayout.FIELDS];
        f[0] = "1";
        for (int j = 1; j <= CriteoLayout.DENSE; j++) {
            f[j] = Integer.toString(j);
        }
        for (int c = 0; c < CriteoLayout.SPARSE; c++) {
            f[1 + CriteoLayout.DENSE + c] = String.format("%08x", 0x1000 + c);
        }
        for (int i = 0; i + 1 < overrides.length; i += 2) {
            f[Integer.parseInt(overrides[i])] = overrides[i + 1];
        }
        return String.join("\t", f);
    }

    private static RawChunk chunk(byte[] data) {
        return new RawChunk(3, 5000, data, data.length, -1);
    }

    private static CriteoDecoder.Decoded decodeOne(String text, DecodeOptions options) {
        byte[] data = (text + "\n").getBytes(StandardCharsets.UTF_8);
        return new CriteoDecoder(options).decode(chunk(data));
    }

    /**
     * Each field's encoded bytes with its delimiter, summed over the accepted lines only, whichever
     * path decodes them (the fast path, the full rules for a "+5" or a 17-digit id); a rejected
     * line adds nothing. The cost report prices each column's decoding by these bytes.
     */
    @Test
    void countsEachFieldsBytesOfTheAcceptedLines() {
        String fast = line("2", "123", "14", "");
        String slow = line("1", "+5", "15", "00000000000000001"); // 17 digits: the full rules
        String bad = line("16", "xyz");
        String crlf = line("20", "abc", "39", ""); // fast path; its last field ends in CR LF
        byte[] data =
                (fast + "\n" + slow + "\r\n" + bad + "\n" + crlf + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII);
        assertThat(new CriteoDecoder(DEFAULTS).decode(chunk(data)).fieldBytes())
                .as("counted only when asked")
                .isEmpty();
        CriteoDecoder.Decoded d = new CriteoDecoder(DEFAULTS).decode(chunk(data), true);
        assertThat(d.dense().rows()).isEqualTo(3);
        assertThat(d.dense().deadLetters()).hasSize(1);
        int[] expected = new int[CriteoLayout.FIELDS];
        expected[CriteoLayout.FIELDS - 1] = 1; // the CR the fast path consumes with C26
        for (String accepted : new String[] {fast, slow, crlf}) {
            String[] fields = accepted.split("\\t", -1);
            for (int f = 0; f < CriteoLayout.FIELDS; f++) {
                expected[f] += fields[f].length() + 1; // its tab or the line break
            }
        }
        // the full rules count a line break as one byte: the CR of the second line is not counted
        assertThat(d.fieldBytes()).containsExactly(expected);
        long total = 0;
        for (int b : d.fieldBytes()) {
            total += b;
        }
        assertThat(total).isEqualTo(fast.length() + 1 + slow.length() + 1 + crlf.length() + 2);
        // the full rules' line: its CR is counted in the accepted bytes, not in a field
        assertThat(d.acceptedBytes()).isEqualTo(total + 1);
        assertThat(d.passNanos()).isZero();
    }

    @Test
    void decodesAValidLine() {
        CriteoDecoder.Decoded d =
                decodeOne(
                        line(
                                "0",
                                "0",
                                "2",
                                "-5",
                                "13",
                                "",
                                "14",
                                "0000000000000000ff",
                                "39",
                                "FFFFFFFFFFFFFFFF"),
                        DEFAULTS);
        assertThat(d.dense().rows()).isEqualTo(1);
        assertThat(d.dense().deadLetters()).isEmpty();
        int[] expected = {0, 1, 0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
        expected[2] = 0; // I2 = -5: neg2zero
        expected[13] = 0; // I13 empty: missing
        assertThat(Arrays.copyOf(d.dense().labelDense(), 14)).containsExactly(expected);
        assertThat(d.keys()[0].keys()[0]).isEqualTo(0xff); // 18 digits, 2 significant
        assertThat(d.keys()[25].keys()[0]).isEqualTo(-1L); // 2^64-1, unsigned
        assertThat(d.keys()[1].keys()[0]).isEqualTo(0x1001);
        assertThat(d.keys()[0].seq()).isEqualTo(3);
        assertThat(d.keys()[7].column()).isEqualTo(7);
    }

    @Test
    void appliesTheModulusToTheUnsignedId() {
        CriteoDecoder.Decoded d =
                decodeOne(line("14", "ffffffffffffffff", "15", ""), DEFAULTS.withMaxIndRange(5000));
        assertThat(d.keys()[0].keys()[0]).isEqualTo(Long.remainderUnsigned(-1L, 5000));
        assertThat(d.keys()[0].keys()[0]).isEqualTo(1615);
        assertThat(d.keys()[1].keys()[0]).isZero(); // missing -> 0, then 0 mod M
    }

    @Test
    void missingCategoricalIsKeyZeroLikeAllZeros() {
        CriteoDecoder.Decoded d = decodeOne(line("14", "", "15", "00000000"), DEFAULTS);
        assertThat(d.keys()[0].keys()[0]).isZero();
        assertThat(d.keys()[1].keys()[0]).isZero();
    }

    @Test
    void labelIsKeptAsWritten() {
        CriteoDecoder.Decoded d = decodeOne(line("0", "-7"), DEFAULTS);
        assertThat(d.dense().labelDense()[0]).isEqualTo(-7);
    }

    @Test
    void int32Bounds() {
        assertThat(CriteoDecoder.parseInt32(bytes("2147483647"), 0, 10))
                .isEqualTo(Integer.MAX_VALUE);
        assertThat(CriteoDecoder.parseInt32(bytes("-2147483648"), 0, 11))
                .isEqualTo(Integer.MIN_VALUE);
        assertThat(CriteoDecoder.parseInt32(bytes("+0012"), 0, 5)).isEqualTo(12);
        assertThat(CriteoDecoder.parseInt32(bytes("-0"), 0, 2)).isZero();
        assertThat(CriteoDecoder.parseInt32(bytes("2147483648"), 0, 10)).isEqualTo(Long.MIN_VALUE);
        assertThat(CriteoDecoder.parseInt32(bytes("-2147483649"), 0, 11)).isEqualTo(Long.MIN_VALUE);
        assertThat(CriteoDecoder.parseInt32(bytes("99999999999999999999"), 0, 20))
                .isEqualTo(Long.MIN_VALUE);
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("", Reason.EMPTY_LINE, "the line is empty"),
                Arguments.of("\r", Reason.EMPTY_LINE, "the line is empty"),
                Arguments.of(line() + "\textra", Reason.WRONG_FIELD_COUNT, "found 41"),
                Arguments.of(
                        line().substring(0, line().lastIndexOf('\t')),
                        Reason.WRONG_FIELD_COUNT,
                        "expected 40 tab-separated fields, found 39"),
                Arguments.of(
                        line("0", "x"),
                        Reason.LABEL_NOT_INT32,
                        "label: \"x\" is not a 32-bit integer"),
                Arguments.of(line("0", "2147483648"), Reason.LABEL_NOT_INT32, "label:"),
                Arguments.of(line("5", "1.5"), Reason.DENSE_NOT_INT32, "I5: \"1.5\""),
                Arguments.of(line("13", "-"), Reason.DENSE_NOT_INT32, "I13:"),
                Arguments.of(line("3", " 3"), Reason.DENSE_NOT_INT32, "I3:"),
                Arguments.of(
                        line("14", "0x12"),
                        Reason.CATEGORICAL_NOT_HEX,
                        "C1: \"0x12\" is not hexadecimal"),
                Arguments.of(line("39", "abc-"), Reason.CATEGORICAL_NOT_HEX, "C26:"),
                Arguments.of(
                        line("20", "10000000000000000"),
                        Reason.CATEGORICAL_OVERFLOW,
                        "C7: \"10000000000000000\" does not fit in 64 bits"),
                Arguments.of(
                        line("14", "caf\u00e9"), Reason.CATEGORICAL_NOT_HEX, "C1: \"caf\u00e9\""));
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void rejectsWithAStableReason(String text, Reason reason, String detail) {
        CriteoDecoder.Decoded d = decodeOne(text, DEFAULTS);
        assertThat(d.dense().rows()).isZero();
        assertThat(d.dense().lines()).isEqualTo(1);
        DeadLetter letter = d.dense().deadLetters()[0];
        assertThat(letter.reason()).isEqualTo(reason.code());
        assertThat(letter.detail()).contains(detail);
        assertThat(letter.lineInBlock()).isZero();
        assertThat(letter.offset()).isEqualTo(5000);
        for (var keys : d.keys()) {
            assertThat(keys.size()).isZero();
        }
    }

    @Test
    void rejectsInvalidUtf8BeforeLookingAtFields() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(bytes("1\t2\t"));
        b.write(0xc3); // a lead byte with no continuation
        b.writeBytes(bytes("\t3\n"));
        DeadLetter letter =
                new CriteoDecoder(DEFAULTS).decode(chunk(b.toByteArray())).dense().deadLetters()[0];
        assertThat(letter.reason()).isEqualTo(Reason.INVALID_UTF8.code());
        assertThat(letter.raw()).hasSize(7);
    }

    @Test
    void rejectsALineOverTheLimitAndBoundsRaw() {
        DecodeOptions options = new DecodeOptions(-1, false, 100, 16);
        DeadLetter letter = decodeOne(line(), options).dense().deadLetters()[0];
        assertThat(letter.reason()).isEqualTo(Reason.LINE_TOO_LONG.code());
        assertThat(letter.raw()).hasSize(16);
        assertThat(letter.rawTruncated()).isTrue();
    }

    @Test
    void cutShortLineAloneBecomesOneDeadLetter() {
        byte[] head = bytes("1\t2\t3");
        RawChunk oversize = new RawChunk(9, 123456, head, head.length, 70000);
        CriteoDecoder.Decoded d = new CriteoDecoder(DEFAULTS).decode(oversize);
        DeadLetter letter = d.dense().deadLetters()[0];
        assertThat(letter.reason()).isEqualTo("line_too_long");
        assertThat(letter.detail()).isEqualTo("line has 70000 bytes; the limit is 65536");
        assertThat(letter.lineInBlock()).isZero();
        assertThat(letter.offset()).isEqualTo(123456);
        assertThat(letter.raw()).containsExactly(head);
        assertThat(d.dense().lines()).isEqualTo(1);
    }

    @Test
    void cutShortLastLineFollowsTheChunksOtherLines() {
        String text = line() + "\n" + line("0", "x") + "\n" + "1\t2\t3";
        byte[] data = bytes(text);
        RawChunk chunk = new RawChunk(9, 1000, data, data.length, 70000);
        CriteoDecoder.Decoded d = new CriteoDecoder(DEFAULTS).decode(chunk);
        assertThat(d.dense().lines()).isEqualTo(3);
        assertThat(d.dense().rows()).isEqualTo(1);
        assertThat(d.dense().deadLetters())
                .extracting(DeadLetter::reason)
                .containsExactly("label_not_int32", "line_too_long");
        DeadLetter cut = d.dense().deadLetters()[1];
        assertThat(cut.lineInBlock()).isEqualTo(2);
        assertThat(cut.offset()).isEqualTo(1000 + text.lastIndexOf('\n') + 1);
        assertThat(cut.raw()).containsExactly(bytes("1\t2\t3"));
    }

    @Test
    void emptyChunkHasNoLines() {
        CriteoDecoder.Decoded d = new CriteoDecoder(DEFAULTS).decode(chunk(new byte[0]));
        assertThat(d.dense().lines()).isZero();
        assertThat(d.keys()).hasSize(26).allSatisfy(k -> assertThat(k.size()).isZero());
    }

    @Test
    void growsItsArraysForABlockOfShortLines() {
        StringBuilder text = new StringBuilder();
        int n = 5000; // padded lines of 2 bytes: far more rows than the byte-based estimate
        for (int i = 0; i < n; i++) {
            text.append(i % 2).append('\n');
        }
        CriteoDecoder.Decoded d =
                new CriteoDecoder(DEFAULTS.withPadMissingFields(true))
                        .decode(chunk(bytes(text.toString())));
        assertThat(d.dense().rows()).isEqualTo(n);
        assertThat(d.dense().labelDense()[14 * (n - 1)]).isEqualTo(1);
        assertThat(d.keys()[25].size()).isEqualTo(n);
    }

    @Test
    void padsAbsentTrailingFieldsWhenAsked() {
        String shortLine =
                line().substring(0, line().indexOf("\t" + String.format("%08x", 0x1000 + 24)));
        CriteoDecoder.Decoded d = decodeOne(shortLine, DEFAULTS.withPadMissingFields(true));
        assertThat(d.dense().rows()).isEqualTo(1);
        assertThat(d.keys()[23].keys()[0]).isEqualTo(0x1000 + 23);
        assertThat(d.keys()[24].keys()[0]).isZero();
        assertThat(d.keys()[25].keys()[0]).isZero();
        assertThat(decodeOne(shortLine, DEFAULTS).dense().deadLetters()[0].reason())
                .isEqualTo("wrong_field_count");
    }

    @Test
    void decodesAMixedChunkWithCrlfAndNoFinalNewline() {
        String text =
                line("0", "0")
                        + "\r\n"
                        + "\n"
                        + line("0", "1", "14", "ab")
                        + "\r\n"
                        + line("0", "bad")
                        + "\n"
                        + line("14", "ab");
        byte[] data = bytes(text);
        CriteoDecoder.Decoded d = new CriteoDecoder(DEFAULTS).decode(chunk(data));
        assertThat(d.dense().rows()).isEqualTo(3);
        assertThat(d.dense().deadLetters())
                .extracting(DeadLetter::lineInBlock)
                .containsExactly(1, 3);
        assertThat(d.dense().deadLetters())
                .extracting(DeadLetter::reason)
                .containsExactly("empty_line", "label_not_int32");
        assertThat(d.keys()[0].keys()).startsWith(0x1000L, 0xabL, 0xabL);
        assertThat(d.dense().labelDense()[0]).isZero();
        assertThat(d.dense().labelDense()[14]).isEqualTo(1);
        int secondLineOffset = text.indexOf('\n') + 1;
        assertThat(d.dense().deadLetters()[0].offset()).isEqualTo(5000 + secondLineOffset);
    }

    /**
     * Values at the edges of the single-pass fast path, which must hand these to the full rules and
     * still accept them: a plus sign, leading zeros beyond 10 decimal or 16 hex digits, a lone
     * carriage return at the end of the chunk.
     */
    @Test
    void edgeValuesTakeTheFullPathAndAreStillAccepted() {
        String text =
                line("0", "+1", "1", "00000000012", "14", "0000ffffffffffffffff", "39", "ABCDEF")
                        + "\r";
        CriteoDecoder.Decoded d = new CriteoDecoder(DEFAULTS).decode(chunk(bytes(text)));
        assertThat(d.dense().deadLetters()).isEmpty();
        assertThat(d.dense().labelDense()[0]).isEqualTo(1);
        assertThat(d.dense().labelDense()[1]).isEqualTo(12);
        assertThat(d.keys()[0].keys()[0]).isEqualTo(-1L);
        assertThat(d.keys()[25].keys()[0]).isEqualTo(0xabcdefL);
    }

    @Test
    void fastAndFullPathsAgreeOnAMixOfLines() {
        String[] lines = {
            line(),
            line("1", "-0", "2", "2147483647", "3", "-2147483648"),
            line("0", "+7"),
            line("14", "0000000000000000000001"),
            line("2", "-"),
            line("39", "fffffffffffffffff"),
            line("13", "1e3"),
            line()
        };
        StringBuilder all = new StringBuilder();
        for (String l : lines) {
            all.append(l).append('\n');
        }
        CriteoDecoder.Decoded together =
                new CriteoDecoder(DEFAULTS).decode(chunk(bytes(all.toString())));
        int row = 0;
        int dead = 0;
        for (String l : lines) {
            CriteoDecoder.Decoded alone = decodeOne(l, DEFAULTS);
            if (alone.dense().rows() == 1) {
                assertThat(
                                Arrays.copyOfRange(
                                        together.dense().labelDense(), row * 14, row * 14 + 14))
                        .containsExactly(Arrays.copyOf(alone.dense().labelDense(), 14));
                for (int c = 0; c < CriteoLayout.SPARSE; c++) {
                    assertThat(together.keys()[c].keys()[row]).isEqualTo(alone.keys()[c].keys()[0]);
                }
                row++;
            } else {
                assertThat(together.dense().deadLetters()[dead].reason())
                        .isEqualTo(alone.dense().deadLetters()[0].reason());
                dead++;
            }
        }
        assertThat(row).isEqualTo(5);
        assertThat(dead).isEqualTo(3);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * {@link CriteoDecoder#measureKinds}: the fast path's time over a block's label and dense
     * fields and over its categorical fields, each part apart, on the lines the fast path takes;
     * the blocks decoded after it come out as they would without it.
     */
    @Test
    void measuresEachKindOfFieldAndLeavesTheNextBlocksAsTheyWere() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            text.append(line("1", Integer.toString(i), "20", String.format("%08x", i * 7919)))
                    .append(i % 100 == 7 ? "\n" + line("5", "x") + "\n" : "\n");
        }
        byte[] data = text.toString().getBytes(StandardCharsets.US_ASCII);
        CriteoDecoder measured = new CriteoDecoder(DEFAULTS);
        CriteoDecoder plain = new CriteoDecoder(DEFAULTS);
        CriteoDecoder.Decoded first = measured.decode(chunk(data), true);
        long[] kinds = measured.measureKinds(chunk(data));
        assertThat(kinds).hasSize(2);
        assertThat(kinds[0]).as("label and dense fields").isPositive();
        assertThat(kinds[1]).as("categorical fields").isPositive();
        assertThat(first.dense().deadLetters()).hasSize(30);
        plain.decode(chunk(data), true);
        CriteoDecoder.Decoded after = measured.decode(chunk(data), true);
        CriteoDecoder.Decoded expected = plain.decode(chunk(data), true);
        assertThat(after.fieldBytes()).containsExactly(expected.fieldBytes());
        assertThat(after.dense().labelDense()).containsExactly(expected.dense().labelDense());
        for (int c = 0; c < CriteoLayout.SPARSE; c++) {
            assertThat(after.keys()[c].keys()).containsExactly(expected.keys()[c].keys());
        }
        // a block without a line the fast path takes measures nothing
        byte[] bad = (line("5", "x") + "\n").getBytes(StandardCharsets.US_ASCII);
        assertThat(new CriteoDecoder(DEFAULTS).measureKinds(chunk(bad))).containsExactly(0, 0);
    }
}
