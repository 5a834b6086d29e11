package dev.piper.job.args;

import java.io.PrintWriter;
import java.util.List;

/**
 * A program the command line runs by name without depending on its module: found at run time
 * through {@link java.util.ServiceLoader} (a {@code META-INF/services/dev.piper.job.args.Program}
 * file in its jar), its options declared as {@link JobOption}s, from which the command line builds
 * its parser, {@code --help} and docs/OPERATIONS.md. ({@code piper bench} is one: the command line
 * has its module on the run-time class path only.)
 */
public interface Program {

    /** The command's name: {@code bench}. */
    String name();

    /** Its description for {@code --help}: one paragraph per element. */
    List<String> description();

    /** Its options, in the order {@code --help} shows them. */
    List<JobOption> options();

    /**
     * Runs it.
     *
     * @return the exit code: 0 done, 1 failed
     * @throws JobArgumentException naming an option whose value it cannot take (a usage error)
     */
    int run(JobArgs args, Context context) throws Exception;

    /**
     * Where it writes its results (its progress goes to standard error), and how to start a process
     * like this one.
     *
     * @param out its results
     * @param relaunch the command that started this process, up to its main class (the same java,
     *     JVM flags and class path): a program that measures a whole new process appends its
     *     arguments
     */
    record Context(PrintWriter out, List<String> relaunch) {}
}
