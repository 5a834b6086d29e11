package dev.piper.job.launch;

import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.connectors.parquet.source.ParquetFileSource;
import dev.piper.job.args.JobArgumentException;
import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.spec.PipelineSpec;
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
     * A Parquet {@code --input} must be readable and hold a column for every field of the spec's
     * layout (its input.parquet_columns), of a type the field can take; a file without page
     * checksums is noted on {@code err}, as {@code command} says it.
     */
    public static void parquetInput(
            Path input, PipelineSpec.Input spec, String command, PrintStream err) {
        if (InputFormat.of(spec.format()).map(InputFormat::namedFields).orElse(false)) {
            throw JobArgumentException.of(
                    "--input",
                    input
                            + " is read as Parquet, but the spec's input.format is "
                            + spec.format()
                            + ": Parquet input takes a spec of positional columns (criteo-tsv),"
                            + " whose input.parquet_columns name the columns read");
        }
        try {
            ParquetFileSource.check(
                    input.toAbsolutePath().toString(), spec.layout(), spec.parquetColumns());
            if (!ParquetFiles.hasPageChecksums(input.toAbsolutePath().toString())) {
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
