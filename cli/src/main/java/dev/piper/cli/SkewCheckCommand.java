package dev.piper.cli;

import dev.piper.feed.SkewCheck;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobOption;
import dev.piper.job.launch.KafkaArgs;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code piper skew-check}: the serving transform against what the stream wrote. */
@Command(
        name = "skew-check",
        mixinStandardHelpOptions = true,
        description = {
            "Check serving against the feed: for a seeded sample of the rows topic's committed"
                    + " records, run each record's own input records (its input offsets) through"
                    + " the serving transform at the record's own vocabulary position (cut from"
                    + " the vocabulary topic) and compare every slot. Differences a position"
                    + " cannot avoid (a block's own min_count admissions and evictions) are"
                    + " counted apart; any other is skew: exit 1, naming the first ones. See"
                    + " docs/SERVING.md."
        })
final class SkewCheckCommand implements Callable<Integer>, JobOptionsCli.Taking {

    @Spec CommandSpec spec;

    @Override
    public List<JobOption> jobOptions() {
        return KafkaArgs.OPTIONS;
    }

    @Option(
            names = "--rows-topic",
            required = true,
            paramLabel = "O",
            description = "The stream's rows topic (--output-topic).")
    String rowsTopic;

    @Option(
            names = "--vocab-topic",
            required = true,
            paramLabel = "V",
            description = "The stream's vocabulary topic.")
    String vocabTopic;

    @Option(
            names = "--spec",
            paramLabel = "FILE",
            description = "The spec the stream ran (default: the built-in DLRM Criteo spec).")
    Path specFile;

    @Option(
            names = "--preset",
            paramLabel = "NAME",
            description = "A spec that ships with piper instead of --spec.")
    String preset;

    @Option(
            names = "--sample",
            paramLabel = "N",
            defaultValue = "100",
            description = "Rows records to compare, drawn uniformly (default: ${DEFAULT-VALUE}).")
    int sample;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "The sample's seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            defaultValue = "30",
            description =
                    "Give up once a topic has sent nothing for this long (default:"
                            + " ${DEFAULT-VALUE}).")
    int timeout;

    @Override
    public Integer call() throws Exception {
        if (sample < 1 || timeout < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--sample and --timeout must be at least 1");
        }
        PipelineSpec pipeline = ServedSpec.of(spec, specFile, preset);
        JobArgs args = JobOptionsCli.args(spec);
        Map<String, String> client = KafkaArgs.connect(args);
        SkewCheck.Report r;
        try {
            r =
                    new SkewCheck(
                                    KafkaArgs.bootstrapServers(args),
                                    client,
                                    SpecCompiler.decodeOptions(
                                            pipeline, DecodeOptions.DEFAULT_MAX_RAW_BYTES),
                                    ServedSpec.label(pipeline))
                            .check(
                                    rowsTopic,
                                    vocabTopic,
                                    sample,
                                    seed,
                                    Duration.ofSeconds(timeout),
                                    System.err);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--spec: " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf(
                "skew-check: %d of %,d rows records of %s compared (%,d rows; %,d records read)%n",
                r.sampled(), r.ofPipeline(), ServedSpec.label(pipeline), r.rows(), r.records());
        for (SkewCheck.ColumnCount c : r.columns()) {
            if (c.learning() + c.skew() > 0) {
                out.printf(
                        "  %s: %,d ids compared, %,d differ by the block's own learning, %,d"
                                + " skewed%n",
                        c.column(), c.compared(), c.learning(), c.skew());
            }
        }
        if (r.skew() == 0) {
            out.println(
                    r.sampled() == 0
                            ? "skew-check: no records of this pipeline to compare"
                            : "skew-check: no skew");
            out.flush();
            return 0;
        }
        out.printf("skew-check: SKEW in %,d values; the first:%n", r.skew());
        r.skewed().forEach(s -> out.println("  " + s));
        out.flush();
        return 1;
    }
}
