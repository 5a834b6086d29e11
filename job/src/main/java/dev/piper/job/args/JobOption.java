package dev.piper.job.args;

import java.time.Duration;
import java.util.Objects;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.util.TimeUtils;

/**
 * One option of a job's arguments ({@code piper preprocess}, {@code piper stream}, and the job
 * jar's entry class on a cluster): declared once here, parsed by {@link JobArgs} in the job jar and
 * shown and parsed by the command line's picocli model, which is built from these declarations.
 *
 * @param name the option, with its dashes: {@code --block-bytes}
 * @param label what its value is, for help ({@code B}, {@code PATH}); {@code null} for a flag,
 *     which takes no value
 * @param defaultValue the value when it is not given, as text; {@code null}: none
 * @param required whether it must be given
 * @param repeatable whether it may be given more than once (each value is kept, in order)
 * @param description one paragraph for {@code --help} and docs/OPERATIONS.md, in which {@code
 *     ${DEFAULT-VALUE}} stands for the default
 * @param setting the job setting this option sets to its value as given ({@link JobArgs#settings}),
 *     so that the job reads it from its configuration with no code between; {@code null}: the
 *     program reads the option itself
 */
public record JobOption(
        String name,
        String label,
        String defaultValue,
        boolean required,
        boolean repeatable,
        String description,
        ConfigOption<?> setting) {

    public JobOption {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        if (!name.startsWith("--")) {
            throw new IllegalArgumentException("an option's name starts with --: " + name);
        }
        if (label == null && (defaultValue != null || required || repeatable || setting != null)) {
            throw new IllegalArgumentException(name + ": a flag has no default and no value");
        }
    }

    /** A flag: given or not, no value. */
    public static JobOption flag(String name, String description) {
        return new JobOption(name, null, null, false, false, description, null);
    }

    /** An option with one value and no default. */
    public static JobOption value(String name, String label, String description) {
        return new JobOption(name, label, null, false, false, description, null);
    }

    /** An option with one value and a default. */
    public static JobOption value(
            String name, String label, String defaultValue, String description) {
        return new JobOption(name, label, defaultValue, false, false, description, null);
    }

    /** An option that must be given, once. */
    public static JobOption required(String name, String label, String description) {
        return new JobOption(name, label, null, true, false, description, null);
    }

    /** An option that may be given any number of times. */
    public static JobOption repeatable(String name, String label, String description) {
        return new JobOption(name, label, null, false, true, description, null);
    }

    /**
     * An option that sets the job setting {@code setting} to its value, with the setting's default
     * as its own.
     */
    public static JobOption setting(
            String name, String label, ConfigOption<?> setting, String description) {
        String defaultValue = null;
        if (setting.hasDefaultValue()) {
            Object d = setting.defaultValue();
            defaultValue =
                    d instanceof Duration duration
                            ? TimeUtils.formatWithHighestUnit(duration).replace(" ", "")
                            : d instanceof Enum<?> e ? e.name() : String.valueOf(d);
        }
        return new JobOption(name, label, defaultValue, false, false, description, setting);
    }

    /** Whether it takes no value. */
    public boolean isFlag() {
        return label == null;
    }

    /** How a message names it with its value: {@code '--block-bytes=B'}. */
    String synopsis() {
        return "'" + name + (isFlag() ? "" : "=" + label) + "'";
    }
}
