package dev.piper.cli;

import dev.piper.job.Preprocess;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobOption;
import dev.piper.job.launch.LaunchChecks;
import dev.piper.job.launch.OutputArgs;
import dev.piper.job.launch.PreprocessProgram;
import dev.piper.output.DirectoryLock;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code piper preprocess}: the batch contract of docs/SEMANTICS.md on an embedded cluster. Its
 * options and their checks are the job's ({@link PreprocessProgram}), which the job jar runs the
 * same way on a Flink cluster.
 */
@Command(
        name = "preprocess",
        mixinStandardHelpOptions = true,
        description = {
            "Preprocess a Criteo text or Parquet file into a DLRM output directory:",
            "rows.bin (or rows.parquet), vocab/C1.tsv..C26.tsv, dead-letters.jsonl,"
                    + " metadata.json.",
            "Runs on an embedded Flink MiniCluster, or on a Flink cluster through the job jar"
                    + " (piper submit -- preprocess ...)."
        })
final class PreprocessCommand implements Callable<Integer>, JobOptionsCli.Taking {

    @Spec CommandSpec spec;

    @Override
    public List<JobOption> jobOptions() {
        return PreprocessProgram.OPTIONS;
    }

    @Override
    public Integer call() throws Exception {
        JobArgs args = JobOptionsCli.args(spec);
        PreprocessProgram.Run run = PreprocessProgram.check(args, System.err);
        // The run holds its output directory from its check to its publication (OutputCommit); on
        // a cluster, the job's writer takes the lock where it runs.
        try (DirectoryLock lock = Preprocess.lockOutput(OutputArgs.dir(args))) {
            Path output = OutputArgs.prepare(args, run.input());
            LaunchChecks.resources("--spec", run.program(), run.parallelism());
            Preprocess.Summary s =
                    Preprocess.run(
                            run.input(),
                            output,
                            run.parallelism(),
                            run.stateBackend(),
                            run.conf(),
                            System.err);
            spec.commandLine()
                    .getOut()
                    .printf(
                            "preprocess: %,d lines read, %,d rows written, %,d dead letters in"
                                    + " %.1f s (job %.1f s, %,.0f lines/s) -> %s%n",
                            s.linesRead(),
                            s.rowsWritten(),
                            s.deadLetters(),
                            s.seconds(),
                            s.jobSeconds(),
                            s.rowsPerSecond(),
                            output);
            if (run.report()) {
                spec.commandLine()
                        .getOut()
                        .println(ReportTable.summary(output, s.taskCpuSeconds()));
            }
            return 0;
        }
    }
}
