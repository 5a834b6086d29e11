package dev.piper.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A table of {@code docs/} generated from definitions in the code, between two markers: checked to
 * be what the code generates now, or rewritten so with {@code -Dpiper.docs.update=true}.
 */
public final class GeneratedDocs {

    private GeneratedDocs() {}

    /**
     * Checks that {@code docs/DOC} holds {@code generated} between {@code start} and {@code end}
     * (rewriting it first when {@code piper.docs.update} is set); {@code what} names the table and
     * the test that regenerates it in the failure message.
     */
    public static void check(String doc, String start, String end, String generated, String what)
            throws IOException {
        Path path = Path.of(System.getProperty("piper.home"), "docs", doc);
        String text = Files.readString(path, StandardCharsets.UTF_8);
        int from = text.indexOf(start);
        int to = text.indexOf(end);
        assertThat(from).as("the start marker in " + path).isNotNegative();
        assertThat(to).as("the end marker in " + path).isGreaterThan(from);
        if (Boolean.getBoolean("piper.docs.update")) {
            text = text.substring(0, from + start.length()) + generated + text.substring(to);
            Files.writeString(path, text, StandardCharsets.UTF_8);
            to = text.indexOf(end);
        }
        assertThat(text.substring(from + start.length(), to))
                .as("%s in %s", what, path)
                .isEqualTo(generated);
    }
}
