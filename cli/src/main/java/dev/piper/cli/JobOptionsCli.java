package dev.piper.cli;

import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The job's options ({@link JobOption}, declared once in the job module) on the command line: each
 * command that takes some says which, {@link PiperCli#configure} adds them to its picocli model
 * (for parsing, {@code --help}, the nearest-option hint and docs/OPERATIONS.md), and the command
 * reads what matched as the job's {@link JobArgs}.
 */
final class JobOptionsCli {

    /** A command that takes job options besides its own picocli ones. */
    interface Taking {
        List<JobOption> jobOptions();
    }

    private JobOptionsCli() {}

    /** Adds the job options of every command under {@code cli} that takes some. */
    static void addTo(CommandLine cli) {
        if (cli.getCommand() instanceof Taking taking) {
            CommandSpec spec = cli.getCommandSpec();
            for (JobOption o : taking.jobOptions()) {
                if (spec.optionsMap().containsKey(o.name())) {
                    throw new IllegalStateException(
                            spec.qualifiedName() + ": option " + o.name() + " declared twice");
                }
                spec.addOption(optionSpec(o));
            }
        }
        cli.getSubcommands().values().forEach(JobOptionsCli::addTo);
    }

    private static OptionSpec optionSpec(JobOption o) {
        // picocli's descriptions are format strings: a % is written %%
        OptionSpec.Builder b =
                OptionSpec.builder(o.name())
                        .description(o.description().replace("%", "%%"))
                        .required(o.required());
        if (o.isFlag()) {
            return b.type(boolean.class).arity("0").build();
        }
        b.paramLabel(o.label()).defaultValue(o.defaultValue());
        return (o.repeatable() ? b.type(String[].class).arity("1") : b.type(String.class)).build();
    }

    /** What the command of {@code spec} was given of its job options. */
    static JobArgs args(CommandSpec spec) {
        List<JobOption> options = ((Taking) spec.userObject()).jobOptions();
        ParseResult parsed = spec.commandLine().getParseResult();
        Map<String, List<String>> given = new LinkedHashMap<>();
        for (JobOption o : options) {
            OptionSpec matched = parsed.matchedOption(o.name());
            if (matched != null) {
                given.put(o.name(), o.isFlag() ? List.of("true") : matched.originalStringValues());
            }
        }
        return JobArgs.of(options, given);
    }
}
