package dev.piper.pipeline.spec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.piper.pipeline.ops.ColumnProgram;

/**
 * Coverage-guided fuzzing of the spec language (Jazzer): any bytes are either a spec that compiles
 * to the program a job runs, or refused with its problems named; never another exception, never a
 * spec that validates and then cannot run. The committed inputs (the built-in specs and what
 * fuzzing found, under {@code SpecParserFuzzTestInputs/}) run in every build; {@code
 * docs/RELIABILITY.md} says how to fuzz for longer.
 */
class SpecParserFuzzTest {

    @FuzzTest(maxDuration = "10m")
    void anySpecIsCompiledOrRefusedWithItsProblems(byte[] bytes) {
        PipelineSpec spec;
        try {
            spec = SpecParser.parse(bytes, "fuzz.json");
        } catch (SpecException e) {
            assertThat(e.problems()).isNotEmpty().allSatisfy(p -> assertThat(p).isNotBlank());
            assertThat(e.getMessage()).startsWith("fuzz.json: ");
            return;
        }
        ColumnProgram program = SpecCompiler.program(spec);
        assertThat(program.layout().fields()).isEqualTo(spec.layout().fields());
        assertThat(program.rowBytes()).isPositive();
    }
}
