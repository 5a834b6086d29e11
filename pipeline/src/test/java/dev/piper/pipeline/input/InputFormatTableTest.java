package dev.piper.pipeline.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.pipeline.GeneratedDocs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The input-format table of {@code docs/SPECS.md} is generated from the formats' definitions
 * (regenerate: {@code mvn -pl pipeline test -Dtest=InputFormatTableTest -Dpiper.docs.update=true}),
 * and each format's documentation anchor names a section there.
 */
class InputFormatTableTest {

    private static final String START =
            "<!-- input-formats:start (generated from InputFormat: InputFormatTableTest) -->\n";
    private static final String END = "<!-- input-formats:end -->";

    @Test
    void theDocsTableIsGeneratedFromTheFormats() throws Exception {
        GeneratedDocs.check(
                "SPECS.md",
                START,
                END,
                InputFormat.markdownTable(),
                "the input-format table (regenerate: see InputFormatTableTest)");
    }

    @Test
    void everyFormatsSectionIsInTheDocs() throws Exception {
        String text =
                Files.readString(
                        Path.of(System.getProperty("piper.home"), "docs", "SPECS.md"),
                        StandardCharsets.UTF_8);
        java.util.List<String> headings = headingAnchors(text);
        for (InputFormat f : InputFormat.values()) {
            assertThat(headings).as(f.specName()).contains(f.docAnchor().substring(1));
        }
    }

    /** The GitHub anchors of the document's headings. */
    private static java.util.List<String> headingAnchors(String text) {
        return text.lines()
                .filter(l -> l.startsWith("#"))
                .map(l -> l.replaceFirst("^#+ ", "").toLowerCase(java.util.Locale.ROOT))
                .map(h -> h.replaceAll("[^a-z0-9 -]", "").replace(' ', '-'))
                .toList();
    }
}
