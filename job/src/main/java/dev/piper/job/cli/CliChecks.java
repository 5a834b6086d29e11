package dev.piper.job.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** Checks of option values that several commands share, each naming its option. */
final class CliChecks {

    private CliChecks() {}

    /** {@code --input} must be a readable file. */
    static void inputFile(CommandLine cmd, Path input) {
        if (!Files.isRegularFile(input)) {
            throw new ParameterException(cmd, "--input: " + input + " is not a readable file");
        }
    }

    /** {@code --parallelism} must be at least 1. */
    static void parallelism(CommandLine cmd, int parallelism) {
        if (parallelism < 1) {
            throw new ParameterException(
                    cmd, "--parallelism: must be at least 1, not " + parallelism);
        }
    }
}
