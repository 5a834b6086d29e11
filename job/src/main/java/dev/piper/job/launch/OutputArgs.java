package dev.piper.job.launch;

import dev.piper.job.Preprocess;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import dev.piper.job.args.JobOption;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** {@code --output DIR [--overwrite]} of the commands that write the batch layout. */
public final class OutputArgs {

    static final String OUTPUT = "--output";
    static final String OVERWRITE = "--overwrite";

    public static final List<JobOption> OPTIONS =
            List.of(
                    JobOption.required(
                            OUTPUT,
                            "DIR",
                            "Output directory; must be empty or absent unless --overwrite."),
                    JobOption.flag(
                            OVERWRITE,
                            "Replace a previous run's output in --output; it stays whole until"
                                    + " this run's output is complete."));

    private OutputArgs() {}

    /** The output directory. */
    public static Path dir(JobArgs args) {
        return args.path(OUTPUT);
    }

    /**
     * Checks the directory can take the run's output: absent or empty, or a previous run's with
     * {@code --overwrite} (replaced whole when the run publishes, {@code OutputCommit}); refuses it
     * if it holds one of {@code inputs} or lies inside an input directory.
     *
     * @return the directory
     * @throws JobArgumentException naming the problem if the directory cannot be used
     */
    public static Path prepare(JobArgs args, Path... inputs) throws IOException {
        Path dir = dir(args);
        try {
            Preprocess.prepareOutput(dir, args.flag(OVERWRITE), List.of(inputs));
        } catch (IllegalArgumentException e) {
            throw JobArgumentException.of(OUTPUT, e.getMessage());
        }
        return dir;
    }
}
