package dev.piper.pipeline.input;

import static org.assertj.core.api.Assertions.assertThat;

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
        Path doc = Path.of(System.getProperty("piper.home"), "docs", "SPECS.md");
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        int start = text.indexOf(START);
        int end = text.indexOf(END);
        assertThat(start).as("the start marker in " + doc).isNotNegative();
        assertThat(end).as("the end marker in " + doc).isGreaterThan(start);
        String generated = InputFormat.markdownTable();
        if (Boolean.getBoolean("piper.docs.update")) {
            text = text.substring(0, start + START.length()) + generated + text.substring(end);
            Files.writeString(doc, text, StandardCharsets.UTF_8);
            end = text.indexOf(END);
        }
        assertThat(text.substring(start + START.length(), end))
                .as("the input-format table in %s (regenerate: see InputFormatTableTest)", doc)
                .isEqualTo(generated);
    }

    @Test
    void everyFormatsSectionIsInTheDocs() throws Exception {
        String text =
                Files.readString(
                        Path.of(System.getProperty("piper.home"), "docs", "SPECS.md"),
                        StandardCharsets.UTF_8);
        for (InputFormat f : InputFormat.values()) {
            String table = InputFormat.markdownTable();
            String anchor = table.substring(table.indexOf("[`" + f.specName() + "`]("));
            anchor = anchor.substring(anchor.indexOf("(#") + 2, anchor.indexOf(')'));
            assertThat(headingAnchors(text)).as(f.specName()).contains(anchor);
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
