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

    @Option(
            names = "--overwrite",
            description =
                    "Replace a previous run's output in --output; it stays whole until this"
                            + " run's output is complete.")
    boolean overwrite;

    /**
     * Checks the directory can take the run's output: absent or empty, or a previous run's with
     * {@code --overwrite} (replaced whole when the run publishes, {@code OutputCommit}); refuses it
     * if it holds one of {@code inputs} or lies inside an input directory.
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
