package dev.piper.output.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * How the cost report's files are written in a batch output directory (their names are {@code
 * OutputLayout}'s {@code REPORT}, {@code REPORT_INTERVALS} and {@code REPORT_HTML}).
 */
public final class ReportFiles {

    private ReportFiles() {}

    /**
     * Replaces file {@code name} in {@code dir} with {@code text}: written beside it, then renamed
     * over it, so a reader sees the old file or the new one, never half of one.
     */
    public static void replace(Path dir, String name, String text) throws IOException {
        Path partial = dir.resolve("." + name + ".partial");
        Files.writeString(partial, text, StandardCharsets.UTF_8);
        Files.move(
                partial,
                dir.resolve(name),
                StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }
}
