package dev.piper.job.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.job.spec.PipelineSpec.Kind;
import java.nio.charset.StandardCharsets;
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

    static Stream<Arguments> badSpecs() {
        String c = OK_COLUMNS;
        return Stream.of(
                Arguments.of(
                        "unknown operator",
                        spec(c.replace("\"neg2zero\", \"log\"", "\"neg2zero\", \"sqrt\"")),
                        "columns.I5[3]: unknown operator \"sqrt\""),
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
                        spec(c.replace("\"neg2zero\", \"log\"", "\"log\", \"neg2zero\"")),
                        "columns.I5[3]: neg2zero must come before log"),
                Arguments.of(
                        "log without neg2zero",
                        spec(
                                c.replace(
                                        "\"I5\": [\"decode\", \"fill_missing\", \"neg2zero\", \"log\"]",
                                        "\"I5\": [\"decode\", \"fill_missing\", \"log\"]")),
                        "columns.I5: log needs neg2zero before it"),
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
                        spec(c).replace("criteo-tsv", "csv"),
                        "input.format: unknown format \"csv\""),
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
                Arguments.of("not JSON", "{\"name\": ", "line 1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSpecs")
    void aBadSpecIsRejectedNamingTheField(String what, String text, String expected) {
        assertThatThrownBy(() -> parse(text))
                .isInstanceOf(SpecException.class)
                .hasMessageStartingWith("test.json: ")
                .hasMessageContaining(expected);
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
}
