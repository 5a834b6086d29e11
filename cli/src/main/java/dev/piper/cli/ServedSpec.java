package dev.piper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The spec whose vocabularies a serving command reads ({@code serve}, {@code vocab snapshot}): from
 * {@code --spec}, {@code --preset} or the built-in one; and the check that a batch output was made
 * by it.
 */
final class ServedSpec {

    private ServedSpec() {}

    /** The spec: {@code specFile}, {@code preset} or the built-in one. */
    static PipelineSpec of(CommandSpec spec, Path specFile, String preset) throws IOException {
        if (specFile != null && preset != null) {
            throw new ParameterException(spec.commandLine(), "--spec and --preset: give one");
        }
        try {
            return specFile != null
                    ? SpecParser.parse(specFile)
                    : preset != null ? Presets.named(preset).spec() : SpecParser.builtin();
        } catch (SpecException | IllegalArgumentException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    (specFile != null ? "--spec: " : "--preset: ") + e.getMessage());
        }
    }

    /** {@code name/version}, as rows records and snapshots name a pipeline. */
    static String label(PipelineSpec pipeline) {
        return pipeline.name() + "/" + pipeline.version();
    }

    /**
     * Refuses an output made by another spec (its metadata.json's pipeline name and version): its
     * vocabularies would give other keys' indices.
     *
     * @throws IOException naming the directory, the spec that made it and the one given
     */
    static void checkMadeBy(Path dir, PipelineSpec pipeline) throws IOException {
        Path metadata = dir.resolve("metadata.json");
        if (!Files.isRegularFile(metadata)) {
            throw new IOException(metadata + " is missing: not a finished output");
        }
        JsonNode made = new ObjectMapper().readTree(metadata.toFile()).path("pipeline");
        String name = made.path("name").asText("");
        int version = made.path("version").asInt(-1);
        if (!name.equals(pipeline.name()) || version != pipeline.version()) {
            throw new IOException(
                    dir
                            + " was made by spec "
                            + name
                            + " version "
                            + version
                            + ", not by "
                            + pipeline.name()
                            + " version "
                            + pipeline.version()
                            + ": its vocabularies are another pipeline's (use that spec)");
        }
    }
}
