package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/OPERATIONS.md's configuration reference is the one the code generates ({@link
 * ConfigReference}). After changing an option, regenerate it: {@code mvn -pl job test
 * -Dtest=OperationsDocTest -Dpiper.docs.update=true}.
 */
class OperationsDocTest {

    private static final String START = "<!-- config-reference:start (generated) -->\n";
    private static final String END = "<!-- config-reference:end -->";

    @Test
    void theConfigurationReferenceIsTheGeneratedOne() throws Exception {
        Path doc = Path.of(System.getProperty("piper.home"), "docs", "OPERATIONS.md");
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        int start = text.indexOf(START);
        int end = text.indexOf(END);
        assertThat(start).as("the start marker in " + doc).isNotNegative();
        assertThat(end).as("the end marker in " + doc).isGreaterThan(start);
        String generated = ConfigReference.markdown();
        if (Boolean.getBoolean("piper.docs.update")) {
            text = text.substring(0, start + START.length()) + generated + text.substring(end);
            Files.writeString(doc, text, StandardCharsets.UTF_8);
            end = text.indexOf(END);
        }
        assertThat(text.substring(start + START.length(), end))
                .as("the reference in %s (regenerate: see OperationsDocTest)", doc)
                .isEqualTo(generated);
        assertThat(generated)
                .contains("| `--checkpoint-dir DIR` |")
                .contains("| `piper.block-bytes` | Integer | `1048576` |")
                .contains("### `piper cluster start`");
    }
}
