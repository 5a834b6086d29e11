package dev.piper.pipeline.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code sqrt}, the operator added as the proof that an operator is one room (issue 41): its record
 * declares it, and the parser, the chain rules, the column passes, the cost report, the spec
 * serializer and the docs' table take it from there.
 */
class SqrtTest {

    /** Criteo's layout, I1 and I2 with {@code i1} and {@code i2} as their chains' tails. */
    private static String spec(String i1, String i2) {
        return """
                {"name": "s", "version": 1, "input": {"format": "criteo-tsv"},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1": ["decode", "fill_missing", %s],
                   "I2": ["decode", "fill_missing", %s],
                   "I3..I13": ["decode", "fill_missing", "neg2zero"],
                   "C1..C26": ["decode", "fill_missing", "hex2int", "vocab"]}}
                """
                .formatted(i1, i2);
    }

    private static ColumnProgram program(String text) throws SpecException {
        return SpecCompiler.program(
                SpecParser.parse(text.getBytes(StandardCharsets.UTF_8), "sqrt.json"));
    }

    @Test
    void aNonNegativeValueBecomesItsSquareRootAsAFloat32() throws Exception {
        ColumnProgram program =
                program(spec("\"neg2zero\", \"sqrt\"", "\"neg2zero\", \"log\", \"sqrt\""));
        assertThat(program.type(1)).isEqualTo(Op.ValueType.float32);
        assertThat(program.type(2)).isEqualTo(Op.ValueType.float32);
        assertThat(Chains.label(program.chain(1))).isEqualTo("decode fill_missing neg2zero sqrt");
        int width = program.layout().labelDenseWidth();
        int[][] values = {{16, 3}, {0, 0}, {2, 1_000_000}, {Integer.MAX_VALUE, 7}};
        for (boolean fuse : new boolean[] {true, false}) {
            int[] rows = new int[values.length * width];
            for (int r = 0; r < values.length; r++) {
                rows[r * width + 1] = values[r][0]; // neg2zero ran in the decoder
                rows[r * width + 2] = values[r][1];
            }
            ColumnPasses.of(program, fuse).run(rows, new long[26][values.length], values.length);
            for (int r = 0; r < values.length; r++) {
                float i1 = Float.intBitsToFloat(rows[r * width + 1]);
                float i2 = Float.intBitsToFloat(rows[r * width + 2]);
                assertThat(i1).isEqualTo((float) Math.sqrt((float) values[r][0]));
                float log = (float) Math.log((float) values[r][1] + 1f);
                assertThat(i2).isEqualTo((float) Math.sqrt(log));
            }
            assertThat(Float.intBitsToFloat(rows[1])).isEqualTo(4.0f);
        }
    }

    @Test
    void aValueNotKnownNonNegativeIsRefusedNamingThePlace() {
        assertThatThrownBy(() -> program(spec("\"sqrt\"", "\"neg2zero\"")))
                .isInstanceOf(SpecException.class)
                .hasMessageContaining("columns.I1[2]: sqrt needs neg2zero");
        assertThatThrownBy(
                        () ->
                                program(
                                        spec(
                                                "{\"op\": \"boxcox\", \"lambda\": 0.5}, \"sqrt\"",
                                                "\"neg2zero\"")))
                .hasMessageContaining("columns.I1[3]: sqrt needs neg2zero");
        String sparse =
                spec("\"neg2zero\"", "\"neg2zero\"")
                        .replace("\"hex2int\", \"vocab\"", "\"hex2int\", \"sqrt\", \"vocab\"");
        assertThatThrownBy(() -> program(sparse))
                .hasMessageContaining("columns.C1..C26[3]: sqrt does not apply to sparse columns");
    }

    @Test
    void itIsDeclaredOnceForEveryoneElse() {
        OpDefinition d = OpDefinition.byName("sqrt").orElseThrow();
        assertThat(d.type()).isEqualTo(DenseOp.Sqrt.class);
        assertThat(d.kinds()).containsExactly(Chains.Kind.dense);
        assertThat(d.pricedAs()).isEqualTo("log");
        assertThat(Chains.grammar(Chains.Kind.dense)).contains("sqrt");
        assertThat(DenseOp.Sqrt.sqrt(Float.floatToRawIntBits(2.25f), true))
                .isEqualTo(Float.floatToRawIntBits(1.5f));
    }
}
