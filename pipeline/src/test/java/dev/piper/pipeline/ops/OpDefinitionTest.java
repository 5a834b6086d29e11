package dev.piper.pipeline.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.pipeline.GeneratedDocs;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every operator record has its definition, and the operator table of {@code docs/SPECS.md} is
 * generated from them (regenerate: {@code mvn -pl pipeline test -Dtest=OpDefinitionTest
 * -Dpiper.docs.update=true}).
 */
class OpDefinitionTest {

    private static final String START =
            "<!-- operators:start (generated from each operator's definition: OpDefinitionTest)"
                    + " -->\n";
    private static final String END = "<!-- operators:end -->";

    @Test
    void everyOperatorRecordHasItsDefinition() {
        Set<String> names = new HashSet<>();
        Set<Class<?>> types = new HashSet<>();
        for (OpDefinition d : OpDefinition.all()) {
            assertThat(names.add(d.name())).as("one operator named %s", d.name()).isTrue();
            types.add(d.type());
            assertThat(d.kinds()).as(d.name()).isNotEmpty();
            assertThat(d.does()).as(d.name()).isNotBlank();
            assertThat(d.reference()).as(d.name()).isNotBlank();
            if (d.params().isEmpty()) {
                Op op = d.parse().apply(dev.piper.pipeline.ops.OpParams.none());
                assertThat(op).as(d.name()).isInstanceOf(d.type());
                assertThat(op.name()).isEqualTo(d.name());
                assertThat(OpDefinition.of(op)).isSameAs(d);
            }
        }
        assertThat(types)
                .containsExactlyInAnyOrderElementsOf(OpDefinition.Registry.records(Op.class));
    }

    @Test
    void theDocsTableIsGeneratedFromTheDefinitions() throws Exception {
        GeneratedDocs.check(
                "SPECS.md",
                START,
                END,
                OpDefinition.markdownTable(),
                "the operator table (regenerate: see OpDefinitionTest)");
    }
}
