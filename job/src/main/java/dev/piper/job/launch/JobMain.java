package dev.piper.job.launch;

import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import java.util.Arrays;
import java.util.List;

/**
 * The entry class of the job jar ({@code piper-job-VERSION-flink.jar}): what a Flink cluster runs
 * for {@code POST /jars/:id/run}, {@code flink run} or the Kubernetes operator's application mode.
 * Its arguments are a program, {@code preprocess} or {@code stream}, and that program's options, as
 * {@code piper preprocess} and {@code piper stream} take them; it checks them, builds the job,
 * submits it to the cluster it runs on and returns without waiting for it.
 *
 * <p>It never calls {@link System#exit}: it runs inside the JobManager's JVM. A bad argument or a
 * refused job is an exception whose message is one line naming the program and the cause, so that
 * it reaches the submitter (the REST response, {@code flink run}, the operator's events).
 */
public final class JobMain {

    /** The programs, by name. */
    static final List<String> PROGRAMS = List.of(PreprocessProgram.NAME, StreamProgram.NAME);

    private JobMain() {}

    public static void main(String[] args) throws Exception {
        JobArgs parsed;
        try {
            parsed = checked(args);
        } catch (IllegalArgumentException e) {
            String named = args.length > 0 && PROGRAMS.contains(args[0]) ? args[0] : "";
            throw new IllegalArgumentException(
                    named.isEmpty()
                            ? "piper: " + e.getMessage()
                            : "piper " + named + ": " + e.getMessage() + seeHelp(named));
        }
        String program = args[0];
        try {
            if (program.equals(PreprocessProgram.NAME)) {
                PreprocessProgram.Run run = PreprocessProgram.check(parsed, System.err);
                PreprocessProgram.submit(parsed, run, System.out);
            } else {
                // No lock: this program ends once the job is submitted, and the cluster, which
                // may restart or restore the job at any time, owns the directory from then on.
                StreamProgram.Ready ready = StreamProgram.prepare(parsed, true, System.err);
                StreamProgram.submit(ready, System.out);
            }
        } catch (JobArgumentException e) {
            // without its cause: the REST API answers with the innermost one
            throw new IllegalArgumentException(
                    "piper " + program + ": " + e.getMessage() + seeHelp(program));
        } catch (Exception e) {
            throw new IllegalStateException(program + ": error: " + oneLine(e), e);
        }
    }

    /**
     * Parses {@code args} as the job jar does, without running anything, so that a submitter can
     * refuse a mistyped option before uploading the jar.
     *
     * @return the program: {@code preprocess} or {@code stream}
     * @throws IllegalArgumentException naming the bad argument: {@code Unknown option:
     *     '--inptu-topic'}
     */
    public static String check(String... args) {
        checked(args);
        return args[0];
    }

    /** The arguments of the program {@code args} names, parsed once; refused as {@link #check}. */
    private static JobArgs checked(String[] args) {
        if (args.length == 0 || !PROGRAMS.contains(args[0])) {
            throw new IllegalArgumentException(
                    "name the job to run: preprocess or stream"
                            + (args.length == 0 ? "" : ", not '" + args[0] + "'"));
        }
        String program = args[0];
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h") || a.equals("--version") || a.equals("-V")) {
                throw new IllegalArgumentException(
                        "--help and --version run no job; see 'piper " + program + " --help'");
            }
        }
        return parse(args);
    }

    private static String seeHelp(String program) {
        return " (see 'piper " + program + " --help')";
    }

    private static JobArgs parse(String[] args) {
        List<String> options = Arrays.asList(args).subList(1, args.length);
        return JobArgs.parse(
                args[0].equals(PreprocessProgram.NAME)
                        ? PreprocessProgram.OPTIONS
                        : StreamProgram.OPTIONS,
                options);
    }

    /** The failure's message in one line, with its root cause where that says more. */
    private static String oneLine(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String top = String.valueOf(e.getMessage());
        if (root != e && root.getMessage() != null && !top.contains(root.getMessage())) {
            top += " (cause: " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        }
        return top.replace('\n', ' ');
    }
}
