package dev.piper.job.cli;

import dev.piper.job.PiperOptions;
import dev.piper.job.spec.SpecException;
import dev.piper.job.spec.SpecParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --spec FILE} of the commands that run a pipeline. */
final class SpecOption {

    /** The options a spec defines, which therefore must not be given next to it. */
    static final List<String> DEFINED_BY_SPEC =
            List.of("--max-ind-range", "--pad-missing-fields", "--max-line-bytes");

    @Option(
            names = "--spec",
            paramLabel = "FILE",
            description =
                    "A pipeline spec (docs/SPECS.md) defining each column's operators; default:"
                            + " the built-in DLRM Criteo spec with the options below.")
    Path file;

    /**
     * Puts the validated spec into {@code conf}, or returns false if there is none.
     *
     * @throws ParameterException naming every problem of the spec, or an option it conflicts with
     */
    boolean apply(CommandLine cmd, Configuration conf) {
        if (file == null) {
            return false;
        }
        for (String option : DEFINED_BY_SPEC) {
            if (cmd.getParseResult().hasMatchedOption(option)) {
                throw new ParameterException(
                        cmd, option + " cannot be combined with --spec, which defines it");
            }
        }
        byte[] text;
        try {
            text = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ParameterException(
                    cmd, "--spec: cannot read " + file + ": " + e.getMessage());
        }
        try {
            SpecParser.parse(text, file.toString());
        } catch (SpecException e) {
            throw new ParameterException(cmd, "--spec: " + e.getMessage());
        }
        conf.set(PiperOptions.SPEC, new String(text, StandardCharsets.UTF_8));
        return true;
    }
}
