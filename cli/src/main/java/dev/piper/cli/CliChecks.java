package dev.piper.cli;

import dev.piper.connectors.parquet.ParquetFileSource;
import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecResources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** Checks of option values that several commands share, each naming its option. */
final class CliChecks {

    private CliChecks() {}

    /**
     * {@code --input} must be a readable file: a regular one, or one read as a stream (a pipe, a
     * pseudo-file such as {@code /proc/...}), not a directory.
     */
    static void inputFile(CommandLine cmd, Path input) {
        if (!Files.exists(input) || Files.isDirectory(input) || !Files.isReadable(input)) {
            throw new ParameterException(cmd, "--input: " + input + " is not a readable file");
        }
    }

    /**
     * A Parquet {@code --input} must be readable and hold a column for every field of the spec's
     * layout ({@code columns}: its input.parquet_columns), of a type the field can take.
     */
    static void parquetInput(CommandLine cmd, Path input, PipelineSpec.Input spec) {
        try {
            ParquetFileSource.check(
                    input.toAbsolutePath().toString(), spec.layout(), spec.parquetColumns());
            if (!ParquetFiles.hasPageChecksums(input.toAbsolutePath().toString())) {
                cmd.getErr()
                        .println(
                                cmd.getCommandName()
                                        + ": note: "
                                        + input
                                        + " has no page checksums; a damaged page cannot be"
                                        + " told from good data (files written by piper convert"
                                        + " have them)");
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd, "--input: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            throw new ParameterException(
                    cmd,
                    "--input: " + input + " is not a readable Parquet file: " + e.getMessage());
        }
    }

    /**
     * Refuses a program whose tables and bounded vocabularies ({@link SpecResources}) the embedded
     * job, which shares this JVM's heap, cannot hold with {@code decoders} decoders; the message
     * names {@code option} and the largest resources.
     */
    static void resources(CommandLine cmd, String option, ColumnProgram program, int decoders) {
        SpecResources.of(program)
                .problem(Runtime.getRuntime().maxMemory(), decoders)
                .ifPresent(
                        why -> {
                            throw new ParameterException(
                                    cmd,
                                    option
                                            + ": "
                                            + why
                                            + " (a larger heap: PIPER_JAVA_OPTS=-Xmx...; or"
                                            + " smaller tables)");
                        });
    }

    /** {@code --parallelism} must be at least 1. */
    static void parallelism(CommandLine cmd, int parallelism) {
        if (parallelism < 1) {
            throw new ParameterException(
                    cmd, "--parallelism: must be at least 1, not " + parallelism);
        }
    }
}
