package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.piper.core.block.BlockNames;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.generate.CriteoEvents;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.input.StringIds;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * JSON events decode to the rows their values make: a Criteo line written as an event ({@link
 * CriteoEvents}) to the text's row, value for value and dead letter for dead letter; string ids to
 * their XXH64 keys; nested fields, elements and lists by path; and every value a column cannot hold
 * to a dead letter naming the column, its path and the value.
 */
class JsonEventDecoderTest {

    private static DecodeOptions options(String spec) throws Exception {
        PipelineSpec parsed = SpecParser.parse(spec.getBytes(StandardCharsets.UTF_8), "test");
        return SpecCompiler.decodeOptions(parsed, 256);
    }

    private static CriteoDecoder.Decoded decode(DecodeOptions options, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return BlockDecoder.of(options, false).decode(new RawChunk(0, 0, b, b.length, -1), false);
    }

    private static final String CRITEO_CHAINS =
            """
            "columns": {
              "label": ["decode", "fill_missing"],
              "I1..I13": ["decode", "fill_missing", "neg2zero", "log"],
              "C1..C26": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 100000}, "vocab"]
            }""";

    @Test
    void criteoLinesAsEventsDecodeToTheTextsRows() throws Exception {
        ByteArrayOutputStream tsv = new ByteArrayOutputStream();
        new CriteoGenerator(20261128, 0.001, 0.02).write(tsv, 3000);
        String text = tsv.toString(StandardCharsets.UTF_8);
        CriteoEvents events = new CriteoEvents(RowLayout.CRITEO);
        StringBuilder json = new StringBuilder();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length - 1; i++) { // the last is what follows the last break
            json.append(events.toJson(lines[i])).append('\n');
        }
        CriteoDecoder.Decoded expected =
                decode(
                        options(
                                "{\"name\": \"t\", \"version\": 1, \"input\": {\"format\":"
                                        + " \"criteo-tsv\"},"
                                        + CRITEO_CHAINS
                                        + "}"),
                        text);
        CriteoDecoder.Decoded actual =
                decode(
                        options(
                                "{\"name\": \"t\", \"version\": 1, \"input\": {\"format\":"
                                        + " \"json\"},"
                                        + CRITEO_CHAINS
                                        + "}"),
                        json.toString());
        int rows = expected.dense().rows();
        assertThat(rows).isGreaterThan(2800);
        assertThat(actual.dense().lines()).isEqualTo(expected.dense().lines()).isEqualTo(3000);
        DecodedBlocks.assertSameRows("json", expected, actual);
        // the same lines are rejected, those of bad values for the same reasons
        DeadLetter[] ed = expected.dense().deadLetters();
        DeadLetter[] ad = actual.dense().deadLetters();
        assertThat(ad).hasSameSizeAs(ed);
        for (int i = 0; i < ed.length; i++) {
            assertThat(ad[i].lineInBlock()).isEqualTo(ed[i].lineInBlock());
            if (!ed[i].reason().equals("wrong_field_count")
                    && !ed[i].reason().equals("empty_line")) {
                assertThat(ad[i].reason()).as(ad[i].detail()).isEqualTo(ed[i].reason());
            }
        }
    }

    private static final String EVENTS_SPEC =
            """
            {"name": "clicks", "version": 1,
             "input": {"format": "json", "dense": 2, "sparse": 4, "list_columns": ["C4"],
                       "fields": {"label": "clicked", "I1": "price_cents", "I2": "user.age",
                                  "C1": "user.id", "C2": "item_id", "C3": "tags[1]",
                                  "C4": "recent_items"}},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1..I2": ["decode", {"op": "fill_null", "value": -1}],
               "C1": ["decode", "fill_missing", "hash64", "vocab"],
               "C2": ["decode", "fill_missing", "hash64", "vocab"],
               "C3": ["decode", "fill_missing", "hash64", "vocab"],
               "C4": ["decode", "fill_missing", "hash64", "vocab"]
             }}
            """;

    @Test
    void namedNestedAndListFieldsAreReadByPath() throws Exception {
        CriteoDecoder.Decoded d =
                decode(
                        options(EVENTS_SPEC),
                        """
                        {"ts": 1764230400123, "clicked": true, "user": {"id": "u_9f3c", "country": "DE", "age": 31}, "item_id": 88213004417, "price_cents": 1250, "recent_items": ["i_77", "i_12"], "tags": ["x", "y"], "extra": {"deep": [1, {"x": null}]}}
                        {"item_id": -1, "clicked": false, "recent_items": [], "user": null}
                        {"clicked": 1, "price_cents": 5.0, "item_id": "i_1", "user": {"age": "42"}, "recent_items": ["i_3"], "tags": ["z"]}
                        """);
        assertThat(d.dense().deadLetters()).isEmpty();
        assertThat(d.dense().rows()).isEqualTo(3);
        // label, I1, I2 per row; absent and null dense values take fill_null(-1)
        assertThat(Arrays.copyOf(d.dense().labelDense(), 9))
                .containsExactly(1, 1250, 31, 0, -1, -1, 1, 5, 42);
        KeyChunk[] k = d.keys();
        assertThat(k[0].keys()[0]).isEqualTo(StringIds.key("u_9f3c"));
        assertThat(k[0].keys()[1]).isZero(); // missing: fill_missing's id 0
        assertThat(Arrays.copyOf(k[1].keys(), 3))
                .containsExactly(88213004417L, -1L, StringIds.key("i_1"));
        assertThat(Arrays.copyOf(k[2].keys(), 3))
                .containsExactly(StringIds.key("y"), 0L, 0L); // tags[1]: absent in rows 2, 3
        assertThat(Arrays.copyOf(k[3].offsets(), 4)).containsExactly(0, 2, 2, 3);
        assertThat(Arrays.copyOf(k[3].keys(), 3))
                .containsExactly(
                        StringIds.key("i_77"), StringIds.key("i_12"), StringIds.key("i_3"));
    }

    /**
     * The block's names: each string of a hash64 column once, in the order rows first hold it, with
     * the key it ends as after the column's modulus; strings of a line that becomes a dead letter
     * are not among them, nor a string a later field of the line makes it one after (its key may
     * collide with a row's); a field read by two columns names both. The fast path and Jackson give
     * the same names.
     */
    @Test
    void theBlockNamesEachStringOfItsRowsOnce() throws Exception {
        String spec =
                """
                {"name": "clicks", "version": 1,
                 "input": {"format": "json", "dense": 1, "sparse": 3, "list_columns": ["C2", "C3"],
                           "fields": {"label": "clicked", "I1": "n", "C1": "user",
                                      "C2": "recent", "C3": "recent"}},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1": ["decode", "fill_missing"],
                   "C1": ["decode", "fill_missing", "hash64", {"op": "modulus", "m": 3}, "vocab"],
                   "C2": ["decode", "fill_missing", "hash64", "vocab"],
                   "C3": ["decode", "fill_missing", "hash64", {"op": "ngram", "n": 2}, "vocab"]
                 }}
                """;
        String events =
                String.join(
                        "\n",
                        "{\"clicked\": 0, \"n\": 0, \"recent\": []}",
                        "{\"clicked\": 1, \"n\": 1, \"user\": \"ana\", \"recent\": [\"i_1\", \"i_2\", \"i_1\"]}",
                        "{\"clicked\": 0, \"user\": \"zoe\", \"recent\": [\"i_9\"], \"n\": \"x\"}",
                        "{\"clicked\": 1, \"n\": 2, \"user\": \"b\\u00fc\", \"recent\": [\"i_2\"]}",
                        "{\"clicked\": 1, \"n\": 3, \"user\": \"ana\", \"recent\": [\"i_3\"]}",
                        "");
        DecodeOptions options = options(spec);
        for (boolean fast : new boolean[] {true, false}) {
            CriteoDecoder.Decoded d =
                    new JsonEventDecoder(options, false, fast)
                            .decode(
                                    new RawChunk(
                                            0,
                                            0,
                                            events.getBytes(StandardCharsets.UTF_8),
                                            events.getBytes(StandardCharsets.UTF_8).length,
                                            -1),
                                    false);
            assertThat(d.dense().rows()).as("fast " + fast).isEqualTo(4);
            assertThat(d.dense().deadLetters()[0].lineInBlock()).isEqualTo(2); // "n": "x"
            BlockNames names = d.dense().names();
            // the first row has no user: it takes the fill id 0 (mod 3), no string, in its place
            assertThat(names.strings(0)).as("fast " + fast).containsExactly(null, "ana", "bü");
            assertThat(names.keys()[0])
                    .containsExactly(
                            0L,
                            Long.remainderUnsigned(StringIds.key("ana"), 3),
                            Long.remainderUnsigned(StringIds.key("bü"), 3));
            assertThat(names.strings(1)).containsExactly("i_1", "i_2", "i_3"); // not zoe's i_9
            assertThat(names.keys()[1])
                    .containsExactly(
                            StringIds.key("i_1"), StringIds.key("i_2"), StringIds.key("i_3"));
            assertThat(names.has(2)).isFalse(); // an n-gram of two ids has no one string
            assertThat(names.namesOf(1, new long[] {StringIds.key("i_3"), 5}))
                    .containsExactly("i_3", null);
        }
    }

    /** The example of docs/SPECS.md, "Events with named fields (JSON)", decodes as it says. */
    @Test
    void theSpecsExampleDecodesAsDocumented() throws Exception {
        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("../docs/SPECS.md"));
        int section = doc.indexOf("### Events with named fields (JSON)");
        int start = doc.indexOf("```json\n", section) + 8;
        String spec = doc.substring(start, doc.indexOf("```", start));
        CriteoDecoder.Decoded d =
                decode(
                        options(spec),
                        "{\"ts\": 1764230400123, \"clicked\": true, \"user\": {\"id\": \"u_9f3c\","
                                + " \"age\": 31}, \"item_id\": 88213004417, \"category\": \"shoes\","
                                + " \"price_cents\": 1250, \"recent_items\": [\"i_77\", \"i_12\"]}\n");
        assertThat(d.dense().deadLetters()).isEmpty();
        int[] v = d.dense().labelDense();
        assertThat(v[0]).isEqualTo(1);
        assertThat(Float.intBitsToFloat(v[1])).isCloseTo((float) Math.log1p(1250), within(1e-6f));
        assertThat(Float.intBitsToFloat(v[2])).isCloseTo((float) Math.log1p(31), within(1e-6f));
        assertThat(d.keys()[0].keys()[0]).isEqualTo(StringIds.key("u_9f3c"));
        assertThat(d.keys()[1].keys()[0]).isEqualTo(88213004417L);
        assertThat(d.keys()[2].keys()[0]).isEqualTo(StringIds.key("shoes"));
        assertThat(Arrays.copyOf(d.keys()[3].keys(), 2))
                .containsExactly(StringIds.key("i_77"), StringIds.key("i_12"));
    }

    /**
     * The block's lines share a parser while they are rows; a line that is not is read again on its
     * own, so an object split over two lines is two bad lines, and the lines after it decode.
     */
    @Test
    void aLineIsReadAsItselfWhateverTheLinesAroundIt() throws Exception {
        CriteoDecoder.Decoded d =
                decode(
                        options(EVENTS_SPEC),
                        String.join(
                                "\n",
                                "{\"clicked\": 1, \"price_cents\": 1}",
                                "{\"clicked\": 0, \"price_cents\":",
                                "2}",
                                "",
                                "{\"clicked\": 1, \"item_id\": \"unterminated",
                                "{\"clicked\": 1, \"price_cents\": 3}  ",
                                "  {\"clicked\": 0, \"price_cents\": 4}",
                                "{\"clicked\": 1, \"price_cents\": 5}"));
        assertThat(d.dense().rows()).isEqualTo(4);
        int[] v = d.dense().labelDense();
        assertThat(new int[] {v[1], v[4], v[7], v[10]}).containsExactly(1, 3, 4, 5);
        assertThat(
                        Arrays.stream(d.dense().deadLetters())
                                .map(l -> l.lineInBlock() + " " + l.reason()))
                .containsExactly(
                        "1 invalid_json", "2 invalid_json", "3 empty_line", "4 invalid_json");
        // the line's own end, not the next line's "2}"
        assertThat(d.dense().deadLetters()[0].detail())
                .isEqualTo("Unexpected end-of-input within/between Object entries (column 30)");
    }

    /**
     * Seeded mixtures of good and bad lines: a block decodes to what its lines decode to one at a
     * time (each its own block), row for row and dead letter for dead letter.
     */
    @Test
    void aBlockDecodesAsItsLinesOneByOne() throws Exception {
        List<String> pool =
                List.of(
                        "{\"clicked\": 1, \"price_cents\": 7, \"user\": {\"id\": \"u\", \"age\": 3}}",
                        "{\"item_id\": 5, \"recent_items\": [\"a\", \"b\"], \"tags\": [1, \"t\"]}",
                        "{\"clicked\": 0, \"price_cents\":",
                        "2}",
                        "{\"clicked\": \"x",
                        "",
                        "  ",
                        "[1]",
                        "{} {}",
                        "{\"clicked\": true}  ",
                        "{\"user\": {\"id\": true}}",
                        "{\"deep\": {\"a\": [{\"b\": \"}\"}]}, \"clicked\": 1}",
                        "\"just a string\"",
                        "{\"recent_items\": [\"a\",",
                        "\"b\"]}");
        DecodeOptions options = options(EVENTS_SPEC);
        java.util.Random random = new java.util.Random(20261128);
        for (int trial = 0; trial < 200; trial++) {
            List<String> lines = new java.util.ArrayList<>();
            for (int i = 0; i < 1 + random.nextInt(12); i++) {
                lines.add(pool.get(random.nextInt(pool.size())));
            }
            CriteoDecoder.Decoded block = decode(options, String.join("\n", lines) + "\n");
            List<String> expected = new java.util.ArrayList<>();
            for (String line : lines) {
                CriteoDecoder.Decoded one = decode(options, line + "\n");
                expected.add(describe(one, 0));
            }
            List<String> actual = new java.util.ArrayList<>();
            int row = 0;
            int dead = 0;
            for (int i = 0; i < lines.size(); i++) {
                DeadLetter[] letters = block.dense().deadLetters();
                if (dead < letters.length && letters[dead].lineInBlock() == i) {
                    actual.add(letters[dead].reason() + ": " + letters[dead].detail());
                    dead++;
                } else {
                    actual.add(describe(block, row++));
                }
            }
            assertThat(actual).as("lines %s", lines).isEqualTo(expected);
        }
    }

    /** Row {@code row} of a block (its values and keys), or its one dead letter. */
    private static String describe(CriteoDecoder.Decoded d, int row) {
        if (d.dense().rows() == 0) {
            DeadLetter l = d.dense().deadLetters()[0];
            return l.reason() + ": " + l.detail();
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            sb.append(d.dense().labelDense()[row * 3 + i]).append(' ');
        }
        for (KeyChunk k : d.keys()) {
            if (k.offsets() == null) {
                sb.append(k.keys()[row]).append(' ');
            } else {
                sb.append(
                        Arrays.toString(
                                Arrays.copyOfRange(
                                        k.keys(), k.offsets()[row], k.offsets()[row + 1])));
            }
        }
        return sb.toString();
    }

    /** A block that grows past its first arrays keeps the missing values found before. */
    @Test
    void aMissingValueBeforeTheBlockGrowsKeepsItsFill() throws Exception {
        StringBuilder text = new StringBuilder("{\"clicked\": 1}\n");
        for (int i = 1; i < 1000; i++) {
            text.append("{\"clicked\": 0, \"price_cents\": ").append(i).append("}\n");
        }
        CriteoDecoder.Decoded d = decode(options(EVENTS_SPEC), text.toString());
        assertThat(d.dense().rows()).isEqualTo(1000);
        int[] v = d.dense().labelDense();
        assertThat(v[1]).isEqualTo(-1); // row 0's I1: fill_null
        assertThat(v[999 * 3 + 1]).isEqualTo(999);
        assertThat(v[999 * 3 + 2]).isEqualTo(-1); // I2 missing everywhere
    }

    @Test
    void everyBadEventIsADeadLetterNamingColumnPathAndValue() throws Exception {
        String good = "{\"clicked\": 0, \"user\": {\"id\": \"u\"}}";
        List<String> bad =
                List.of(
                        "{\"clicked\": 0, \"user\": {\"id\": true}}",
                        "{\"clicked\": 0, \"user\": \"u_1\"}",
                        "{\"clicked\": 2.5}",
                        "{\"clicked\": 0, \"price_cents\": 3000000000}",
                        "{\"clicked\": 0, \"item_id\": 1.5}",
                        "{\"clicked\": 0, \"item_id\": [\"a\"]}",
                        "{\"clicked\": 0, \"recent_items\": \"i_1\"}",
                        "{\"clicked\": 0, \"recent_items\": [\"i_1\", null]}",
                        "{\"clicked\": 0, \"item_id\": 18446744073709551616}",
                        "{\"clicked\": 0, \"user\": {\"id\": \"u\"}",
                        "[1, 2]",
                        "{\"clicked\": 0} {\"clicked\": 1}",
                        "not json at all",
                        "   ");
        StringBuilder text = new StringBuilder(good).append('\n');
        for (String b : bad) {
            text.append(b).append('\n');
        }
        text.append(good).append('\n');
        CriteoDecoder.Decoded d = decode(options(EVENTS_SPEC), text.toString());
        assertThat(d.dense().rows()).isEqualTo(2);
        assertThat(d.dense().lines()).isEqualTo(bad.size() + 2);
        DeadLetter[] dead = d.dense().deadLetters();
        assertThat(dead).hasSize(bad.size());
        List<String> details =
                Arrays.stream(dead).map(l -> l.reason() + ": " + l.detail()).toList();
        assertThat(details)
                .containsExactly(
                        "wrong_type: C1 (user.id): a boolean true where an integer or a string id"
                                + " belongs",
                        "wrong_type: I2 (user.age): the event's \"user\" is a string, not a record",
                        "label_not_int32: label (clicked): 2.5 is not a 32-bit integer (dense"
                                + " columns decode int32)",
                        "dense_not_int32: I1 (price_cents): 3000000000 is not a 32-bit integer",
                        "wrong_type: C2 (item_id): a number with a fraction 1.5 where an integer or"
                                + " a string id belongs",
                        "wrong_type: C2 (item_id): an array, but the column holds one value, not a"
                                + " list",
                        "wrong_type: C4 (recent_items): a string \"i_1\", but the column is a list",
                        "categorical_not_hex: C4 (recent_items) id 2 of the list is null",
                        "categorical_overflow: C2 (item_id): 18446744073709551616 is beyond 64"
                                + " bits",
                        details.get(9),
                        "invalid_json: the line is an array, not a JSON object",
                        "invalid_json: content after the JSON object, at column 17",
                        details.get(12),
                        "empty_line: the line is empty");
        assertThat(details.get(9))
                .isEqualTo(
                        "invalid_json: Unexpected end-of-input: expected close marker for Object"
                                + " (column 35)");
        assertThat(details.get(12)).startsWith("invalid_json: Unrecognized token 'not'");
        assertThat(dead[0].lineInBlock()).isEqualTo(1);
        assertThat(new String(dead[0].raw(), StandardCharsets.UTF_8)).isEqualTo(bad.get(0));
    }
}
