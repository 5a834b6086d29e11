package dev.piper.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code bin/piper}: the one entry point. */
@Command(
        name = "piper",
        mixinStandardHelpOptions = true,
        versionProvider = PiperCli.Version.class,
        description = "Online preprocessing for recommendation-model training, on Apache Flink.",
        subcommands = {
            PreprocessCommand.class,
            ReportCommand.class,
            GenerateCommand.class,
            ConvertCommand.class,
            DemoCommand.class,
            BenchCommand.class,
            KafkaCommand.class,
            ProduceCommand.class,
            StreamCommand.class,
            ConsumeCommand.class,
            SpecCommand.class,
            ClusterCommand.class,
            SubmitCommand.class,
            JobCommand.class,
            CommandLine.HelpCommand.class
        })
public final class PiperCli implements Runnable {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line; returns the exit code (0 ok, 1 failure, 2 bad usage). */
    public static int execute(String... args) {
        return configure(new CommandLine(new PiperCli())).execute(args);
    }

    /** The error handling every piper command line shares. */
    static CommandLine configure(CommandLine cli) {
        cli.setParameterExceptionHandler(PiperCli::oneLineUsageError);
        cli.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    commandLine
                            .getErr()
                            .println(commandLine.getCommandName() + ": error: " + message(e));
                    return CommandLine.ExitCode.SOFTWARE;
                });
        return cli;
    }

    /** A bad argument: one line naming it, exit code 2. */
    private static int oneLineUsageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(
                qualifiedName(cmd)
                        + ": "
                        + e.getMessage()
                        + " (see '"
                        + qualifiedName(cmd)
                        + " --help')");
        return CommandLine.ExitCode.USAGE;
    }

    private static String qualifiedName(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName();
    }

    /**
     * The failure in one line: its message and, when the cause at the bottom of its chain says
     * something else (a full disk under a failed job, a record too large under a failed send), that
     * root cause too.
     */
    static String message(Throwable e) {
        String top = text(e);
        Throwable root = e;
        for (int depth = 0;
                root.getCause() != null && root.getCause() != root && depth < 32;
                depth++) {
            root = root.getCause();
        }
        if (root != e && !top.contains(text(root))) {
            top += " (cause: " + root.getClass().getSimpleName() + ": " + text(root) + ")";
        }
        return top.replace('\n', ' ');
    }

    private static String text(Throwable e) {
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() == null) {
            // Java names only the path: say what happened to it
            String what =
                    e instanceof java.nio.file.AccessDeniedException
                            ? "permission denied"
                            : e instanceof java.nio.file.NoSuchFileException
                                    ? "no such file or directory"
                                    : e instanceof java.nio.file.FileAlreadyExistsException
                                            ? "already exists"
                                            : e instanceof java.nio.file.DirectoryNotEmptyException
                                                    ? "directory not empty"
                                                    : e.getClass().getSimpleName();
            return f.getFile()
                    + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile())
                    + ": "
                    + what;
        }
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m;
    }

    /** Prints the project version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = PiperCli.class.getPackage().getImplementationVersion();
            return new String[] {"piper " + (v == null ? "(development build)" : v)};
        }
    }
}
