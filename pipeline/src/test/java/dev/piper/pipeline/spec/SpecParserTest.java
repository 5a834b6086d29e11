package dev.piper.pipeline.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.input.AvroOptions;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.Chains.Kind;
import dev.piper.pipeline.ops.OpDefinition;
import dev.piper.pipeline.ops.VocabularyPolicy;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SpecParserTest {

    /** A valid spec with {@code columns} spliced in. */
    private static String spec(String columns) {
        return """
                {"name": "p", "version": 2, "input": {"format": "criteo-tsv", "topic": "t"},
                 "columns": {%s}}
                """
                .formatted(columns);
    }

    private static final String OK_COLUMNS =
            """
            "label": ["decode", "fill_missing"],
            "I1..I4": ["decode", "fill_missing", "neg2zero"],
            "I5": ["decode", "fill_missing", "neg2zero", "log"],
            "I6..I13": ["decode", "fill_missing"],
            "C1..C2": ["decode", "fill_missing", "hex2int", "vocab"],
            "C3": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 1000}, "vocab"],
            "C4..C26": ["decode", "fill_missing", "hex2int", "vocab"]
            """;

    private static PipelineSpec parse(String text) throws SpecException {
        return SpecParser.parse(text.getBytes(StandardCharsets.UTF_8), "test.json");
    }

    @Test
    void theBuiltinSpecIsDlrmCriteo() {
        PipelineSpec spec = SpecParser.builtin();
        assertThat(spec.name()).isEqualTo("dlrm-criteo");
        assertThat(spec.version()).isEqualTo(1);
        assertThat(spec.columns()).hasSize(40);
        assertThat(spec.column("label").orElseThrow().chain()).isEqualTo("decode fill_missing");
        assertThat(spec.column("I7").orElseThrow().chain())
                .isEqualTo("decode fill_missing neg2zero");
        assertThat(spec.column("C26").orElseThrow().chain())
                .isEqualTo("decode fill_missing hex2int vocab");
        assertThat(spec.output().padMissingFields()).isFalse();
        assertThat(spec.output().maxLineBytes()).isEqualTo(65536);
    }

    @Test
    void rangesAndSingleColumnsExpandToTheLayout() throws Exception {
        PipelineSpec spec = parse(spec(OK_COLUMNS));
        assertThat(spec.columns()).extracting(PipelineSpec.Column::name).startsWith("label", "I1");
        assertThat(spec.columns()).extracting(PipelineSpec.Column::name).endsWith("C25", "C26");
        assertThat(spec.column("I5").orElseThrow().chain())
                .isEqualTo("decode fill_missing neg2zero log");
        assertThat(spec.column("I6").orElseThrow().chain()).isEqualTo("decode fill_missing");
        assertThat(spec.column("C3").orElseThrow().chain())
                .isEqualTo("decode fill_missing hex2int modulus(1000) vocab");
        assertThat(spec.column("C3").orElseThrow().kind()).isEqualTo(Kind.sparse);
        assertThat(spec.input().topic()).contains("t");
    }

    @Test
    void jsonInputNamesTheFieldOfEachColumn() throws Exception {
        PipelineSpec spec =
                parse(
                        spec(OK_COLUMNS.replace(
                                        "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\"",
                                        "\"C1..C2\": [\"decode\", \"fill_missing\", \"hash64\""))
                                .replace(
                                        "\"criteo-tsv\", \"topic\": \"t\"",
                                        "\"json\", \"fields\": {\"label\": \"clicked\","
                                                + " \"C1\": \"user.id\", \"C2\": \"items[0]\"}"));
        assertThat(spec.input().format()).isEqualTo("json");
        assertThat(spec.input().fields())
                .containsExactly(
                        Map.entry("label", "clicked"),
                        Map.entry("C1", "user.id"),
                        Map.entry("C2", "items[0]"));
        assertThat(spec.column("C1").orElseThrow().chain())
                .isEqualTo("decode fill_missing hash64 vocab");
        var events = SpecCompiler.events(spec);
        assertThat(events.path(0).text()).isEqualTo("clicked");
        assertThat(events.path(5).text()).isEqualTo("I5"); // a column not named: its own name
        assertThat(events.path(14).text()).isEqualTo("user.id");
        assertThat(SpecCompiler.program(spec).hashesIds(0)).isTrue();
        assertThat(SpecCompiler.program(spec).hashesIds(2)).isFalse();
    }

    /** A JSON spec whose input also has {@code extra} (", ..." fields of input). */
    private static String jsonSpec(String extra) {
        return spec(OK_COLUMNS)
                .replace(
                        "\"criteo-tsv\", \"topic\": \"t\"",
                        "\"json\", \"fields\": {\"C1\": \"user.id\"}" + extra);
    }

    @Test
    void anEventTimeNamesItsFieldAndUnit() throws Exception {
        PipelineSpec spec =
                parse(jsonSpec(", \"timestamp\": \"meta.ts\", \"timestamp_unit\": \"s\""));
        assertThat(spec.input().eventTime())
                .isEqualTo(new EventTime("meta.ts", EventTime.Unit.SECONDS));
        assertThat(SpecCompiler.events(spec).timePath().text()).isEqualTo("meta.ts");
        assertThat(parse(jsonSpec(", \"timestamp\": \"ts\"")).input().eventTime().unit())
                .isEqualTo(EventTime.Unit.MILLIS);
        assertThat(parse(jsonSpec("")).input().eventTime()).isNull();
        assertThat(SpecCompiler.events(parse(jsonSpec(""))).timePath()).isNull();
    }

    @ParameterizedTest
    @MethodSource("badEventTimes")
    void aBadEventTimeIsNamed(String spec, String expected) {
        assertThatThrownBy(() -> parse(spec))
                .isInstanceOf(SpecException.class)
                .hasMessageContaining(expected);
    }

    static Stream<Arguments> badEventTimes() {
        return Stream.of(
                Arguments.of(
                        jsonSpec(", \"timestamp\": \"ts\", \"timestamp_unit\": \"min\""),
                        "input.timestamp_unit: unknown unit \"min\" (known: s, ms, us)"),
                Arguments.of(
                        jsonSpec(", \"timestamp_unit\": \"s\""),
                        "input.timestamp_unit: is for input.timestamp, which is missing"),
                Arguments.of(jsonSpec(", \"timestamp\": \"a..b\""), "input.timestamp: "),
                Arguments.of(
                        jsonSpec(", \"timestamp\": \"user\""),
                        "input.timestamp: \"user\" holds \"user.id\", the field of C1"),
                Arguments.of(
                        jsonSpec(", \"timestamp\": \"user.id.t\""),
                        "input.timestamp: \"user.id.t\" lies inside \"user.id\", the field of C1"),
                Arguments.of(
                        spec(OK_COLUMNS).replace("\"topic\": \"t\"", "\"timestamp\": \"ts\""),
                        "input.timestamp: names an event field, but input.format criteo-tsv has"
                                + " positional fields"),
                Arguments.of(
                        csvSpec(
                                "\"format\": \"csv\", "
                                        + CSV_COLUMNS
                                        + ", \"timestamp\": \"when\""),
                        "input.timestamp: \"when\" is not one of input.columns"));
    }

    /** A spec of CSV input with {@code input} (its format, columns, ...) spliced in. */
    private static String csvSpec(String input) {
        return spec(OK_COLUMNS).replace("\"format\": \"criteo-tsv\", \"topic\": \"t\"", input);
    }

    /** Columns named in the order of the CSV: the layout's names, with label as "clicked". */
    private static final String CSV_COLUMNS =
            "\"columns\": [\"clicked\", \"I1\", \"I2\", \"I3\", \"I4\", \"I5\", \"I6\","
                    + " \"I7\", \"I8\", \"I9\", \"I10\", \"I11\", \"I12\", \"I13\","
                    + " \"user.id\", \"C2\", \"C3\", \"C4\", \"C5\", \"C6\", \"C7\", \"C8\","
                    + " \"C9\", \"C10\", \"C11\", \"C12\", \"C13\", \"C14\", \"C15\", \"C16\","
                    + " \"C17\", \"C18\", \"C19\", \"C20\", \"C21\", \"C22\", \"C23\", \"C24\","
                    + " \"C25\", \"C26\", \"unused\"]";

    @Test
    void csvInputNamesItsColumnsAndWhereEachColumnIsRead() throws Exception {
        PipelineSpec spec =
                parse(
                        csvSpec(
                                "\"format\": \"csv\", \"header\": true, \"delimiter\": \";\", "
                                        + CSV_COLUMNS
                                        + ", \"fields\": {\"label\": \"clicked\", \"C1\":"
                                        + " \"user.id\"}"));
        assertThat(spec.input().csv().columns()).hasSize(41).startsWith("clicked", "I1");
        assertThat(spec.input().csv().header()).isTrue();
        assertThat(spec.input().csv().delimiter()).isEqualTo(';');
        var events = SpecCompiler.events(spec);
        assertThat(events.csv()).isEqualTo(spec.input().csv());
        assertThat(events.path(0).text()).isEqualTo("clicked");
        // a CSV column's name is flat: its dot is no path into a record
        assertThat(events.path(14).segments()).hasSize(1);
        assertThat(events.path(14).text()).isEqualTo("user.id");
        assertThat(events.path(15).text()).isEqualTo("C2");
    }

    @Test
    void avroInputReadsItsSchemaFileAndChecksEachColumnsPathAgainstIt(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        StringBuilder fields = new StringBuilder("{\"name\": \"clicked\", \"type\": \"boolean\"}");
        for (int i = 1; i <= 13; i++) {
            fields.append(", {\"name\": \"I").append(i).append("\", \"type\": \"int\"}");
        }
        fields.append(", {\"name\": \"user\", \"type\": {\"type\": \"record\", \"name\": \"U\",")
                .append(" \"fields\": [{\"name\": \"id\", \"type\": \"string\"}]}}");
        for (int i = 2; i <= 26; i++) {
            fields.append(", {\"name\": \"C")
                    .append(i)
                    .append("\", \"type\": [\"null\", \"string\"]}");
        }
        java.nio.file.Path avsc = dir.resolve("click.avsc");
        java.nio.file.Files.writeString(
                avsc, "{\"type\": \"record\", \"name\": \"Click\", \"fields\": [" + fields + "]}");
        String input =
                "\"format\": \"avro\", \"schema\": \""
                        + avsc
                        + "\", \"fields\": {\"label\": \"clicked\", \"C1\": \"%s\"}";
        PipelineSpec spec =
                parse(
                        spec(OK_COLUMNS)
                                .replace(
                                        "\"format\": \"criteo-tsv\", \"topic\": \"t\"",
                                        input.formatted("user.id")));
        assertThat(spec.input().avro().schemaFile()).isEqualTo(avsc.toString());
        assertThat(spec.input().avro().schema()).contains("\"Click\"");
        assertThat(SpecCompiler.events(spec).avro()).isEqualTo(spec.input().avro());
        // the schema inline: the same, with no file to read
        String inline =
                spec(OK_COLUMNS)
                        .replace(
                                "\"format\": \"criteo-tsv\", \"topic\": \"t\"",
                                "\"format\": \"avro\", \"schema\": "
                                        + java.nio.file.Files.readString(avsc)
                                        + ", \"fields\": {\"label\": \"clicked\", \"C1\": \"user.id\"}");
        PipelineSpec inlined = parse(inline);
        assertThat(inlined.input().avro().schemaFile()).isNull();
        assertThat(AvroOptions.parse(inlined.input().avro().schema()))
                .isEqualTo(AvroOptions.parse(spec.input().avro().schema()));
        assertThatThrownBy(
                        () ->
                                parse(
                                        spec(OK_COLUMNS)
                                                .replace(
                                                        "\"format\": \"criteo-tsv\", \"topic\": \"t\"",
                                                        input.formatted("user.name"))))
                .hasMessageContaining(
                        "input.fields.C1: record U (at \"user\") has no field \"name\" (input.schema)");
        assertThatThrownBy(
                        () ->
                                parse(
                                        spec(OK_COLUMNS)
                                                .replace(
                                                        "\"format\": \"criteo-tsv\", \"topic\": \"t\"",
                                                        input.formatted("I1.x"))))
                .hasMessageContaining("input.fields.C1: \"I1\" is of type int, not a record");
    }

    static Stream<Arguments> badCsvSpecs() {
        return Stream.of(
                Arguments.of(
                        "no columns",
                        csvSpec("\"format\": \"csv\""),
                        "input.columns: missing: a csv input names its columns in order"),
                Arguments.of(
                        "a column named twice",
                        csvSpec("\"format\": \"csv\", \"columns\": [\"a\", \"b\", \"a\"]"),
                        "input.columns[2]: \"a\" is named twice"),
                Arguments.of(
                        "a column the CSV does not have",
                        csvSpec(
                                "\"format\": \"csv\", "
                                        + CSV_COLUMNS
                                        + ", \"fields\": {\"label\": \"y\", \"C1\": \"user.id\"}"),
                        "input.fields.label: \"y\" is not one of input.columns"),
                Arguments.of(
                        "a column read by its own name that the CSV lacks",
                        csvSpec("\"format\": \"csv\", " + CSV_COLUMNS.replace("\"C7\", ", "")),
                        "input.columns: has no column \"C7\", which C7 reads unless input.fields"
                                + " names another"),
                Arguments.of(
                        "a delimiter of two characters",
                        csvSpec("\"format\": \"csv\", \"delimiter\": \";;\", " + CSV_COLUMNS),
                        "input.delimiter: must be one character"),
                Arguments.of(
                        "the quote as delimiter",
                        csvSpec("\"format\": \"csv\", \"delimiter\": \"\\\"\", " + CSV_COLUMNS),
                        "input.delimiter: '\"' (the quote) cannot separate fields"),
                Arguments.of(
                        "a digit as delimiter",
                        csvSpec("\"format\": \"csv\", \"delimiter\": \"1\", " + CSV_COLUMNS),
                        "input.delimiter: '1' (a letter or digit) cannot separate fields"),
                Arguments.of(
                        "a header that is no boolean",
                        csvSpec("\"format\": \"csv\", \"header\": \"yes\", " + CSV_COLUMNS),
                        "input.header: must be true or false, not \"yes\""),
                Arguments.of(
                        "CSV settings for another format",
                        spec(OK_COLUMNS)
                                .replace(
                                        "\"topic\": \"t\"",
                                        "\"topic\": \"t\", \"columns\": [\"a\"]"),
                        "input.columns: is for csv input; input.format is criteo-tsv"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCsvSpecs")
    void aBadCsvSpecIsRejectedNamingTheField(String what, String text, String expected) {
        assertThatThrownBy(() -> parse(text))
                .isInstanceOf(SpecException.class)
                .hasMessageContaining(expected);
    }

    /** Every operator of RAP's set the spec language has, with its parameters. */
    @Test
    void everyOperatorParsesWithItsParameters() throws Exception {
        PipelineSpec spec =
                parse(
                        spec(
                                OK_COLUMNS
                                        .replace(
                                                "\"I1..I4\": [\"decode\", \"fill_missing\", \"neg2zero\"]",
                                                """
                                                "I1": ["decode", {"op": "fill_null", "value": -3},
                                                       {"op": "clamp", "lo": 0, "hi": 100}, "log"],
                                                "I2": ["decode", "fill_missing",
                                                       {"op": "bucketize", "borders": [0, 2.5, 10]}],
                                                "I3": ["decode", "fill_missing",
                                                       {"op": "bucketize", "borders": [1], "right": false},
                                                       {"op": "cast", "to": "float32"},
                                                       {"op": "boxcox", "lambda": 0.5}],
                                                "I4": ["decode", "fill_missing", {"op": "cast", "to": "float32"},
                                                       {"op": "logit", "eps": 1e-6}, "logit",
                                                       {"op": "cast", "to": "int32"}]
                                                """)
                                        .replace(
                                                "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]",
                                                """
                                                "C1..C2": ["decode", {"op": "fill_null", "value": 255}, "hex2int",
                                                           {"op": "sigrid_hash", "salt": -7, "max": 1000000},
                                                           {"op": "modulus", "m": 1000}, "vocab"]
                                                """)));
        assertThat(spec.column("I1").orElseThrow().chain())
                .isEqualTo("decode fill_null(-3) clamp(0,100) log");
        assertThat(spec.column("I2").orElseThrow().chain())
                .isEqualTo("decode fill_missing bucketize(0,2.5,10)");
        assertThat(spec.column("I3").orElseThrow().chain())
                .isEqualTo(
                        "decode fill_missing bucketize(1;right=false) cast(float32) boxcox(0.5)");
        assertThat(spec.column("I4").orElseThrow().chain())
                .isEqualTo("decode fill_missing cast(float32) logit(1.0E-6) logit cast(int32)");
        assertThat(spec.column("C2").orElseThrow().chain())
                .isEqualTo(
                        "decode fill_null(255) hex2int sigrid_hash(-7,1000000) modulus(1000) vocab");
        // and the program the decoder runs agrees
        var program = SpecCompiler.program(spec);
        assertThat(program.type(1)).isEqualTo(dev.piper.pipeline.ops.Op.ValueType.float32);
        assertThat(program.type(2)).isEqualTo(dev.piper.pipeline.ops.Op.ValueType.int32);
        assertThat(program.type(4)).isEqualTo(dev.piper.pipeline.ops.Op.ValueType.int32);
        assertThat(program.fill(1)).isEqualTo(-3);
        assertThat(program.fill(15)).isEqualTo(255);
        assertThat(program.keyBound(1)).isEqualTo(1000);
    }

    /** The vocabulary policy's parameters; the default prints as plain vocab. */
    @Test
    void vocabTakesItsPolicy() throws Exception {
        PipelineSpec spec =
                parse(
                        spec(
                                OK_COLUMNS.replace(
                                        "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]",
                                        """
                                        "C1": ["decode", "fill_missing", "hex2int",
                                               {"op": "vocab", "min_count": 3, "oov_buckets": 16}],
                                        "C2": ["decode", "fill_missing", "hex2int",
                                               {"op": "vocab", "oov_buckets": 1, "max_size": 1000,
                                                "import": "/data/vocab/C2.tsv"}]
                                        """)));
        assertThat(spec.column("C1").orElseThrow().chain())
                .isEqualTo("decode fill_missing hex2int vocab(min_count=3,oov_buckets=16)");
        assertThat(spec.column("C2").orElseThrow().chain())
                .isEqualTo(
                        "decode fill_missing hex2int"
                                + " vocab(oov_buckets=1,max_size=1000,import=/data/vocab/C2.tsv)");
        var program = SpecCompiler.program(spec);
        assertThat(program.vocabPolicy(0))
                .isEqualTo(new VocabularyPolicy(3, 16, VocabularyPolicy.MAX_SIZE, null));
        assertThat(program.vocabPolicy(1))
                .isEqualTo(new VocabularyPolicy(1, 1, 1000, "/data/vocab/C2.tsv"));
        assertThat(program.vocabPolicy(2)).isEqualTo(VocabularyPolicy.FIRST_APPEARANCE);
        assertThat(program.dlrmMaxIndRange()).isEmpty();
    }

    /** Eviction: capacity, evict and ttl (rows, with k/M/G), printed back in the chain. */
    @Test
    void vocabTakesAnEvictionPolicy() throws Exception {
        PipelineSpec spec =
                parse(
                        spec(
                                OK_COLUMNS.replace(
                                        "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]",
                                        """
                                        "C1": ["decode", "fill_missing", "hex2int",
                                               {"op": "vocab", "capacity": 1000, "evict": "lfu",
                                                "oov_buckets": 8, "min_count": 2}],
                                        "C2": ["decode", "fill_missing", "hex2int",
                                               {"op": "vocab", "capacity": 10, "evict": "ttl",
                                                "ttl": "5M rows", "oov_buckets": 1}]
                                        """)));
        assertThat(spec.column("C1").orElseThrow().chain())
                .isEqualTo(
                        "decode fill_missing hex2int"
                                + " vocab(min_count=2,oov_buckets=8,capacity=1000,evict=lfu)");
        assertThat(spec.column("C2").orElseThrow().chain())
                .isEqualTo(
                        "decode fill_missing hex2int"
                                + " vocab(oov_buckets=1,capacity=10,evict=ttl,ttl=5000000rows)");
        var program = SpecCompiler.program(spec);
        assertThat(program.vocabPolicy(0))
                .isEqualTo(
                        new VocabularyPolicy(
                                2,
                                8,
                                VocabularyPolicy.MAX_SIZE,
                                null,
                                1000,
                                VocabularyPolicy.Eviction.LFU,
                                0));
        assertThat(program.vocabPolicy(1).ttlRows()).isEqualTo(5_000_000L);
        assertThat(program.vocabPolicy(1).entryBound()).isEqualTo(10);
    }

    @Test
    void parquetColumnsNameTheColumnsOfSomeFields() throws Exception {
        PipelineSpec spec =
                parse(
                        spec(OK_COLUMNS)
                                .replace(
                                        "\"topic\": \"t\"",
                                        "\"parquet_columns\": {\"label\": \"click\", \"C3\": \"site\"}"));
        assertThat(spec.input().parquetColumns())
                .containsExactly(Map.entry("label", "click"), Map.entry("C3", "site"));
        assertThat(parse(spec(OK_COLUMNS)).input().parquetColumns()).isEmpty();
    }

    @Test
    void mapidTakesItsTableAndAnOptionalDefault() throws Exception {
        PipelineSpec spec =
                parse(
                        spec(
                                OK_COLUMNS.replace(
                                        "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]",
                                        """
                                        "C1": ["decode", "fill_missing", "hex2int",
                                               {"op": "mapid", "file": "/t/ids.tsv"}, "vocab"],
                                        "C2": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 10},
                                               {"op": "mapid", "file": "/t/ids.tsv", "default": 0},
                                               {"op": "sigrid_hash", "max": 5}, "vocab"]
                                        """)));
        assertThat(spec.column("C1").orElseThrow().chain())
                .isEqualTo("decode fill_missing hex2int mapid(/t/ids.tsv) vocab");
        assertThat(spec.column("C2").orElseThrow().chain())
                .isEqualTo(
                        "decode fill_missing hex2int modulus(10) mapid(/t/ids.tsv;default=0)"
                                + " sigrid_hash(0,5) vocab");
        var program = SpecCompiler.program(spec);
        assertThat(program.keyBound(0)).isZero();
        assertThat(program.keyBound(1)).isEqualTo(5);
    }

    /** {@code input.dense} and {@code input.sparse} declare another layout; ranges follow it. */
    @Test
    void aSpecDeclaresItsLayout() throws Exception {
        PipelineSpec spec =
                parse(
                        """
                        {"name": "rm2", "version": 1,
                         "input": {"format": "criteo-tsv", "dense": 504, "sparse": 42,
                                   "route": {"field": "C42", "value": "ab"},
                                   "parquet_columns": {"I504": "f504"}},
                         "columns": {
                           "label": ["decode", "fill_missing"],
                           "I1..I503": ["decode", "fill_missing", "neg2zero", "log"],
                           "I504": ["decode", "fill_missing"],
                           "C1..C42": ["decode", "fill_missing", "hex2int",
                                       {"op": "sigrid_hash", "max": 4096}, "vocab"]
                         }}
                        """);
        assertThat(spec.layout()).isEqualTo(new RowLayout(504, 42));
        assertThat(spec.columns()).hasSize(547);
        assertThat(spec.columns().get(546).name()).isEqualTo("C42");
        assertThat(spec.column("I504").orElseThrow().kind()).isEqualTo(Kind.dense);
        assertThat(spec.input().parquetColumns()).containsEntry("I504", "f504");
        var program = SpecCompiler.program(spec);
        assertThat(program.layout()).isEqualTo(spec.layout());
        assertThat(program.keyBound(41)).isEqualTo(4096);
        assertThat(SpecParser.builtin().layout()).isEqualTo(RowLayout.CRITEO);
    }

    /** {@code input.list_columns} makes sparse columns lists; firstx and ngram apply to them. */
    @Test
    void listColumnsAreDeclaredWithTheirSeparator() throws Exception {
        PipelineSpec spec =
                parse(
                        """
                        {"name": "rm2", "version": 1,
                         "input": {"format": "criteo-tsv", "dense": 4, "sparse": 5,
                                   "list_columns": ["C2..C3", "C5"], "list_separator": ";"},
                         "columns": {
                           "label": ["decode", "fill_missing"],
                           "I1..I4": ["decode", "fill_missing", "neg2zero", "log"],
                           "C1": ["decode", "fill_missing", "hex2int", "vocab"],
                           "C2..C3": ["decode", "fill_missing", "hex2int",
                                      {"op": "sigrid_hash", "max": 1000}, {"op": "firstx", "x": 20},
                                      "vocab"],
                           "C4": ["decode", "fill_missing", "hex2int", "vocab"],
                           "C5": ["decode", {"op": "fill_null", "value": 0}, "hex2int",
                                  {"op": "ngram", "n": 2}, {"op": "modulus", "m": 4096}, "vocab"]
                         }}
                        """);
        assertThat(spec.layout().listColumns()).containsExactly(1, 2, 4);
        assertThat(spec.layout().listSeparator()).isEqualTo(';');
        assertThat(spec.column("C2").orElseThrow().kind()).isEqualTo(Kind.list);
        assertThat(spec.column("C4").orElseThrow().kind()).isEqualTo(Kind.sparse);
        assertThat(spec.column("C5").orElseThrow().chain())
                .isEqualTo("decode fill_null(0) hex2int ngram(2) modulus(4096) vocab");
        var program = SpecCompiler.program(spec);
        assertThat(program.keyBound(4)).isEqualTo(4096);
        assertThat(program.keyBound(1)).isEqualTo(1000);
    }

    static Stream<Arguments> badSpecs() {
        String c = OK_COLUMNS;
        String vocab = "\"C4..C26\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]";
        return Stream.of(
                Arguments.of(
                        "mapid without a file",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace("\"hex2int\",", "\"hex2int\", \"mapid\","))),
                        "columns.C4..C26[3]: mapid needs its parameter \"file\""),
                Arguments.of(
                        "mapid with a negative default",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"hex2int\",",
                                                "\"hex2int\", {\"op\": \"mapid\", \"file\": \"f\", \"default\": -1},"))),
                        "columns.C4..C26[3]: mapid \"default\" must be an integer of at least 0, not -1"),
                Arguments.of(
                        "mapid on a dense column",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "\"neg2zero\", {\"op\": \"mapid\", \"file\": \"f\"}")),
                        "columns.I5[3]: mapid"),
                Arguments.of(
                        "vocab threshold without a bucket",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"min_count\": 2}"))),
                        "columns.C4..C26[3]: vocab min_count leaves keys without an entry, and those"
                                + " need an OOV bucket: set oov_buckets to at least 1"),
                Arguments.of(
                        "vocab max_size zero",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"max_size\": 0, \"oov_buckets\": 1}"))),
                        "columns.C4..C26[3]: vocab \"max_size\" must be a positive 32-bit integer, not 0"),
                Arguments.of(
                        "vocab max_size beyond the bound",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"max_size\": 1000000000, \"oov_buckets\": 1}"))),
                        "columns.C4..C26[3]: vocab max_size must be between 1 and 536870912, not 1000000000"),
                Arguments.of(
                        "vocab oov_buckets negative",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"oov_buckets\": -1}"))),
                        "columns.C4..C26[3]: vocab \"oov_buckets\" must be a 32-bit integer of at least 0, not -1"),
                Arguments.of(
                        "vocab import not a string",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"import\": 5}"))),
                        "columns.C4..C26[3]: vocab \"import\" must be a non-empty string, not 5"),
                Arguments.of(
                        "vocab unknown parameter",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"min_freq\": 5}"))),
                        "columns.C4..C26[3]: vocab has no parameter \"min_freq\" (it takes min_count,"
                                + " oov_buckets, max_size, import, capacity, evict, ttl)"),
                Arguments.of(
                        "vocab evict of an unknown kind",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"capacity\": 10, \"evict\": \"lru\","
                                                        + " \"oov_buckets\": 1}"))),
                        "columns.C4..C26[3]: vocab \"evict\" must be \"lfu\" or \"ttl\", not \"lru\""),
                Arguments.of(
                        "vocab capacity without evict",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"capacity\": 10}"))),
                        "columns.C4..C26[3]: vocab capacity bounds an evicting vocabulary: set evict"),
                Arguments.of(
                        "vocab evict without buckets",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"capacity\": 10, \"evict\":"
                                                        + " \"lfu\"}"))),
                        "columns.C4..C26[3]: vocab evict sends a new key to its OOV bucket"),
                Arguments.of(
                        "vocab ttl in time units",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"capacity\": 10, \"evict\":"
                                                        + " \"ttl\", \"ttl\": \"7d\", \"oov_buckets\": 1}"))),
                        "[3]: vocab \"ttl\" is a span of event time, and the input has none: name"
                                + " its time field in input.timestamp, or count the ttl in rows"),
                Arguments.of(
                        "vocab ttl neither rows nor time",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"capacity\": 10, \"evict\":"
                                                        + " \"ttl\", \"ttl\": \"a week\", \"oov_buckets\": 1}"))),
                        "columns.C4..C26[3]: vocab \"ttl\" must be a number of rows (100000, \"5M"
                                + " rows\"; k, M, G) or a span of event time"),
                Arguments.of(
                        "vocab ttl without evict ttl",
                        spec(
                                c.replace(
                                        vocab,
                                        vocab.replace(
                                                "\"vocab\"",
                                                "{\"op\": \"vocab\", \"capacity\": 10, \"evict\":"
                                                        + " \"lfu\", \"ttl\": 100, \"oov_buckets\": 1}"))),
                        "columns.C4..C26[3]: vocab ttl applies to evict \"ttl\" only, not to \"lfu\""),
                Arguments.of(
                        "unknown operator",
                        spec(c.replace("\"neg2zero\", \"log\"", "\"neg2zero\", \"cbrt\"")),
                        "columns.I5[3]: unknown operator \"cbrt\""),
                Arguments.of(
                        "missing parameter",
                        spec(c.replace("{\"op\": \"modulus\", \"m\": 1000}", "\"modulus\"")),
                        "columns.C3[3]: modulus needs its parameter \"m\""),
                Arguments.of(
                        "modulus zero",
                        spec(c.replace("\"m\": 1000", "\"m\": 0")),
                        "columns.C3[3]: modulus \"m\" must be a positive integer, not 0"),
                Arguments.of(
                        "modulus negative",
                        spec(c.replace("\"m\": 1000", "\"m\": -5")),
                        "must be a positive integer, not -5"),
                Arguments.of(
                        "unknown parameter",
                        spec(c.replace("\"m\": 1000", "\"m\": 1000, \"seed\": 3")),
                        "modulus has no parameter \"seed\""),
                Arguments.of(
                        "duplicate column by range",
                        spec(c.replace("\"I6..I13\"", "\"I5..I13\"")),
                        "duplicate column I5"),
                Arguments.of(
                        "duplicate key",
                        spec(c + ", \"C3\": [\"decode\"]"),
                        "Duplicate field 'C3'"),
                Arguments.of(
                        "wrong column count: too few",
                        spec(c.replace("\"C4..C26\"", "\"C4..C25\"")),
                        "criteo-tsv has 40 columns (label, I1..I13, C1..C26); no chain for C26"),
                Arguments.of(
                        "wrong column count: too many",
                        spec(c.replace("\"C4..C26\"", "\"C4..C27\"")),
                        "columns.C4..C27: C27 is not a column of criteo-tsv"),
                Arguments.of(
                        "operator of another kind",
                        spec(
                                c.replace(
                                        "\"I6..I13\": [\"decode\", \"fill_missing\"]",
                                        "\"I6..I13\": [\"decode\", \"fill_missing\", \"hex2int\"]")),
                        "columns.I6..I13[2]: hex2int does not apply to dense columns"),
                Arguments.of(
                        "order",
                        spec(
                                c.replace(
                                        "\"hex2int\", {\"op\": \"modulus\", \"m\": 1000}",
                                        "{\"op\": \"modulus\", \"m\": 1000}, \"hex2int\"")),
                        "columns.C3[3]: hex2int must come right after the fill"),
                Arguments.of(
                        "log before neg2zero",
                        spec(c.replace("\"neg2zero\", \"log\"", "\"log\", \"neg2zero\"")),
                        "columns.I5[2]: log needs neg2zero (or clamp with lo >= 0, or bucketize)"
                                + " before it"),
                Arguments.of(
                        "log without neg2zero",
                        spec(
                                c.replace(
                                        "\"I5\": [\"decode\", \"fill_missing\", \"neg2zero\", \"log\"]",
                                        "\"I5\": [\"decode\", \"fill_missing\", \"log\"]")),
                        "columns.I5[2]: log needs neg2zero"),
                Arguments.of(
                        "log after a clamp that lets negatives through",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "{\"op\": \"clamp\", \"lo\": -1, \"hi\": 5}, \"log\"")),
                        "columns.I5[3]: log needs neg2zero"),
                Arguments.of(
                        "clamp bounds reversed",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "{\"op\": \"clamp\", \"lo\": 5, \"hi\": 1}")),
                        "columns.I5[2]: clamp needs lo <= hi, not lo 5.0 > hi 1.0"),
                Arguments.of(
                        "clamp of an int32 without an integer inside",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "{\"op\": \"clamp\", \"lo\": 0.2, \"hi\": 0.8}")),
                        "columns.I5[2]: clamp(0.2,0.8) holds no integer, and the value is an int32"
                                + " here (cast it to float32 first)"),
                Arguments.of(
                        "clamp without hi",
                        spec(c.replace("\"neg2zero\", \"log\"", "{\"op\": \"clamp\", \"lo\": 0}")),
                        "columns.I5[2]: clamp needs its parameter \"hi\" (clamp takes lo, hi"),
                Arguments.of(
                        "bucketize borders decreasing",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "{\"op\": \"bucketize\", \"borders\": [0, 5, 2]}")),
                        "columns.I5[2]: bucketize borders must not decrease: border 2 (2.0) is"
                                + " below border 1 (5.0)"),
                Arguments.of(
                        "bucketize border not a number",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "{\"op\": \"bucketize\", \"borders\": [0, \"5\"]}")),
                        "columns.I5[2]: bucketize \"borders[1]\" must be a number, not \"5\""),
                Arguments.of(
                        "bucketize right not a flag",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "{\"op\": \"bucketize\", \"borders\": [1], \"right\": 0}")),
                        "columns.I5[2]: bucketize \"right\" must be true or false, not 0"),
                Arguments.of(
                        "logit eps out of range",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "{\"op\": \"logit\", \"eps\": 0.7}")),
                        "columns.I5[2]: logit eps must be in [0, 0.5], not 0.7"),
                Arguments.of(
                        "cast to the same type",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "{\"op\": \"cast\", \"to\": \"int32\"}")),
                        "columns.I5[2]: the value is already int32 here"),
                Arguments.of(
                        "cast to an unknown type",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "{\"op\": \"cast\", \"to\": \"float64\"}")),
                        "columns.I5[2]: cast \"to\" must be \"int32\" or \"float32\", not \"float64\""),
                Arguments.of(
                        "sigrid_hash max zero",
                        spec(
                                c.replace(
                                        "{\"op\": \"modulus\", \"m\": 1000}",
                                        "{\"op\": \"sigrid_hash\", \"max\": 0}")),
                        "columns.C3[3]: sigrid_hash \"max\" must be a positive integer, not 0"),
                Arguments.of(
                        "sigrid_hash on a dense column",
                        spec(
                                c.replace(
                                        "\"neg2zero\", \"log\"",
                                        "{\"op\": \"sigrid_hash\", \"max\": 10}")),
                        "columns.I5[2]: sigrid_hash does not apply to dense columns"),
                Arguments.of(
                        "fill_null of a sparse column below 0",
                        spec(
                                c.replace(
                                        "\"C1..C2\": [\"decode\", \"fill_missing\"",
                                        "\"C1..C2\": [\"decode\", {\"op\": \"fill_null\", \"value\": -1}")),
                        "columns.C1..C2[1]: fill_null \"value\" of a sparse column is an id, 0 or"
                                + " more, not -1"),
                Arguments.of(
                        "fill_null of a dense column beyond int32",
                        spec(
                                c.replace(
                                        "\"I6..I13\": [\"decode\", \"fill_missing\"",
                                        "\"I6..I13\": [\"decode\", {\"op\": \"fill_null\", \"value\": 3000000000}")),
                        "columns.I6..I13[1]: fill_null \"value\" of a dense column must be a 32-bit"
                                + " integer, not 3000000000"),
                Arguments.of(
                        "two fills",
                        spec(
                                c.replace(
                                        "\"I6..I13\": [\"decode\", \"fill_missing\"",
                                        "\"I6..I13\": [\"decode\", \"fill_missing\", {\"op\": \"fill_null\", \"value\": 1}")),
                        "columns.I6..I13[2]: fill_null after fill_missing: one fill per column"),
                Arguments.of(
                        "vocab not last",
                        spec(
                                c.replace(
                                        "{\"op\": \"modulus\", \"m\": 1000}, \"vocab\"",
                                        "\"vocab\", {\"op\": \"modulus\", \"m\": 1000}")),
                        "columns.C3[3]: vocab must come last"),
                Arguments.of(
                        "sparse without vocab",
                        spec(
                                c.replace(
                                        "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]",
                                        "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\"]")),
                        "columns.C1..C2: missing vocab"),
                Arguments.of(
                        "twice",
                        spec(
                                c.replace(
                                        "\"label\": [\"decode\", \"fill_missing\"]",
                                        "\"label\": [\"decode\", \"decode\", \"fill_missing\"]")),
                        "columns.label[1]: decode appears twice"),
                Arguments.of(
                        "version",
                        spec(c).replace("\"version\": 2", "\"version\": 0"),
                        "version: must be a positive integer, not 0"),
                Arguments.of(
                        "name",
                        spec(c).replace("\"name\": \"p\"", "\"name\": \"Bad Name\""),
                        "name: \"Bad Name\" is not a pipeline name"),
                Arguments.of(
                        "input format",
                        spec(c).replace("criteo-tsv", "thrift"),
                        "input.format: unknown format \"thrift\" (known: criteo-tsv, json, csv,"
                                + " avro, protobuf)"),
                Arguments.of(
                        "protobuf without its message",
                        spec(c).replace(
                                        "\"format\": \"criteo-tsv\"",
                                        "\"format\": \"protobuf\", \"descriptor\": \"x.desc\""),
                        "input.message: missing: the events' message, e.g. \"shop.Click\""),
                Arguments.of(
                        "protobuf descriptor for text",
                        spec(c).replace("\"topic\": \"t\"", "\"descriptor\": \"x.desc\""),
                        "input.descriptor: is for protobuf input; input.format is criteo-tsv"),
                Arguments.of(
                        "avro schema for text",
                        spec(c).replace("\"topic\": \"t\"", "\"schema\": \"x.avsc\""),
                        "input.schema: is for avro input; input.format is criteo-tsv"),
                Arguments.of(
                        "avro schema and registry",
                        spec(c).replace(
                                        "\"format\": \"criteo-tsv\"",
                                        "\"format\": \"avro\", \"schema\": \"x.avsc\","
                                                + " \"schema_registry\": \"http://localhost:8081\""),
                        "input.schema: names one writer schema for every record;"
                                + " input.schema_registry looks each record's up: give one of them"),
                Arguments.of(
                        "avro schema file missing",
                        spec(c).replace(
                                        "\"format\": \"criteo-tsv\"",
                                        "\"format\": \"avro\", \"schema\": \"/nonexistent/x.avsc\""),
                        "input.schema: cannot read /nonexistent/x.avsc: java.nio.file."
                                + "NoSuchFileException"),
                Arguments.of(
                        "registry not a URL",
                        spec(c).replace(
                                        "\"format\": \"criteo-tsv\"",
                                        "\"format\": \"avro\", \"schema_registry\": \"localhost:8081\""),
                        "input.schema_registry: \"localhost:8081\" is not an http(s) URL such as"
                                + " http://localhost:8081"),
                Arguments.of(
                        "fields of positional input",
                        spec(c).replace("\"topic\": \"t\"", "\"fields\": {\"C1\": \"user.id\"}"),
                        "input.fields: names event fields, but input.format criteo-tsv has"
                                + " positional fields"),
                Arguments.of(
                        "a bad field path",
                        spec(c).replace(
                                        "\"criteo-tsv\", \"topic\": \"t\"",
                                        "\"json\", \"fields\": {\"C1\": \"user..id\"}"),
                        "input.fields.C1: \"user..id\": empty field name at character 6"),
                Arguments.of(
                        "a field inside another's value",
                        spec(c).replace(
                                        "\"criteo-tsv\", \"topic\": \"t\"",
                                        "\"json\", \"fields\": {\"C1\": \"user\", \"C2\": \"user.id\"}"),
                        "input.fields.C2: \"user.id\" (the field of C2) lies inside \"user\", the"
                                + " field of C1"),
                Arguments.of(
                        "a field inside a column's own name",
                        spec(c).replace(
                                        "\"criteo-tsv\", \"topic\": \"t\"",
                                        "\"json\", \"fields\": {\"C2\": \"C1.id\"}"),
                        "input.fields.C2: \"C1.id\" (the field of C2) lies inside \"C1\", the"
                                + " field of C1"),
                Arguments.of(
                        "a field of a column the layout lacks",
                        spec(c).replace(
                                        "\"criteo-tsv\", \"topic\": \"t\"",
                                        "\"json\", \"fields\": {\"C27\": \"x\"}"),
                        "input.fields.C27: not a column of"),
                Arguments.of(
                        "hash64 on hexadecimal text",
                        spec(c.replace("\"hex2int\", {\"op\"", "\"hash64\", {\"op\"")),
                        "columns.C3[2]: hash64 reads the string ids of named-field input (json, csv,"
                                + " avro, protobuf);"
                                + " criteo-tsv ids are hexadecimal (hex2int)"),
                Arguments.of(
                        "hex2int and hash64",
                        spec(c.replace("\"hex2int\", {\"op\"", "\"hex2int\", \"hash64\", {\"op\"")),
                        "columns.C3[3]: hex2int and hash64: one reads the id, not both"),
                Arguments.of(
                        "typo in a field",
                        spec(c).replace("\"version\"", "\"verison\""),
                        "verison: unknown field"),
                Arguments.of(
                        "route field",
                        spec(c).replace(
                                        "\"topic\": \"t\"",
                                        "\"route\": {\"field\": \"C99\", \"value\": \"x\"}"),
                        "input.route.field: \"C99\" is not a column of criteo-tsv"),
                Arguments.of(
                        "parquet columns not an object",
                        spec(c).replace("\"topic\": \"t\"", "\"parquet_columns\": [\"click\"]"),
                        "input.parquet_columns: must be an object from field name"),
                Arguments.of(
                        "parquet column of an unknown field",
                        spec(c).replace(
                                        "\"topic\": \"t\"",
                                        "\"parquet_columns\": {\"C27\": \"x\"}"),
                        "input.parquet_columns.C27: not a field of criteo-tsv"),
                Arguments.of(
                        "parquet column not a string",
                        spec(c).replace("\"topic\": \"t\"", "\"parquet_columns\": {\"I1\": 3}"),
                        "input.parquet_columns.I1: must be a non-empty string, not 3"),
                Arguments.of(
                        "one parquet column for two fields",
                        spec(c).replace(
                                        "\"topic\": \"t\"",
                                        "\"parquet_columns\": {\"I1\": \"x\", \"I2\": \"x\"}"),
                        "input.parquet_columns.I2: column \"x\" is already the column of I1"),
                Arguments.of(
                        "a dense count out of range",
                        spec(c).replace("\"topic\": \"t\"", "\"dense\": 0"),
                        "input.dense: must be an integer from 1 to 4096, not 0"),
                Arguments.of(
                        "a sparse count that is not an integer",
                        spec(c).replace("\"topic\": \"t\"", "\"sparse\": 2.5"),
                        "input.sparse: must be an integer from 1 to 1024, not 2.5"),
                Arguments.of(
                        "a column beyond the declared layout",
                        spec(c).replace("\"topic\": \"t\"", "\"sparse\": 20"),
                        "columns.C4..C26: C26 is not a column of criteo-tsv (label, I1..I13,"
                                + " C1..C20)"),
                Arguments.of(
                        "columns missing from a wider layout",
                        spec(c).replace("\"topic\": \"t\"", "\"dense\": 50"),
                        "columns: criteo-tsv has 77 columns (label, I1..I50, C1..C26); no chain"
                                + " for I14, I15, I16, I17, I18, I19, I20, I21, I22, I23, I24,"
                                + " I25, I26, I27, I28, I29, I30, I31, I32, I33 and 17 more"),
                Arguments.of(
                        "a dense column as a list",
                        spec(c).replace("\"topic\": \"t\"", "\"list_columns\": [\"I3\"]"),
                        "input.list_columns[0]: I3 is not a sparse column; lists are ids"),
                Arguments.of(
                        "a list separator that could be part of an id",
                        spec(c).replace(
                                        "\"topic\": \"t\"",
                                        "\"list_columns\": [\"C1\"], \"list_separator\": \"e\""),
                        "input.list_separator: must be one printable ASCII character other than a"
                                + " hex digit, not \"e\""),
                Arguments.of(
                        "a separator without lists",
                        spec(c).replace("\"topic\": \"t\"", "\"list_separator\": \";\""),
                        "input.list_separator: given without input.list_columns"),
                Arguments.of(
                        "firstx on a column of one id",
                        spec(
                                c.replace(
                                        "\"C3\": [\"decode\", \"fill_missing\", \"hex2int\",",
                                        "\"C3\": [\"decode\", \"fill_missing\", \"hex2int\","
                                                + " {\"op\": \"firstx\", \"x\": 2},")),
                        "columns.C3[3]: firstx does not apply to sparse columns"),
                Arguments.of(
                        "onehot before another operator",
                        spec(
                                c.replace(
                                        "\"I5\": [\"decode\", \"fill_missing\", \"neg2zero\", \"log\"]",
                                        "\"I5\": [\"decode\", \"fill_missing\", {\"op\": \"onehot\","
                                                + " \"size\": 3}, \"neg2zero\"]")),
                        "columns.I5[2]: onehot must come last"),
                Arguments.of(
                        "onehot of one category",
                        spec(
                                c.replace(
                                        "\"I5\": [\"decode\", \"fill_missing\", \"neg2zero\", \"log\"]",
                                        "\"I5\": [\"decode\", \"fill_missing\", {\"op\": \"onehot\","
                                                + " \"size\": 1}]")),
                        "columns.I5[2]: onehot \"size\" must be a 32-bit integer of at least 2, not 1"),
                Arguments.of("not JSON", "{\"name\": ", "line 1"),
                // issue 23: 12M borders validated, then ran the job out of memory
                Arguments.of(
                        "too many bucketize borders",
                        spec(
                                c.replace(
                                        "\"I5\": [\"decode\", \"fill_missing\", \"neg2zero\", \"log\"]",
                                        "\"I5\": [\"decode\", \"fill_missing\", {\"op\": \"bucketize\","
                                                + " \"borders\": ["
                                                + java.util.stream.IntStream.range(0, 65_537)
                                                        .mapToObj(Integer::toString)
                                                        .collect(
                                                                java.util.stream.Collectors.joining(
                                                                        ","))
                                                + "]}]")),
                        "columns.I5[2]: \"borders\" must hold at most 65536 numbers, not 65537"),
                // issue 23: "{...} xyz" validated and ran
                Arguments.of(
                        "trailing garbage after the object",
                        spec(OK_COLUMNS) + " xyz",
                        "Unrecognized token 'xyz'"),
                Arguments.of(
                        "a second object after the first",
                        spec(OK_COLUMNS) + "\n{}",
                        "Trailing token (of type START_OBJECT) found after value"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSpecs")
    void aBadSpecIsRejectedNamingTheField(String what, String text, String expected) {
        assertThatThrownBy(() -> parse(text))
                .isInstanceOf(SpecException.class)
                .hasMessageStartingWith("test.json: ")
                .hasMessageContaining(expected);
    }

    /**
     * Issue 41: {@code {"op": "onehot", "size": 5, "sizes": 3}} failed with a NullPointerException,
     * since onehot, firstx and ngram had no entry in the parser's table of parameters. Every
     * operator, given its required parameters and a misspelt one, is refused naming the stray.
     */
    @Test
    void aStrayParameterOfEveryOperatorIsNamed() {
        Map<String, String> required =
                Map.ofEntries(
                        Map.entry("fill_null", "\"value\": 0"),
                        Map.entry("clamp", "\"lo\": 0, \"hi\": 1"),
                        Map.entry("bucketize", "\"borders\": [1, 2]"),
                        Map.entry("boxcox", "\"lambda\": 0.5"),
                        Map.entry("cast", "\"to\": \"float32\""),
                        Map.entry("modulus", "\"m\": 10"),
                        Map.entry("sigrid_hash", "\"max\": 10"),
                        Map.entry("mapid", "\"file\": \"ids.tsv\""),
                        Map.entry("onehot", "\"size\": 5"),
                        Map.entry("firstx", "\"x\": 2"),
                        Map.entry("ngram", "\"n\": 2"));
        assertThat(OpDefinition.names()).containsAll(required.keySet());
        for (String name : OpDefinition.names()) {
            String params = required.getOrDefault(name, "");
            String op =
                    "{\"op\": \""
                            + name
                            + "\", "
                            + (params.isEmpty() ? "" : params + ", ")
                            + "\"sizes\": 3}";
            String text = spec(OK_COLUMNS.replace("{\"op\": \"modulus\", \"m\": 1000}", op));
            assertThatThrownBy(() -> parse(text))
                    .as(name)
                    .isInstanceOf(SpecException.class)
                    .hasMessageContaining(
                            "columns.C3[3]: " + name + " has no parameter \"sizes\" (it takes ")
                    .hasMessageContaining(
                            OpDefinition.byName(name).orElseThrow().params().isEmpty()
                                    ? "it takes none"
                                    : String.join(
                                            ", ",
                                            OpDefinition.byName(name).orElseThrow().params()));
        }
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        String text =
                spec(OK_COLUMNS.replace("\"m\": 1000", "\"m\": 0"))
                        .replace("\"version\": 2", "\"version\": \"two\"");
        assertThatThrownBy(() -> parse(text))
                .isInstanceOfSatisfying(
                        SpecException.class,
                        e ->
                                assertThat(e.problems())
                                        .anySatisfy(p -> assertThat(p).startsWith("version:"))
                                        .anySatisfy(
                                                p -> assertThat(p).startsWith("columns.C3[3]:")));
    }

    /** A spec with {@code hotline} as its Hotline section. */
    private static String withHotline(String hotline) {
        String text = spec(OK_COLUMNS);
        return text.substring(0, text.lastIndexOf('}')) + ", \"hotline\": " + hotline + "}";
    }

    @Test
    void theHotlineSectionTakesABudgetAndDefaultsTheRest() throws Exception {
        var h = parse(withHotline("{\"budget\": \"512m\", \"window\": 100000}")).hotline();
        assertThat(h.budgetBytes()).isEqualTo(512L << 20);
        assertThat(h.windowRows()).isEqualTo(100_000);
        assertThat(h.dim()).isEqualTo(16);
        assertThat(h.sampleRate()).isEqualTo(0.05);
        assertThat(h.tracker()).isEqualTo(dev.piper.pipeline.hotline.HotlineSettings.Tracker.EXACT);
        var all =
                parse(
                                withHotline(
                                        "{\"budget\": 1280000, \"dim\": 64, \"sample\": 0.2,"
                                                + " \"sample_rows\": 512, \"tracker\": \"srrip\","
                                                + " \"tracker_entries\": 65536, \"decay\": 0.5}"))
                        .hotline();
        assertThat(all.entries()).isEqualTo(1_280_000 / (64 * 4));
        assertThat(all.tracker())
                .isEqualTo(dev.piper.pipeline.hotline.HotlineSettings.Tracker.SRRIP);
        assertThat(parse(spec(OK_COLUMNS)).hotline()).isNull();
    }

    @Test
    void aVocabTtlMayBeASpanOfEventTime() throws Exception {
        String timed =
                jsonSpec(", \"timestamp\": \"ts\"")
                        .replace(
                                "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]",
                                "\"C1..C2\": [\"decode\", \"fill_missing\", \"hex2int\", {\"op\":"
                                        + " \"vocab\", \"capacity\": 10, \"evict\": \"ttl\","
                                        + " \"ttl\": \"1h\", \"oov_buckets\": 1}]");
        PipelineSpec spec = parse(timed);
        VocabularyPolicy p = SpecCompiler.program(spec).vocabPolicy(0);
        assertThat(p.ttlMs()).isEqualTo(3_600_000);
        assertThat(p.ttlRows()).isZero();
        assertThat(p.ttlInEventTime()).isTrue();
        assertThat(spec.column("C1").orElseThrow().chain())
                .endsWith("vocab(oov_buckets=1,capacity=10,evict=ttl,ttl=3600000ms)");
    }

    @Test
    void hotlinesWindowIsRowsOrASpanOfEventTime() throws Exception {
        assertThat(parse(withHotline("{\"budget\": 65536, \"window\": \"5M rows\"}")).hotline())
                .extracting(h -> h.windowRows(), h -> h.windowMs())
                .containsExactly(5_000_000L, 0L);
        String timed = jsonSpec(", \"timestamp\": \"ts\"");
        String withWindow =
                timed.substring(0, timed.lastIndexOf('}'))
                        + ", \"hotline\": {\"budget\": 65536, \"window\": \"10m\"}}";
        var h = parse(withWindow).hotline();
        assertThat(h.windowMs()).isEqualTo(600_000);
        assertThat(h.windowRows()).isZero();
        assertThat(h.window()).isEqualTo("10m");
        assertThatThrownBy(() -> parse(withHotline("{\"budget\": 65536, \"window\": \"1h\"}")))
                .isInstanceOf(SpecException.class)
                .hasMessageContaining(
                        "hotline.window: \"1h\" is a span of event time, and the input has none:"
                                + " name its time field in input.timestamp");
    }

    @ParameterizedTest
    @MethodSource
    void aBadHotlineSectionNamesItsField(String hotline, String expected) {
        assertThatThrownBy(() -> parse(withHotline(hotline)))
                .isInstanceOf(SpecException.class)
                .hasMessageContaining(expected);
    }

    static Stream<Arguments> aBadHotlineSectionNamesItsField() {
        return Stream.of(
                Arguments.of("{}", "hotline.budget: missing"),
                Arguments.of("{\"budget\": \"lots\"}", "hotline.budget: must be a positive"),
                Arguments.of("{\"budget\": 10}", "hotline.budget: 10 bytes hold no entry"),
                Arguments.of("{\"budget\": 65536, \"dim\": 0}", "hotline.dim: must be between"),
                Arguments.of(
                        "{\"budget\": 65536, \"tracker\": \"lru\"}",
                        "hotline.tracker: must be \"exact\" or \"srrip\""),
                Arguments.of(
                        "{\"budget\": 65536, \"tracker_entries\": 1000}",
                        "hotline.tracker_entries: must be a power of two"),
                Arguments.of("{\"budget\": 65536, \"windw\": 5}", "hotline.windw: unknown field"),
                Arguments.of(
                        "{\"budget\": 65536, \"window\": \"ten minutes\"}",
                        "hotline.window: must be a number of rows (100000, \"5M rows\"; k, M, G)"
                                + " or a span of event time"),
                Arguments.of(
                        "{\"budget\": 65536, \"window\": 0}",
                        "hotline.window: must be a number of rows"),
                Arguments.of(
                        "{\"budget\": 65536, \"window\": \"0s\"}",
                        "hotline.window: must be at least 1 row or 1 ms, not \"0s\""),
                Arguments.of("[]", "hotline: must be an object"));
    }
}
