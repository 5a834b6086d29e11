package dev.piper.job;

import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.spec.Presets;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The JSON click events of {@code piper generate --events json}, for the ITCases that read them.
 */
final class ClickEventFiles {

    private ClickEventFiles() {}

    /** Writes {@code rows} seeded events at scale 0.01, without drift, to {@code file}. */
    static Path json(Path file, long seed, int rows) throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            new ClickEvents(seed, 0.01, -1).write(ClickEvents.Format.JSON, out, rows, done -> {});
        }
        return file;
    }

    /** The text of the preset that reads them, {@code clicks-json}. */
    static String preset() {
        return new String(Presets.named("clicks-json").text(), StandardCharsets.UTF_8);
    }
}
