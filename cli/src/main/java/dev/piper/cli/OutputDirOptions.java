package dev.piper.cli;

import dev.piper.job.Preprocess;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --output DIR [--overwrite]} of the commands that write the batch layout. */
final class OutputDirOptions {

    @Option(
            names = "--output",
            required = true,
            paramLabel = "DIR",
            description = "Output directory; must be empty or absent unless --overwrite.")
    Path dir;

    @Option(names = "--overwrite", description = "Replace the files of a previous run in --output.")
    boolean overwrite;

    /**
     * Creates the directory, or empties a previous run's files from it with {@code --overwrite};
     * refuses it if it holds one of {@code inputs} or lies inside an input directory.
     *
     * @throws ParameterException naming the problem if the directory cannot be used
     */
    Path prepare(CommandLine cmd, Path... inputs) throws IOException {
        try {
            Preprocess.prepareOutput(dir, overwrite, java.util.List.of(inputs));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd, "--output: " + e.getMessage());
        }
        return dir;
    }
}
