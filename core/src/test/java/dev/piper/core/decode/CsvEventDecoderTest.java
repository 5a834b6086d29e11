package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.BlockNames;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.Origin;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.input.StringIds;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * CSV lines decode to the rows their values make as Criteo text: a generated log written as CSV
 * (columns in another order, the label under another name, values quoted at random) to the text's
 * rows and dead letters; RFC 4180 quoting, the header line, string ids hashed, and every line that
 * is no CSV of the columns to a dead letter naming the column.
 */
class CsvEventDecoderTest {

    private static final String CHAINS =
            """
            "columns": {
              "label": ["decode", "fill_missing"],
              "I1..I13": ["decode", "fill_missing", "neg2zero", "log"],
              "C1..C26": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 100000}, "vocab"]
            }""";

    private static DecodeOptions options(String spec) throws Exception {
        return SpecCompiler.decodeOptions(
                SpecParser.parse(spec.getBytes(StandardCharsets.UTF_8), "test"), 256);
    }

    private static CriteoDecoder.Decoded decode(DecodeOptions options, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        return BlockDecoder.of(options, false).decode(new RawChunk(0, 0, b, b.length, -1), false);
    }

    /** The 40 Criteo columns in a shuffled order, the label named "clicked". */
    private static List<String> shuffledColumns(Random random) {
        List<String> names = new ArrayList<>(List.of("clicked"));
        for (int i = 1; i <= 13; i++) {
            names.add("I" + i);
        }
        for (int i = 1; i <= 26; i++) {
            names.add("C" + i);
        }
        Collections.shuffle(names, random);
        return names;
    }

    /** A Criteo line as a CSV line of {@code columns}, values quoted at random or when needed. */
    private static String csvLine(String tsv, List<String> columns, Random random) {
        String[] fields = tsv.split("\t", -1);
        if (fields.length != 40) {
            return tsv.replace('\t', ','); // a bad line stays bad: too few or too many fields
        }
        List<String> out = new ArrayList<>();
        for (String column : columns) {
            int i =
                    column.equals("clicked")
                            ? 0
                            : column.startsWith("I")
                                    ? Integer.parseInt(column.substring(1))
                                    : 13 + Integer.parseInt(column.substring(1));
            String v = fields[i];
            boolean quote = v.contains(",") || v.contains("\"") || random.nextInt(5) == 0;
            out.add(quote ? "\"" + v.replace("\"", "\"\"") + "\"" : v);
        }
        return String.join(",", out);
    }

    @Test
    void criteoLinesAsCsvDecodeToTheTextsRows() throws Exception {
        ByteArrayOutputStream tsv = new ByteArrayOutputStream();
        new CriteoGenerator(20261128, 0.001, 0.02).write(tsv, 3000);
        String text = tsv.toString(StandardCharsets.UTF_8);
        Random random = new Random(7);
        List<String> columns = shuffledColumns(random);
        String[] lines = text.split("\n", -1);
        StringBuilder csv = new StringBuilder();
        for (int i = 0; i < lines.length - 1; i++) { // the last is what follows the last break
            csv.append(csvLine(lines[i], columns, random)).append('\n');
        }
        String columnList =
                columns.stream().map(c -> "\"" + c + "\"").collect(Collectors.joining(", "));
        CriteoDecoder.Decoded expected =
                decode(
                        options(
                                "{\"name\": \"t\", \"version\": 1, \"input\": {\"format\":"
                                        + " \"criteo-tsv\"},"
                                        + CHAINS
                                        + "}"),
                        text);
        CriteoDecoder.Decoded actual =
                decode(
                        options(
                                "{\"name\": \"t\", \"version\": 1, \"input\": {\"format\": \"csv\","
                                        + " \"columns\": ["
                                        + columnList
                                        + "], \"fields\": {\"label\": \"clicked\"}},"
                                        + CHAINS
                                        + "}"),
                        csv.toString());
        int rows = expected.dense().rows();
        assertThat(rows).isGreaterThan(2800);
        assertThat(actual.dense().lines()).isEqualTo(expected.dense().lines()).isEqualTo(3000);
        DecodedBlocks.assertSameRows("csv", expected, actual);
        DeadLetter[] ed = expected.dense().deadLetters();
        DeadLetter[] ad = actual.dense().deadLetters();
        assertThat(ad).hasSameSizeAs(ed);
        String[] csvLines = csv.toString().split("\n", -1);
        for (int i = 0; i < ed.length; i++) {
            assertThat(ad[i].lineInBlock()).isEqualTo(ed[i].lineInBlock());
            assertThat(ad[i].reason()).as(ad[i].detail()).isEqualTo(ed[i].reason());
            // the CSV's line, not the text it was decoded as
            String raw = new String(ad[i].raw(), StandardCharsets.UTF_8);
            if (ad[i].rawTruncated()) {
                assertThat(csvLines[ad[i].lineInBlock()]).startsWith(raw);
            } else {
                assertThat(raw).isEqualTo(csvLines[ad[i].lineInBlock()]);
            }
        }
        assertThat(Arrays.stream(ad).map(DeadLetter::detail))
                .anyMatch(d -> d.startsWith("label (clicked): "));
    }

    private static final String SMALL =
            """
            {"name": "clicks", "version": 1,
             "input": {"format": "csv", "dense": 1, "sparse": 3, "list_columns": ["C3"],
                       "header": true, "columns": ["user", "clicked", "price", "item", "recent"],
                       "fields": {"label": "clicked", "I1": "price", "C1": "user", "C2": "item",
                                  "C3": "recent"}},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1": ["decode", {"op": "fill_null", "value": -1}],
               "C1": ["decode", "fill_missing", "hash64", "vocab"],
               "C2": ["decode", "fill_missing", "hex2int", "vocab"],
               "C3": ["decode", "fill_missing", "hash64", "vocab"]
             }}
            """;

    @Test
    void quotedFieldsStringIdsAndTheHeader() throws Exception {
        CriteoDecoder.Decoded d =
                decode(
                        options(SMALL),
                        String.join(
                                "\n",
                                "user,clicked,price,item,recent",
                                "\"u,1\",1,1250,7f,\"i_77,i_12\"",
                                "\"say \"\"hi\"\"\",0,,\"ff\",",
                                "u_2,1,3,\"\",i_3\r",
                                ""));
        assertThat(d.dense().deadLetters()).isEmpty();
        assertThat(d.dense().lines()).isEqualTo(3); // the header is no line of the log
        assertThat(Arrays.copyOf(d.dense().labelDense(), 6)).containsExactly(1, 1250, 0, -1, 1, 3);
        KeyChunk[] k = d.keys();
        assertThat(Arrays.copyOf(k[0].keys(), 3))
                .containsExactly(
                        StringIds.key("u,1"), StringIds.key("say \"hi\""), StringIds.key("u_2"));
        assertThat(Arrays.copyOf(k[1].keys(), 3)).containsExactly(0x7fL, 0xffL, 0L);
        assertThat(Arrays.copyOf(k[2].offsets(), 4)).containsExactly(0, 2, 2, 3);
        assertThat(Arrays.copyOf(k[2].keys(), 3))
                .containsExactly(
                        StringIds.key("i_77"), StringIds.key("i_12"), StringIds.key("i_3"));
    }

    /**
     * The block's names are the strings of its rows: the unquoted text of each hash64 value once,
     * none of a line the text decoder rejects (a bad price after good ids) or that is no CSV.
     */
    @Test
    void theBlockNamesTheStringsOfItsRowsOnly() throws Exception {
        CriteoDecoder.Decoded d =
                decode(
                        options(SMALL),
                        String.join(
                                "\n",
                                "user,clicked,price,item,recent",
                                "\"u,1\",1,1250,7f,\"i_77,i_12\"",
                                "u_bad,1,notanumber,7f,i_bad",
                                "u_no,1,1,\"7f,i_no",
                                "u_2,1,3,\"\",\"i_12,i_3\"",
                                "\"u,1\",0,3,1,",
                                ""));
        assertThat(d.dense().rows()).isEqualTo(3);
        assertThat(d.dense().deadLetters()).hasSize(2);
        BlockNames names = d.dense().names();
        assertThat(names.strings(0)).containsExactly("u,1", "u_2");
        assertThat(names.keys()[0]).containsExactly(StringIds.key("u,1"), StringIds.key("u_2"));
        assertThat(names.has(1)).isFalse(); // hex2int
        assertThat(names.strings(2)).containsExactly("i_77", "i_12", "i_3");
    }

    /** The example of docs/SPECS.md, "CSV", decodes as it says. */
    @Test
    void theSpecsExampleDecodesAsDocumented() throws Exception {
        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("../docs/SPECS.md"));
        int section = doc.indexOf("### CSV");
        int start = doc.indexOf("```json\n", section) + 8;
        String spec = doc.substring(start, doc.indexOf("```", start));
        CriteoDecoder.Decoded d =
                decode(
                        options(spec),
                        "user_id,clicked,price_cents,item,recent_items\n"
                                + "\"u,9f3c\",1,1250,7f,\"i_77,i_12\"\n");
        assertThat(d.dense().deadLetters()).isEmpty();
        assertThat(d.dense().rows()).isEqualTo(1);
        int[] v = d.dense().labelDense();
        assertThat(v[0]).isEqualTo(1);
        assertThat(Float.intBitsToFloat(v[1]))
                .isCloseTo((float) Math.log1p(1250), org.assertj.core.api.Assertions.within(1e-6f));
        assertThat(d.keys()[0].keys()[0]).isEqualTo(StringIds.key("u,9f3c"));
        assertThat(d.keys()[1].keys()[0]).isEqualTo(0x7fL);
        assertThat(Arrays.copyOf(d.keys()[2].keys(), 2))
                .containsExactly(StringIds.key("i_77"), StringIds.key("i_12"));
    }

    @Test
    void theHeaderIsTheFilesFirstLineOnly() throws Exception {
        DecodeOptions options = options(SMALL);
        byte[] b = "u,1,2,3,i\n".getBytes(StandardCharsets.UTF_8);
        // a later chunk of the file, and a chunk of a Kafka partition: no header in either
        assertThat(
                        BlockDecoder.of(options, false)
                                .decode(new RawChunk(1, 100, b, b.length, -1), false)
                                .dense()
                                .rows())
                .isEqualTo(1);
        Origin log = new Origin(new long[] {5}, new int[] {0}, -1, -1);
        assertThat(
                        BlockDecoder.of(options, false)
                                .decode(new RawChunk(3, 5, 0, b, b.length, -1, log), false)
                                .dense()
                                .rows())
                .isEqualTo(1);
    }

    @Test
    void aLineThatIsNoCsvOfTheColumnsIsADeadLetterNamingTheColumn() throws Exception {
        CriteoDecoder.Decoded d =
                decode(
                        options(SMALL),
                        String.join(
                                "\n",
                                "user,clicked,price,item,recent",
                                "u,1,2,3",
                                "u,1,2,3,i,extra",
                                "u\"x,1,2,3,i",
                                "\"u,1,2,3,i",
                                "\"u\"x,1,2,3,i",
                                "u,1,2,zz,i",
                                "u,yes,2,3,i",
                                "u,1,2,3,\"i,,j\"",
                                "",
                                "u,1,2,3,i",
                                ""));
        assertThat(d.dense().rows()).isEqualTo(1);
        assertThat(
                        Arrays.stream(d.dense().deadLetters())
                                .map(l -> l.lineInBlock() + " " + l.reason() + ": " + l.detail()))
                .containsExactly(
                        "0 wrong_field_count: expected 5 fields separated by ',' (input.columns),"
                                + " found 4",
                        "1 wrong_field_count: expected 5 fields separated by ',' (input.columns),"
                                + " found 6",
                        "2 invalid_csv: column 1 (user): a quote inside an unquoted field (RFC"
                                + " 4180 quotes a whole field, and doubles a quote inside it)",
                        "3 invalid_csv: column 1 (user): a quoted field does not end on its line",
                        "4 invalid_csv: column 1 (user): \"x\" after the closing quote, where a"
                                + " delimiter belongs",
                        "5 categorical_not_hex: C2 (item): \"zz\" is not hexadecimal",
                        "6 label_not_int32: label (clicked): \"yes\" is not a 32-bit integer",
                        "7 categorical_not_hex: C3 (recent): id 2 of the list, \"\", is empty",
                        "8 empty_line: the line is empty");
        DeadLetter first = d.dense().deadLetters()[0];
        assertThat(new String(first.raw(), StandardCharsets.UTF_8)).isEqualTo("u,1,2,3");
        assertThat(first.offset()).isEqualTo("user,clicked,price,item,recent\n".length());
    }
}
