package dev.piper.cli;

import dev.piper.cli.cluster.FlinkRest;
import dev.piper.job.CheckpointDirectory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code piper job list|stop|savepoint|cancel}: jobs on a Flink cluster, over its REST API. */
@Command(
        name = "job",
        mixinStandardHelpOptions = true,
        description = "List the jobs of a Flink cluster, take savepoints, stop or cancel them.",
        subcommands = {
            JobCommand.ListJobs.class,
            JobCommand.Stop.class,
            JobCommand.Savepoint.class,
            JobCommand.Cancel.class
        })
final class JobCommand implements Runnable {

    @Spec CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The job a subcommand acts on. */
    static final class JobId {
        @Parameters(index = "0", paramLabel = "JOB-ID", description = "The job's id.")
        String id;
    }

    /** Where a savepoint goes. */
    static final class Target {
        @Option(
                names = "--savepoint-dir",
                paramLabel = "DIR",
                description =
                        "Directory (or URI) for the savepoint. Default: for a piper stream, the"
                                + " savepoints/ of its --checkpoint-dir, where a new submission"
                                + " of the same stream resumes from; otherwise the cluster's"
                                + " execution.checkpointing.savepoint-dir.")
        String directory;

        /**
         * Takes a savepoint of {@code job} into {@code --savepoint-dir}, or else the stream's own
         * savepoint directory, or else the cluster's; with {@code stop}, stops the job with it.
         * Returns its location.
         */
        String take(FlinkRest cluster, String job, boolean stop) throws Exception {
            String into =
                    directory != null
                            ? directory
                            : latestCheckpoint(cluster, job)
                                    .flatMap(CheckpointDirectory::savepointDirectoryOf)
                                    .orElse(null);
            String location =
                    cluster.savepoint(job, into, stop, Duration.ofSeconds(timeoutSeconds));
            sealIfLocal(location);
            return location;
        }

        /**
         * The job's latest completed checkpoint, which says where its savepoints go (a stream's
         * {@code --checkpoint-dir}/savepoints). A job that checkpoints but has not completed one
         * yet (stopped right after its submission) is waited for, up to {@code --timeout}: without
         * it the savepoint went to the cluster's default directory, where the next {@code submit}
         * of the stream does not look.
         */
        private java.util.Optional<String> latestCheckpoint(FlinkRest cluster, String job)
                throws Exception {
            java.util.Optional<String> latest = cluster.latestCheckpoint(job);
            if (latest.isPresent() || !cluster.checkpoints(job)) {
                return latest;
            }
            System.err.printf("job: waiting for %s's first checkpoint%n", job);
            long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
            while (latest.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(200); // polling the cluster: it sends no event
                latest = cluster.latestCheckpoint(job);
            }
            return latest;
        }

        /**
         * Seals a savepoint this machine can read (a local or shared file system: {@code file:}),
         * so that a restore from it checks its state files ({@link CheckpointDirectory#seal}).
         */
        private static void sealIfLocal(String location) {
            if (location == null || !location.startsWith("file:")) {
                return;
            }
            try {
                java.nio.file.Path dir = java.nio.file.Path.of(java.net.URI.create(location));
                if (java.nio.file.Files.isDirectory(dir)) {
                    CheckpointDirectory.seal(dir);
                }
            } catch (java.io.IOException | RuntimeException e) {
                System.err.printf("job: cannot seal %s: %s%n", location, e);
            }
        }

        @Option(
                names = "--timeout",
                defaultValue = "600",
                paramLabel = "S",
                description = "Seconds to wait for the savepoint (default: ${DEFAULT-VALUE}).")
        int timeoutSeconds;
    }

    /** {@code piper job list}. */
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description =
                    "Every job of the cluster, newest first: id, state, name, start, run time.")
    static final class ListJobs implements Callable<Integer> {

        @Spec CommandSpec spec;

        @Mixin RestAddress rest;

        @Override
        public Integer call() throws Exception {
            List<FlinkRest.Job> jobs = rest.client(spec.commandLine()).jobs();
            var out = spec.commandLine().getOut();
            // the name last: it says the pipeline, version and input, so it is long (JobNames)
            out.printf("%-32s  %-10s  %-20s  %10s  %s%n", "id", "state", "start", "time", "name");
            for (FlinkRest.Job j : jobs) {
                out.printf(
                        "%-32s  %-10s  %-20s  %,8.0f s  %s%n",
                        j.id(),
                        j.state(),
                        Instant.ofEpochMilli(j.startTime())
                                .toString()
                                .replaceFirst("\\.\\d+Z$", "Z"),
                        j.durationMillis() / 1e3,
                        j.name());
            }
            return 0;
        }
    }

    /** {@code piper job stop}. */
    @Command(
            name = "stop",
            mixinStandardHelpOptions = true,
            description = {
                "Stop a job with a savepoint: its sources stop, a last checkpoint commits all output"
                        + " (a stream's Kafka transactions), and the job finishes. Prints the"
                        + " savepoint's path last; resume with 'piper submit --from-savepoint"
                        + " PATH -- stream ...' (also with another parallelism or a new job jar)."
            })
    static final class Stop implements Callable<Integer> {

        @Spec CommandSpec spec;

        @Mixin RestAddress rest;

        @Mixin JobId job;

        @Mixin Target target;

        @Override
        public Integer call() throws Exception {
            FlinkRest cluster = rest.client(spec.commandLine());
            System.err.printf("job: stopping %s with a savepoint%n", job.id);
            String location = target.take(cluster, job.id, true);
            FlinkRest.Job ended =
                    cluster.awaitEnd(job.id, Duration.ofSeconds(target.timeoutSeconds));
            var out = spec.commandLine().getOut();
            out.printf("job: %s %s with savepoint%n%s%n", job.id, ended.state(), location);
            return 0;
        }
    }

    /** {@code piper job savepoint}. */
    @Command(
            name = "savepoint",
            mixinStandardHelpOptions = true,
            description =
                    "Take a savepoint of a running job and leave it running; prints the path last.")
    static final class Savepoint implements Callable<Integer> {

        @Spec CommandSpec spec;

        @Mixin RestAddress rest;

        @Mixin JobId job;

        @Mixin Target target;

        @Override
        public Integer call() throws Exception {
            String location = target.take(rest.client(spec.commandLine()), job.id, false);
            spec.commandLine().getOut().printf("job: savepoint of %s%n%s%n", job.id, location);
            return 0;
        }
    }

    /** {@code piper job cancel}. */
    @Command(
            name = "cancel",
            mixinStandardHelpOptions = true,
            description =
                    "Cancel a job without a savepoint. A stream's uncommitted output is aborted;"
                            + " its latest checkpoint stays in --checkpoint-dir.")
    static final class Cancel implements Callable<Integer> {

        @Spec CommandSpec spec;

        @Mixin RestAddress rest;

        @Mixin JobId job;

        @Override
        public Integer call() throws Exception {
            rest.client(spec.commandLine()).cancel(job.id);
            spec.commandLine().getOut().printf("job: %s cancelling%n", job.id);
            return 0;
        }
    }
}
