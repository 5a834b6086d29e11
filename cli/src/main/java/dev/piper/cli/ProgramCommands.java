package dev.piper.cli;

import dev.piper.job.args.JobOption;
import dev.piper.job.args.Program;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The {@link Program}s on the class path as commands: found through {@link ServiceLoader} (so the
 * command line needs their modules at run time only; {@code bench} is one), each a picocli command
 * whose options {@link JobOptionsCli} builds from the program's declarations.
 */
final class ProgramCommands {

    private ProgramCommands() {}

    /** Adds a command to {@code cli} for each program on the class path, in the loader's order. */
    static void addTo(CommandLine cli) {
        for (Program program : ServiceLoader.load(Program.class)) {
            Command command = new Command(program);
            CommandSpec spec = CommandSpec.wrapWithoutInspection(command);
            spec.name(program.name()).mixinStandardHelpOptions(true);
            // picocli's descriptions are format strings: a % is written %%
            spec.usageMessage()
                    .description(
                            program.description().stream()
                                    .map(d -> d.replace("%", "%%"))
                                    .toArray(String[]::new));
            command.spec = spec;
            cli.addSubcommand(program.name(), new CommandLine(spec));
        }
    }

    /** A program as a command: its options are job options ({@link JobOptionsCli#addTo}). */
    static final class Command implements Callable<Integer>, JobOptionsCli.Taking {
        private final Program program;
        private CommandSpec spec;

        Command(Program program) {
            this.program = program;
        }

        @Override
        public List<JobOption> jobOptions() {
            return program.options();
        }

        @Override
        public Integer call() throws Exception {
            return program.run(
                    JobOptionsCli.args(spec),
                    new Program.Context(spec.commandLine().getOut(), thisCommand()));
        }
    }

    /**
     * The command line that started this process, up to its main class: the same java, JVM flags
     * (bin/piper's module flags, class-data archive, log settings) and class path.
     */
    static List<String> thisCommand() {
        List<String> command = new ArrayList<>();
        command.add(
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(
                                Path.of(System.getProperty("java.home"), "bin", "java")
                                        .toString()));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(PiperCli.class.getName());
        return command;
    }
}
