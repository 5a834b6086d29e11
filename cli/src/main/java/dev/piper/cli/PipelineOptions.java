package dev.piper.cli;

import dev.piper.job.PiperOptions;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The options that choose the pipeline of {@code preprocess} and {@code stream}: a spec file, or
 * the built-in DLRM spec with its three settings.
 */
final class PipelineOptions {

    /** The options a spec defines, which therefore must not be given next to it. */
    static final List<String> DEFINED_BY_SPEC =
            List.of("--max-ind-range", "--pad-missing-fields", "--max-line-bytes");

    @Option(
            names = "--max-ind-range",
            paramLabel = "M",
            defaultValue = "-1",
            description =
                    "Categorical key = id mod M when M > 0; -1 keeps the id (default: ${DEFAULT-VALUE}).")
    long maxIndRange;

    @Option(
            names = "--pad-missing-fields",
            description =
                    "Treat absent trailing fields as missing values instead of rejecting the line.")
    boolean padMissingFields;

    @Option(
            names = "--max-line-bytes",
            paramLabel = "B",
            defaultValue = "" + DecodeOptions.DEFAULT_MAX_LINE_BYTES,
            description =
                    "Longest accepted line in bytes; longer ones are dead letters (default: ${DEFAULT-VALUE}).")
    int maxLineBytes;

    @Option(
            names = "--spec",
            paramLabel = "FILE",
            description =
                    "A pipeline spec (docs/SPECS.md) defining each column's operators; default:"
                            + " the built-in DLRM Criteo spec with --max-ind-range,"
                            + " --pad-missing-fields and --max-line-bytes.")
    Path file;

    @Option(
            names = "--preset",
            paramLabel = "NAME",
            description =
                    "A spec that ships with piper instead of --spec: dlrm-criteo, or PreSto's"
                            + " feature mixes rm1..rm5 (docs/SPECS.md, \"Presets\").")
    String preset;

    /** Refuses the options a spec defines ({@link #DEFINED_BY_SPEC}) next to {@code what}. */
    private static void refuseDefinedBySpec(CommandLine cmd, String what) {
        for (String option : DEFINED_BY_SPEC) {
            if (cmd.getParseResult().hasMatchedOption(option)) {
                throw new ParameterException(cmd, option + " cannot be combined with " + what);
            }
        }
    }

    /**
     * Puts the pipeline into {@code conf}: the validated spec, or the built-in spec's settings.
     *
     * @throws ParameterException naming every problem of the spec, an option it conflicts with, or
     *     a bad value
     */
    void apply(CommandLine cmd, Configuration conf) {
        if (preset != null) {
            if (file != null) {
                throw new ParameterException(cmd, "--preset cannot be combined with --spec");
            }
            refuseDefinedBySpec(cmd, "--preset, whose spec defines it");
            try {
                conf.set(
                        PiperOptions.SPEC,
                        new String(Presets.named(preset).text(), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(cmd, "--preset: " + e.getMessage());
            }
            return;
        }
        if (file == null) {
            if (maxLineBytes < 1) {
                throw new ParameterException(
                        cmd, "--max-line-bytes: must be at least 1, not " + maxLineBytes);
            }
            conf.set(PiperOptions.MAX_IND_RANGE, maxIndRange);
            conf.set(PiperOptions.PAD_MISSING_FIELDS, padMissingFields);
            conf.set(PiperOptions.MAX_LINE_BYTES, maxLineBytes);
            return;
        }
        refuseDefinedBySpec(cmd, "--spec, which defines it");
        byte[] text;
        try {
            text = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ParameterException(
                    cmd, "--spec: cannot read " + file + ": " + e.getMessage());
        }
        PipelineSpec parsed;
        try {
            parsed = SpecParser.parse(text, file.toString());
        } catch (SpecException e) {
            throw new ParameterException(cmd, "--spec: " + e.getMessage());
        }
        List<String> files = PiperOptions.fileProblems(parsed);
        if (!files.isEmpty()) {
            throw new ParameterException(cmd, "--spec " + file + ": " + String.join("; ", files));
        }
        conf.set(PiperOptions.SPEC, new String(text, StandardCharsets.UTF_8));
    }
}
