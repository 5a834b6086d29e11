package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.generate.CriteoEvents;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonFastPath} against Jackson's reading (the reference decoder, which reads every line
 * with Jackson): on seeded events and on every kind of mutation of them (bytes deleted, inserted
 * and swapped, values of other types, escapes, non-ASCII text, numbers in every JSON form, fields
 * twice, deep nesting), both decode each block to the same rows, keys and dead letters, detail for
 * detail. The fast path must also have read most of the plain lines itself.
 */
class JsonFastPathTest {

    private static final String SPEC =
            """
            {"name": "clicks", "version": 1,
             "input": {"format": "json", "dense": 3, "sparse": 5, "list_columns": ["C4"],
                       "generated_from": ["I2"],
                       "fields": {"label": "clicked", "I1": "price_cents", "I2": "user.age",
                                  "I3": "scores[0]", "C1": "user.id", "C2": "item_id",
                                  "C3": "tags[1]", "C4": "recent_items", "C5": "ref"}},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1..I3": ["decode", {"op": "fill_null", "value": -1}],
               "G1": ["decode", "fill_missing", {"op": "bucketize", "borders": [18, 30, 65]}],
               "C1": ["decode", "fill_missing", "hash64", "vocab"],
               "C2": ["decode", "fill_missing", "hash64", "vocab"],
               "C3": ["decode", "fill_missing", "hash64", "vocab"],
               "C4": ["decode", "fill_missing", "hash64", "vocab"],
               "C5": ["decode", "fill_missing", "hex2int", "vocab"]
             }}
            """;

    /** Values of every kind, good and bad for any column. */
    private static final String[] VALUES = {
        "0",
        "-0",
        "7",
        "-12",
        "123456789",
        "1234567890",
        "-2147483648",
        "99999999999999999",
        "123456789012345678901",
        "00",
        "01",
        "-",
        "1.5",
        "2.0",
        "1e3",
        "1E+2",
        "-1.0e-2",
        "1.",
        ".5",
        "true",
        "false",
        "null",
        "nul",
        "tru",
        "\"\"",
        "\"abc\"",
        "\"7f\"",
        "\"DEADbeef\"",
        "\"12\"",
        "\"zz\"",
        "\"a\\\"b\"",
        "\"\\u00e9\"",
        "\"é\"",
        "\"日本\"",
        "\"a\tb\"",
        "\"ffffffffffffffffff\"",
        "[]",
        "[1, 2]",
        "[\"i_1\", \"i_2\"]",
        "[\"\"]",
        "[null]",
        "[1,]",
        "[[1]]",
        "{}",
        "{\"id\": \"u\"}",
        "{\"id\": 5, \"age\": 31}",
        "{\"a\": [1, {}]}",
        "{\"id\": \"u\",}",
        "[\"x\", \"y\", \"z\"]",
        "[3, \"ab\", 4]"
    };

    private static final String[] NAMES = {
        "clicked",
        "price_cents",
        "user",
        "scores",
        "item_id",
        "tags",
        "recent_items",
        "ref",
        "other",
        "nested",
        "clicked"
    };

    @Test
    void fastAndReferenceReadingsAgreeOnSeededAndMutatedEvents() throws Exception {
        DecodeOptions options =
                SpecCompiler.decodeOptions(
                        SpecParser.parse(SPEC.getBytes(StandardCharsets.UTF_8), "test"), 256);
        Random random = new Random(20261128);
        int plain = 0;
        long fastLines = 0;
        for (int block = 0; block < 400; block++) {
            List<String> lines = new ArrayList<>();
            for (int n = 0; n < 50; n++) {
                String line = event(random);
                if (random.nextInt(3) == 0) {
                    line = mutate(line, random);
                } else {
                    plain++;
                }
                lines.add(line);
            }
            String text = String.join("\n", lines) + "\n";
            fastLines += assertSame(options, text, "block " + block).fastLines;
        }
        assertThat(plain).isGreaterThan(10_000);
        assertThat(fastLines).isGreaterThan(plain * 9L / 10);
    }

    @Test
    void criteoEventsAgreeAndTakeTheFastPath() throws Exception {
        ByteArrayOutputStream tsv = new ByteArrayOutputStream();
        new CriteoGenerator(7, 0.001, 0.02).write(tsv, 2000);
        CriteoEvents events = new CriteoEvents(RowLayout.CRITEO);
        StringBuilder json = new StringBuilder();
        int beyondAscii = 0; // lines the fast path leaves to Jackson
        for (String line : tsv.toString(StandardCharsets.UTF_8).split("\n")) {
            String event = events.toJson(line);
            json.append(event).append('\n');
            beyondAscii += event.chars().allMatch(ch -> ch < 0x80) ? 0 : 1;
        }
        for (String chain : List.of("hex2int", "hash64")) {
            DecodeOptions options =
                    SpecCompiler.decodeOptions(
                            SpecParser.parse(
                                    ("{\"name\": \"t\", \"version\": 1, \"input\": {\"format\":"
                                                    + " \"json\"}, \"columns\": {\"label\":"
                                                    + " [\"decode\", \"fill_missing\"], \"I1..I13\":"
                                                    + " [\"decode\", \"fill_missing\", \"neg2zero\"],"
                                                    + " \"C1..C26\": [\"decode\", \"fill_missing\", \""
                                                    + chain
                                                    + "\", \"vocab\"]}}")
                                            .getBytes(StandardCharsets.UTF_8),
                                    "test"),
                            256);
            Outcome fast = assertSame(options, json.toString(), chain);
            int rows = fast.decoded.dense().rows();
            assertThat(rows).as(chain).isGreaterThan(1900);
            assertThat(fast.fastLines).as(chain).isGreaterThanOrEqualTo(rows - beyondAscii);
        }
    }

    /**
     * {@link JsonEventDecoder#rowTime}, the label join's reading of one impression, against a block
     * of that line alone: the row's time where the block holds a row, none where it holds a dead
     * letter, on seeded and mutated events with and without their time; one decoder does both in
     * turn, so neither leaves anything behind for the other.
     */
    @Test
    void oneLinesRowTimeIsThatOfItsBlock() throws Exception {
        String timed =
                SPEC.replace(
                        "\"format\": \"json\",", "\"format\": \"json\", \"timestamp\": \"ts\",");
        DecodeOptions options =
                SpecCompiler.decodeOptions(
                        SpecParser.parse(timed.getBytes(StandardCharsets.UTF_8), "test"), 256);
        JsonEventDecoder decoder = new JsonEventDecoder(options, false, true);
        Random random = new Random(20261207);
        int rows = 0;
        int refused = 0;
        for (int n = 0; n < 20_000; n++) {
            String line = event(random);
            if (random.nextInt(10) > 0) {
                String ts =
                        random.nextInt(20) == 0
                                ? VALUES[random.nextInt(VALUES.length)]
                                : String.valueOf(1_795_737_600_000L + random.nextInt(1 << 30));
                line = line.replaceFirst("\\{", "{\"ts\": " + ts + ", ");
            }
            if (random.nextInt(3) == 0) {
                line = mutate(line, random);
            }
            if (line.indexOf('\n') >= 0) {
                continue; // a record's line breaks are read as spaces before it gets here
            }
            byte[] b = line.getBytes(StandardCharsets.UTF_8);
            byte[] block = Arrays.copyOf(b, b.length + 1);
            block[b.length] = '\n';
            CriteoDecoder.Decoded d =
                    decoder.decode(new RawChunk(0, n, block, block.length, -1), false);
            long expected =
                    d.dense().deadLetters().length > 0 ? Long.MIN_VALUE : d.dense().eventTimes()[0];
            assertThat(decoder.rowTime(b, 0, b.length))
                    .as("line %d: %s", n, line)
                    .isEqualTo(expected);
            if (expected == Long.MIN_VALUE) {
                refused++;
            } else {
                rows++;
            }
        }
        assertThat(rows).isGreaterThan(10_000);
        assertThat(refused).isGreaterThan(2_000);
    }

    /** The fast path's decoding, and how many lines it read itself. */
    private record Outcome(CriteoDecoder.Decoded decoded, long fastLines) {}

    /** Decodes {@code text} both ways, asserts they agree, and returns the fast decoding. */
    private static Outcome assertSame(DecodeOptions options, String text, String what) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        JsonEventDecoder decoder = new JsonEventDecoder(options, false, true);
        CriteoDecoder.Decoded fast = decoder.decode(new RawChunk(0, 0, b, b.length, -1), false);
        CriteoDecoder.Decoded reference =
                new JsonEventDecoder(options, false, false)
                        .decode(new RawChunk(0, 0, b, b.length, -1), false);
        DecodedBlocks.assertSameRows(what, reference, fast);
        assertThat(Arrays.stream(fast.dense().deadLetters()).map(JsonFastPathTest::letter))
                .as(what)
                .containsExactlyElementsOf(
                        Arrays.stream(reference.dense().deadLetters())
                                .map(JsonFastPathTest::letter)
                                .toList());
        // the strings of hash64 columns: the same, in the same order, whoever read them
        assertThat(fast.dense().names())
                .as(what)
                .usingRecursiveComparison()
                .isEqualTo(reference.dense().names());
        return new Outcome(fast, decoder.fastLines);
    }

    private static String letter(DeadLetter l) {
        return l.lineInBlock() + " " + l.reason() + ": " + l.detail();
    }

    /** An event of the spec's fields, mostly good values, in a usual or a shuffled order. */
    private static String event(Random random) {
        List<String> fields = new ArrayList<>();
        fields.add("\"clicked\": " + (random.nextBoolean() ? "1" : random.nextBoolean()));
        fields.add("\"price_cents\": " + random.nextInt(100_000));
        fields.add(
                "\"user\": {\"id\": \"u_"
                        + Integer.toHexString(random.nextInt())
                        + "\", \"age\": "
                        + random.nextInt(90)
                        + (random.nextInt(4) == 0 ? ", \"country\": \"DE\"" : "")
                        + "}");
        fields.add("\"scores\": [" + random.nextInt(50) + ", 2.5e-3, {\"x\": [true, null]}]");
        fields.add(
                "\"item_id\": "
                        + (random.nextBoolean()
                                ? String.valueOf(random.nextLong() >>> 8)
                                : "\"i_" + random.nextInt(1000) + "\""));
        fields.add("\"tags\": [\"a\", \"t" + random.nextInt(9) + "\"]");
        StringBuilder recent = new StringBuilder("\"recent_items\": [");
        for (int k = random.nextInt(4); k > 0; k--) {
            recent.append("\"i_").append(random.nextInt(500)).append('"').append(k > 1 ? ", " : "");
        }
        fields.add(recent.append(']').toString());
        fields.add("\"ref\": \"" + Long.toHexString(random.nextLong() >>> 4) + "\"");
        if (random.nextInt(5) == 0) {
            fields.add("\"extra\": {\"deep\": [1, -2.5E+3, \"s\", null, {\"k\": false}]}");
        }
        if (random.nextInt(4) == 0) {
            java.util.Collections.shuffle(fields, random);
        }
        String sep = random.nextInt(6) == 0 ? " ,\t" : ", ";
        return (random.nextInt(8) == 0 ? "  {" : "{")
                + String.join(sep, fields)
                + (random.nextInt(8) == 0 ? " } " : "}");
    }

    /** Characters a mutation inserts. */
    private static final String INSERTED = "{}[]\",:\\ 0-.eE\t\r\n\u00e9x";

    private static String mutate(String line, Random random) {
        StringBuilder sb = new StringBuilder(line);
        switch (random.nextInt(7)) {
            case 0 -> sb.deleteCharAt(random.nextInt(sb.length()));
            case 1 ->
                    sb.insert(
                            random.nextInt(sb.length() + 1),
                            INSERTED.charAt(random.nextInt(INSERTED.length())));
            case 2 -> {
                int a = random.nextInt(sb.length());
                int b = random.nextInt(sb.length());
                char t = sb.charAt(a);
                sb.setCharAt(a, sb.charAt(b));
                sb.setCharAt(b, t);
            }
            case 3, 4 -> {
                // a field of the spec (or another) with a value of any kind, first or last
                String field =
                        "\""
                                + NAMES[random.nextInt(NAMES.length)]
                                + "\": "
                                + VALUES[random.nextInt(VALUES.length)];
                if (random.nextBoolean()) {
                    sb.insert(1, field + ", ");
                } else {
                    sb.insert(sb.lastIndexOf("}"), ", " + field);
                }
            }
            case 5 -> {
                // a value replaced by one of another kind
                int colon = sb.indexOf(": ", random.nextInt(sb.length()));
                if (colon > 0) {
                    int end = colon + 2;
                    while (end < sb.length() && ",}]".indexOf(sb.charAt(end)) < 0) {
                        end++;
                    }
                    sb.replace(colon + 2, end, VALUES[random.nextInt(VALUES.length)]);
                }
            }
            default -> {
                // deep nesting in a field the spec does not read
                String deep =
                        "[".repeat(20 + random.nextInt(30)) + "]".repeat(20 + random.nextInt(30));
                sb.insert(1, "\"nested\": " + deep + ", ");
            }
        }
        return sb.toString();
    }
}
