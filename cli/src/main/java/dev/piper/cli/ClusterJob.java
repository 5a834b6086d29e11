package dev.piper.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The entry class of the job jar ({@code piper-job-VERSION-flink.jar}): what a Flink cluster runs
 * for {@code POST /jars/:id/run}, {@code flink run} or the Kubernetes operator's application mode.
 * Its arguments are those of {@code piper preprocess} or {@code piper stream}, which then build
 * their job, submit it to that cluster and return without waiting for it.
 *
 * <p>It never calls {@link System#exit}: it runs inside the JobManager's JVM. A bad argument or a
 * refused job is an exception whose message is the one line the command line would print, so that
 * it reaches the submitter (the REST response, {@code flink run}, the operator's events).
 */
@Command(
        name = "piper",
        mixinStandardHelpOptions = true,
        versionProvider = PiperCli.Version.class,
        description =
                "The piper job jar's entry class: runs 'preprocess' or 'stream' on a cluster.",
        subcommands = {PreprocessCommand.class, StreamCommand.class})
public final class ClusterJob implements Runnable {

    @CommandLine.Spec CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "name the job to run: preprocess or stream");
    }

    public static void main(String[] args) {
        StringWriter err = new StringWriter();
        int code = execute(new PrintWriter(err, true), args);
        System.err.print(err);
        if (code != 0) {
            throw new IllegalArgumentException(err.toString().strip());
        }
    }

    /** Runs the job's program; its errors go to {@code err}; returns the command line's code. */
    static int execute(PrintWriter err, String... args) {
        CommandLine cli = PiperCli.configure(new CommandLine(new ClusterJob()));
        cli.setErr(err);
        return cli.execute(args);
    }

    /**
     * Parses {@code args} as the job jar would, without running anything, so that a submitter can
     * refuse a mistyped option before uploading the jar.
     *
     * @return the job's command: {@code preprocess} or {@code stream}
     * @throws CommandLine.ParameterException naming the bad argument
     */
    static String check(String... args) {
        CommandLine cli = new CommandLine(new ClusterJob());
        CommandLine.ParseResult parsed = cli.parseArgs(args);
        if (!parsed.hasSubcommand()) {
            throw new CommandLine.ParameterException(
                    cli, "name the job to run: preprocess or stream");
        }
        CommandLine.ParseResult job = parsed.subcommand();
        String name = job.commandSpec().name();
        if (parsed.isUsageHelpRequested()
                || parsed.isVersionHelpRequested()
                || job.isUsageHelpRequested()
                || job.isVersionHelpRequested()) {
            throw new CommandLine.ParameterException(
                    cli, "--help and --version run no job; see 'piper " + name + " --help'");
        }
        return name;
    }
}
