package dev.piper.cli;

import dev.piper.cli.cluster.FlinkRest;
import dev.piper.job.launch.JobMain;
import dev.piper.job.launch.PreprocessProgram;
import dev.piper.operators.decode.DecodeMetrics;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code piper submit}: the job jar, uploaded to a Flink cluster and run over its REST API. */
@Command(
        name = "submit",
        mixinStandardHelpOptions = true,
        description = {
            "Upload the job jar to a Flink cluster and run a piper job on it:",
            "  piper submit --rest URL [--parallelism N] -- preprocess --input F --output DIR",
            "  piper submit --rest URL -- stream --bootstrap-servers B --input-topic T ...",
            "The job's arguments (after --) are those of 'piper preprocess' and 'piper stream';"
                    + " paths in them are read and written by the cluster's processes. Prints the"
                    + " job id; follows a preprocess job to its end (exit 1 if it fails) and returns"
                    + " once a stream job runs (stop it with 'piper job stop')."
        })
final class SubmitCommand implements Callable<Integer> {

    /** How often the job's state is read while following it. */
    private static final long POLL_MILLIS = 500;

    private static final long REPORT_NANOS = 10_000_000_000L;

    /** How the job jar's refusal of its arguments reaches us: the cause's message. */
    private static final Pattern REFUSAL =
            Pattern.compile("java\\.lang\\.IllegalArgumentException: (piper .*)");

    @Spec CommandSpec spec;

    @Mixin RestAddress rest;

    @Option(
            names = "--jar",
            paramLabel = "PATH",
            description = "The job jar (default: the build's job/target/piper-job-*-flink.jar).")
    Path jar;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            description =
                    "The job's default parallelism (default: the cluster's parallelism.default,"
                            + " else all its slots).")
    Integer parallelism;

    @Option(
            names = "--from-savepoint",
            paramLabel = "PATH",
            description =
                    "Restore this savepoint or retained checkpoint (as 'piper job stop' prints it).")
    String fromSavepoint;

    @Option(
            names = "--allow-non-restored-state",
            description =
                    "With --from-savepoint: accept state in it that no operator of the job claims.")
    boolean allowNonRestoredState;

    @Option(
            names = "--detached",
            description = "Return once the job is submitted, without following it.")
    boolean detached;

    @Option(
            names = "--running-timeout",
            defaultValue = "120",
            paramLabel = "S",
            description =
                    "Seconds a stream job may take to have all its tasks running (default:"
                            + " ${DEFAULT-VALUE}).")
    int runningTimeoutSeconds;

    @Parameters(
            paramLabel = "JOB-ARGS",
            description = "After --: 'preprocess ...' or 'stream ...' with their options.")
    List<String> jobArgs = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        if (jobArgs.isEmpty()) {
            throw new ParameterException(
                    spec.commandLine(),
                    "name the job after --: preprocess ... or stream ... (see 'piper submit"
                            + " --help')");
        }
        String jobName;
        try {
            jobName = JobMain.check(jobArgs.toArray(String[]::new));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "job arguments: " + e.getMessage());
        }
        if (parallelism != null && parallelism < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--parallelism: must be at least 1, not " + parallelism);
        }
        if (allowNonRestoredState && fromSavepoint == null) {
            throw new ParameterException(
                    spec.commandLine(), "--allow-non-restored-state: needs --from-savepoint");
        }
        Path jobJar = jar != null ? jar : builtJar();
        if (!Files.isRegularFile(jobJar)) {
            throw new ParameterException(
                    spec.commandLine(), "--jar: " + jobJar + " is not a readable file");
        }
        FlinkRest cluster = rest.client(spec.commandLine());
        PrintStream err = System.err;
        var out = spec.commandLine().getOut();
        cluster.overview(); // a missing cluster fails here, before the upload
        int jobParallelism = parallelism != null ? parallelism : cluster.defaultParallelism();
        if (parallelism == null) {
            err.printf(
                    "submit: parallelism %d, the cluster's default (--parallelism to choose)%n",
                    jobParallelism);
        }
        String jarId = cluster.uploadJar(jobJar);
        String jobId;
        try {
            jobId =
                    cluster.run(
                            jarId,
                            JobMain.class.getName(),
                            jobParallelism,
                            jobArgs,
                            fromSavepoint,
                            allowNonRestoredState);
        } catch (FlinkRest.RestException e) {
            // The job jar refuses bad arguments with the one line the command line prints.
            Matcher refusal = REFUSAL.matcher(e.detail());
            if (refusal.matches()) {
                err.println(refusal.group(1));
                return 2;
            }
            err.println("submit: the cluster did not start the job: " + e.getMessage());
            return 1;
        } finally {
            try {
                cluster.deleteJar(jarId); // the job keeps its own copy
            } catch (IOException e) {
                err.println("submit: could not remove the uploaded jar: " + e.getMessage());
            }
        }
        out.printf("submit: job %s submitted to %s%n", jobId, cluster.base());
        out.flush();
        if (detached) {
            out.println(jobId);
            return 0;
        }
        boolean bounded = jobName.equals(PreprocessProgram.NAME);
        return bounded ? followToEnd(cluster, jobId, err) : awaitRunning(cluster, jobId);
    }

    /** Follows a bounded job to its end: 0 if it finished, 1 if it failed or was cancelled. */
    private int followToEnd(FlinkRest cluster, String jobId, PrintStream err)
            throws IOException, InterruptedException {
        String last = "";
        long lastReport = System.nanoTime();
        while (true) {
            FlinkRest.Job job = cluster.job(jobId);
            if (!job.state().equals(last)) {
                err.printf("submit: job %s %s%n", jobId, job.state());
                last = job.state();
            } else if (System.nanoTime() - lastReport > REPORT_NANOS) {
                OptionalLong lines = cluster.metricSum(jobId, DecodeMetrics.LINES);
                err.printf(
                        "submit: job %s %s for %.0f s%s%n",
                        jobId,
                        job.state(),
                        job.durationMillis() / 1e3,
                        lines.isPresent()
                                ? String.format(", %,d lines decoded", lines.getAsLong())
                                : "");
                lastReport = System.nanoTime();
            }
            if (job.terminal()) {
                return ended(cluster, job);
            }
            Thread.sleep(POLL_MILLIS); // polling the cluster: the REST API has nothing to wait on
        }
    }

    /** Waits until every task of a stream job runs: 0 then, 1 if it ended before. */
    private int awaitRunning(FlinkRest cluster, String jobId)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + runningTimeoutSeconds * 1_000_000_000L;
        while (!cluster.allTasksRunning(jobId)) {
            FlinkRest.Job job = cluster.job(jobId);
            if (job.terminal()) {
                return ended(cluster, job);
            }
            if (System.nanoTime() > deadline) {
                System.err.printf(
                        "submit: job %s is %s, not all its tasks running after %d s (not enough"
                                + " slots?); it stays submitted%n",
                        jobId, job.state(), runningTimeoutSeconds);
                return 1;
            }
            Thread.sleep(POLL_MILLIS); // polling the cluster: the REST API has nothing to wait on
        }
        var out = spec.commandLine().getOut();
        out.printf(
                "submit: job %s RUNNING; stop it with a savepoint: piper job stop --rest %s %s%n",
                jobId, rest.rest, jobId);
        out.println(jobId);
        return 0;
    }

    private int ended(FlinkRest cluster, FlinkRest.Job job)
            throws IOException, InterruptedException {
        var out = spec.commandLine().getOut();
        out.printf(
                "submit: job %s %s after %.1f s%n",
                job.id(), job.state(), job.durationMillis() / 1e3);
        if (job.state().equals("FINISHED")) {
            out.println(job.id());
            return 0;
        }
        String cause = cluster.failureCause(job.id());
        System.err.printf(
                "submit: job %s %s%s%n",
                job.id(), job.state(), cause.isEmpty() ? "" : ": " + cause);
        return 1;
    }

    /** The job jar the build made. */
    private static Path builtJar() throws IOException {
        Path target = PiperHome.get().resolve("job/target");
        if (Files.isDirectory(target)) {
            try (Stream<Path> files = Files.list(target)) {
                List<Path> jars =
                        files.filter(p -> p.getFileName().toString().endsWith("-flink.jar"))
                                .toList();
                if (jars.size() == 1) {
                    return jars.get(0);
                }
            }
        }
        return target.resolve("piper-job-VERSION-flink.jar (build it: mvn -B -DskipTests package)");
    }
}
