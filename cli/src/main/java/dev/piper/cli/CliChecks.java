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

    /**
     * A size such as {@code 512m}, {@code 4g}, {@code 65536} or {@code 64k} (binary units, as the
     * JVM's {@code -Xmx}), in bytes.
     *
     * @throws IllegalArgumentException if it is not one
     */
    static long size(String text) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("([0-9]+)\\s*([kmgt]?)b?")
                        .matcher(text.trim().toLowerCase(java.util.Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: " + text);
        }
        int shift = "_kmgt".indexOf(m.group(2).isEmpty() ? "_" : m.group(2)) * 10;
        return Math.multiplyExact(Long.parseLong(m.group(1)), 1L << shift);
    }

    /** {@code --parallelism} must be at least 1. */
    static void parallelism(CommandLine cmd, int parallelism) {
        if (parallelism < 1) {
            throw new ParameterException(
                    cmd, "--parallelism: must be at least 1, not " + parallelism);
        }
    }
}
