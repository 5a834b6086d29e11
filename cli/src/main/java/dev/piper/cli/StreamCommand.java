package dev.piper.cli;

import dev.piper.job.StreamRunner;
import dev.piper.job.args.JobOption;
import dev.piper.job.launch.StreamProgram;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code piper stream}: the exactly-once Kafka preprocessing feed on an embedded cluster. Its
 * options, their checks and the start (which snapshot, which topics) are the job's ({@link
 * StreamProgram}), which the job jar runs the same way on a Flink cluster.
 */
@Command(
        name = "stream",
        mixinStandardHelpOptions = true,
        description = {
            "Preprocess lines from a Kafka topic into DLRM row blocks on another, under any spec"
                    + " preprocess runs (Criteo's layout by default), exactly once: output, dead letters and vocabulary records are written in"
                    + " transactions committed with each checkpoint (read them with"
                    + " isolation.level=read_committed, or with 'piper consume').",
            "Restarting with the same --checkpoint-dir resumes from the latest retained checkpoint"
                    + " or savepoint in it. Output record format: docs/SEMANTICS.md.",
            "With --control-topic (or --control-dir) the pipeline's spec can be changed while it"
                    + " runs; --pipeline runs several pipelines in one job (docs/SPECS.md)."
        })
final class StreamCommand implements Callable<Integer>, JobOptionsCli.Taking {

    @Spec CommandSpec spec;

    @Override
    public List<JobOption> jobOptions() {
        return StreamProgram.OPTIONS;
    }

    @Override
    public Integer call() throws Exception {
        try (StreamProgram.Ready ready =
                StreamProgram.prepare(JobOptionsCli.args(spec), false, System.err)) {
            StreamRunner.Result r = StreamProgram.run(ready, System.err);
            String committed =
                    Double.isNaN(r.caughtUpSeconds()) || r.inputRecords() == 0
                            ? ""
                            : String.format(
                                    " (all committed at %.1f s: %,.0f records/s)",
                                    r.caughtUpSeconds(), r.caughtUpRate());
            spec.commandLine()
                    .getOut()
                    .printf(
                            "stream: %,d input records consumed in %.1f s%s%s%n",
                            r.inputRecords(),
                            r.seconds(),
                            committed,
                            r.savepoint().map(p -> "; savepoint " + p).orElse(""));
            return 0;
        }
    }
}
