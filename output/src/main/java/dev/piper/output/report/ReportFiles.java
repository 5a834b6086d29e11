package dev.piper.output.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** File names of the cost report in a batch output directory, and how they are written. */
public final class ReportFiles {

    /** The whole run's report (the last line of {@link #INTERVALS}, pretty-printed). */
    public static final String REPORT = "report.json";

    /** Every report in order, one JSON object per line: the intervals, then the run's. */
    public static final String INTERVALS = "reports.jsonl";

    /** The whole run's report as a self-contained page (inline SVG, no network). */
    public static final String HTML = "report.html";

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
