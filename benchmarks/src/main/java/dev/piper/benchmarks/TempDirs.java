package dev.piper.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The benchmarks' temporary directories (checkpoint storage), removed when they end. */
final class TempDirs {

    private TempDirs() {}

    /** Deletes {@code dir} and everything below it; a file left over is harmless. */
    static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(
                            p -> {
                                try {
                                    Files.delete(p);
                                } catch (IOException e) {
                                    // a leftover temporary file is harmless
                                }
                            });
        }
    }
}
