package dev.piper.job.launch;

import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.connectors.parquet.source.ParquetFileSource;
import dev.piper.job.args.JobArgumentException;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecResources;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Checks of argument values that several commands share, each naming its option. */
public final class LaunchChecks {

    private LaunchChecks() {}

    /**
     * {@code --input} must be a readable file: a regular one, or one read as a stream (a pipe, a
     * pseudo-file such as {@code /proc/...}), not a directory.
     */
    public static void inputFile(Path input) {
        if (!Files.exists(input) || Files.isDirectory(input) || !Files.isReadable(input)) {
            throw JobArgumentException.of("--input", input + " is not a readable file");
        }
    }

    /**
     * A Parquet {@code --input} must be readable and hold what the spec reads: for positional
     * columns a column for every field of the layout (its input.parquet_columns), of a type the
     * field can take; for a spec of named fields, values its columns can take at their paths (a
     * path the file lacks is noted on {@code err}: its column reads missing values). A file without
     * page checksums is noted on {@code err}, as {@code command} says it.
     */
    public static void parquetInput(
            Path input, PipelineSpec spec, String command, PrintStream err) {
        String file = input.toAbsolutePath().toString();
        try {
            EventFields events = SpecCompiler.events(spec);
            if (events == null) {
                ParquetFileSource.check(file, spec.layout(), spec.input().parquetColumns());
            } else {
                for (String column : ParquetFileSource.checkEvents(file, events).absent()) {
                    err.println(
                            command
                                    + ": note: "
                                    + input
                                    + " has no column at the path of "
                                    + column
                                    + "; every row reads it as missing (its fill)");
                }
            }
            if (!ParquetFiles.hasPageChecksums(file)) {
                err.println(
                        command
                                + ": note: "
                                + input
                                + " has no page checksums; a damaged page cannot be told from"
                                + " good data (files written by piper convert have them)");
            }
        } catch (IllegalArgumentException e) {
            throw JobArgumentException.of("--input", e.getMessage());
        } catch (IOException | RuntimeException e) {
            throw JobArgumentException.of(
                    "--input", input + " is not a readable Parquet file: " + e.getMessage());
        }
    }

    /**
     * Refuses a program whose tables and bounded vocabularies ({@link SpecResources}) a job in this
     * JVM's heap (the embedded cluster) cannot hold with {@code decoders} decoders; the message
     * names {@code option} and the largest resources.
     */
    public static void resources(String option, ColumnProgram program, int decoders) {
        SpecResources.of(program)
                .problem(Runtime.getRuntime().maxMemory(), decoders)
                .ifPresent(
                        why -> {
                            throw JobArgumentException.of(
                                    option,
                                    why
                                            + " (a larger heap: PIPER_JAVA_OPTS=-Xmx...; or"
                                            + " smaller tables)");
                        });
    }

    /** {@code --parallelism} must be at least 1. */
    public static int parallelism(Integer parallelism) {
        if (parallelism < 1) {
            throw JobArgumentException.of(
                    ClusterArgs.PARALLELISM, "must be at least 1, not " + parallelism);
        }
        return parallelism;
    }
}
