package dev.piper.job.launch;

import dev.piper.job.PiperOptions;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import dev.piper.job.args.JobOption;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.configuration.Configuration;

/**
 * The options that choose the pipeline of {@code preprocess}, {@code stream} and {@code report}: a
 * spec file, a preset, or the built-in DLRM spec with its three settings.
 */
public final class PipelineArgs {

    static final String MAX_IND_RANGE = "--max-ind-range";
    static final String PAD_MISSING_FIELDS = "--pad-missing-fields";
    static final String MAX_LINE_BYTES = "--max-line-bytes";
    static final String SPEC = "--spec";
    static final String PRESET = "--preset";

    /** The options a spec defines, which therefore must not be given next to it. */
    static final List<String> DEFINED_BY_SPEC =
            List.of(MAX_IND_RANGE, PAD_MISSING_FIELDS, MAX_LINE_BYTES);

    public static final List<JobOption> OPTIONS =
            List.of(
                    JobOption.value(
                            MAX_IND_RANGE,
                            "M",
                            "-1",
                            "Categorical key = id mod M when M > 0; -1 keeps the id (default:"
                                    + " ${DEFAULT-VALUE})."),
                    JobOption.flag(
                            PAD_MISSING_FIELDS,
                            "Treat absent trailing fields as missing values instead of rejecting"
                                    + " the line."),
                    JobOption.value(
                            MAX_LINE_BYTES,
                            "B",
                            "" + DecodeOptions.DEFAULT_MAX_LINE_BYTES,
                            "Longest accepted line in bytes; longer ones are dead letters"
                                    + " (default: ${DEFAULT-VALUE})."),
                    JobOption.value(
                            SPEC,
                            "FILE",
                            "A pipeline spec (docs/SPECS.md) defining each column's operators;"
                                    + " default: the built-in DLRM Criteo spec with"
                                    + " --max-ind-range, --pad-missing-fields and"
                                    + " --max-line-bytes."),
                    JobOption.value(
                            PRESET,
                            "NAME",
                            "A spec that ships with piper instead of --spec: dlrm-criteo,"
                                    + " dlrm-criteo-json, dlrm-criteo-avro and dlrm-criteo-csv (its"
                                    + " JSON and Avro events, its CSV), clicks-json, clicks-csv and clicks-avro (the"
                                    + " click events of generate --events), or PreSto's feature"
                                    + " mixes rm1..rm5 (docs/SPECS.md, \"Presets\")."));

    private PipelineArgs() {}

    /** Refuses the options a spec defines ({@link #DEFINED_BY_SPEC}) next to {@code what}. */
    private static void refuseDefinedBySpec(JobArgs args, String what) {
        for (String option : DEFINED_BY_SPEC) {
            if (args.given(option)) {
                throw new JobArgumentException(option + " cannot be combined with " + what);
            }
        }
    }

    /**
     * Puts the pipeline into {@code conf}: the validated spec, or the built-in spec's settings.
     *
     * @throws JobArgumentException naming every problem of the spec, an option it conflicts with,
     *     or a bad value
     */
    public static void apply(JobArgs args, Configuration conf) {
        String preset = args.string(PRESET);
        Path file = args.path(SPEC);
        if (preset != null) {
            if (file != null) {
                throw new JobArgumentException("--preset cannot be combined with --spec");
            }
            refuseDefinedBySpec(args, "--preset, whose spec defines it");
            try {
                conf.set(
                        PiperOptions.SPEC,
                        new String(Presets.named(preset).text(), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                throw JobArgumentException.of(PRESET, e.getMessage());
            }
            return;
        }
        if (file == null) {
            int maxLineBytes = args.integer(MAX_LINE_BYTES);
            if (maxLineBytes < 1) {
                throw JobArgumentException.of(
                        MAX_LINE_BYTES, "must be at least 1, not " + maxLineBytes);
            }
            conf.set(PiperOptions.MAX_IND_RANGE, args.longValue(MAX_IND_RANGE));
            conf.set(PiperOptions.PAD_MISSING_FIELDS, args.flag(PAD_MISSING_FIELDS));
            conf.set(PiperOptions.MAX_LINE_BYTES, maxLineBytes);
            return;
        }
        refuseDefinedBySpec(args, "--spec, which defines it");
        byte[] text;
        try {
            text = Files.readAllBytes(file);
        } catch (IOException e) {
            throw JobArgumentException.of(SPEC, "cannot read " + file + ": " + e.getMessage());
        }
        PipelineSpec parsed;
        try {
            parsed = PiperOptions.parsed(text, file.toString());
        } catch (SpecException e) {
            throw JobArgumentException.of(SPEC, e.getMessage());
        }
        List<String> files = PiperOptions.fileProblems(parsed);
        if (!files.isEmpty()) {
            throw new JobArgumentException("--spec " + file + ": " + String.join("; ", files));
        }
        conf.set(PiperOptions.SPEC, new String(text, StandardCharsets.UTF_8));
    }
}
