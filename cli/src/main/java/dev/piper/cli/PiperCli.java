package dev.piper.cli;

import dev.piper.job.args.JobArgumentException;
import java.io.PrintWriter;
import java.util.List;
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
            KafkaCommand.class,
            ProduceCommand.class,
            StreamCommand.class,
            ConsumeCommand.class,
            HotlineCommand.class,
            SpecCommand.class,
            ClusterCommand.class,
            SubmitCommand.class,
            JobCommand.class,
            ServeCommand.class,
            VocabCommand.class,
            SkewCheckCommand.class
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
        CommandLine cli = configure(new CommandLine(new PiperCli()));
        try {
            return cli.execute(args);
        } catch (Error e) {
            // picocli's handler takes exceptions only: an Error (out of memory when the embedded
            // cluster allocates its network buffers) ended the main thread with a stack trace,
            // and the cluster's threads kept the JVM alive. Say it in one line and exit.
            CommandLine.ParseResult command = cli.getParseResult();
            while (command != null && command.subcommand() != null) {
                command = command.subcommand();
            }
            String name = command == null ? "piper" : command.commandSpec().name();
            cli.getErr().println(name + ": error: " + message(e));
            cli.getErr().flush();
            return CommandLine.ExitCode.SOFTWARE;
        }
    }

    /** The error handling every piper command line shares. */
    static CommandLine configure(CommandLine cli) {
        // the programs found at run time (bench), then help, last in --help's list
        ProgramCommands.addTo(cli);
        cli.addSubcommand("help", new CommandLine.HelpCommand());
        JobOptionsCli.addTo(cli);
        cli.setParameterExceptionHandler(PiperCli::oneLineUsageError);
        cli.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    if (e instanceof JobArgumentException bad) {
                        // a job option's value, refused by the job's own checks: a usage error
                        return oneLineUsageError(
                                new CommandLine.ParameterException(commandLine, bad.getMessage()),
                                parseResult.originalArgs().toArray(String[]::new));
                    }
                    commandLine
                            .getErr()
                            .println(commandLine.getCommandName() + ": error: " + message(e));
                    return CommandLine.ExitCode.SOFTWARE;
                });
        return cli;
    }

    /**
     * A bad argument: one line naming it, exit code 2. An unknown option is named first, with the
     * nearest known one ({@code --inpt} was reported as a missing {@code --input}).
     */
    private static int oneLineUsageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        String what = e.getMessage();
        List<String> unknown =
                cmd.getParseResult() == null
                        ? List.of()
                        : cmd.getParseResult().unmatched().stream()
                                .filter(a -> a.startsWith("-"))
                                .toList();
        if (!unknown.isEmpty()) {
            String first = unknown.get(0).split("=", 2)[0];
            what =
                    "Unknown option: '"
                            + first
                            + "'"
                            + nearestOption(cmd, first)
                                    .map(o -> " (did you mean " + o + "?)")
                                    .orElse("");
        }
        err.println(
                qualifiedName(cmd) + ": " + what + " (see '" + qualifiedName(cmd) + " --help')");
        return CommandLine.ExitCode.USAGE;
    }

    /** The command's option nearest to {@code typed}, if one is within two edits of it. */
    static java.util.Optional<String> nearestOption(CommandLine cmd, String typed) {
        String best = null;
        int bestDistance = 3;
        for (String name : cmd.getCommandSpec().optionsMap().keySet()) {
            int d = distance(typed, name);
            if (d < bestDistance) {
                best = name;
                bestDistance = d;
            }
        }
        return java.util.Optional.ofNullable(best);
    }

    /** Levenshtein distance, with a swap of two neighbours counted as one edit. */
    private static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] =
                        Math.min(
                                Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1
                        && j > 1
                        && a.charAt(i - 1) == b.charAt(j - 2)
                        && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
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
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                String named = top.contains("OutOfMemoryError") ? "" : "OutOfMemoryError: ";
                top = named + shortened(top) + outOfMemory(top);
                break;
            }
        }
        return top.replace('\n', ' ');
    }

    /**
     * What to do about a JVM that ran out of memory, after the error's own words: {@code message}
     * says whether the heap or direct memory (the embedded cluster's network buffers) ran out.
     */
    static String outOfMemory(String message) {
        String what =
                message.contains("irect buffer memory") || message.contains("direct memory")
                        ? "direct memory (the embedded Flink cluster's network buffers alone take"
                                + " 128 MiB; the limit is the heap's, "
                        : "memory (heap: ";
        return "; the JVM ran out of "
                + what
                + Runtime.getRuntime().maxMemory() / (1 << 20)
                + " MiB): give it more with PIPER_JAVA_OPTS=-Xmx8g (bin/piper), or keep the"
                + " vocabularies out of the heap with --state-backend rocksdb"
                + " (docs/OPERATIONS.md, \"Memory\")";
    }

    /** A message of Flink's that explains at length, cut after its first two sentences. */
    private static String shortened(String message) {
        if (message.length() <= 300) {
            return message;
        }
        int end = message.indexOf(". ");
        end = end < 0 ? -1 : message.indexOf(". ", end + 2);
        return end < 0 ? message : message.substring(0, end + 1) + " ...";
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
