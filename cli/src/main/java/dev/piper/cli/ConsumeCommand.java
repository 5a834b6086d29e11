package dev.piper.cli;

import dev.piper.feed.DeliveryStats;
import dev.piper.feed.OutputConsumer;
import dev.piper.job.Preprocess;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobOption;
import dev.piper.job.launch.KafkaArgs;
import dev.piper.job.launch.OutputArgs;
import dev.piper.output.DirectoryLock;
import dev.piper.output.OutputCommit;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code piper consume}: the committed output of {@code piper stream} into the batch layout. */
@Command(
        name = "consume",
        mixinStandardHelpOptions = true,
        description = {
            "Read the committed output of 'piper stream' (isolation.level=read_committed, from"
                    + " the beginning) into a directory in the batch layout: rows.bin, and"
                    + " vocab/C1.tsv..C26.tsv with --vocab-topic, dead-letters.jsonl with"
                    + " --dead-letter-topic, and metadata.json (preprocess's keys for the same spec)."
                    + " Checks every record it reads."
        })
final class ConsumeCommand implements Callable<Integer>, JobOptionsCli.Taking {

    /** The one part of a consume run's output ({@link OutputCommit}). */
    private static final String PART = "consume";

    @Spec CommandSpec spec;

    @Override
    public List<JobOption> jobOptions() {
        return Stream.of(KafkaArgs.OPTIONS, OutputArgs.OPTIONS).flatMap(List::stream).toList();
    }

    @Option(names = "--topic", required = true, paramLabel = "O", description = "Rows topic.")
    String topic;

    @Option(names = "--vocab-topic", paramLabel = "V", description = "Vocabulary topic.")
    String vocabTopic;

    @Option(names = "--dead-letter-topic", paramLabel = "D", description = "Dead-letter topic.")
    String deadLetterTopic;

    @Option(
            names = "--rows",
            paramLabel = "N",
            defaultValue = "0",
            description = "Stop once N rows (and the vocabulary they use) are read; 0: no limit.")
    long rows;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description =
                    "Stop once no record has arrived for this long, and wait this long for"
                            + " topics the stream has not created yet (default:"
                            + " ${DEFAULT-VALUE}).")
    int timeout;

    @Option(
            names = "--stats",
            description =
                    "Also report the end-to-end latency of the rows (input record timestamp to"
                            + " read committed) and the output rate; start it before the input"
                            + " is produced.")
    boolean stats;

    @Option(
            names = "--timeline",
            paramLabel = "FILE",
            description =
                    "With --stats: write the output rate over time to FILE (TSV: second of the"
                            + " output records' timestamps, pipeline version, rows).")
    Path timeline;

    @Option(
            names = "--spec",
            paramLabel = "FILE",
            description =
                    "The spec the stream ran, for metadata.json's row layout, table sizes and"
                            + " chains; needed only for a spec of your own (the built-in one and"
                            + " the presets are known from the records).")
    Path specFile;

    /** The spec of --spec, or null. */
    private DecodeOptions streamSpec() {
        if (specFile == null) {
            return null;
        }
        try {
            return SpecCompiler.decodeOptions(
                    SpecParser.parse(specFile), DecodeOptions.DEFAULT_MAX_RAW_BYTES);
        } catch (SpecException | IOException e) {
            throw new ParameterException(spec.commandLine(), "--spec: " + e.getMessage());
        }
    }

    @Override
    public Integer call() throws Exception {
        if (rows < 0) {
            throw new ParameterException(
                    spec.commandLine(), "--rows: must not be negative, not " + rows);
        }
        if (timeout < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--timeout: must be at least 1 second, not " + timeout);
        }
        if (timeline != null && !stats) {
            throw new ParameterException(spec.commandLine(), "--timeline: needs --stats");
        }
        DecodeOptions streamSpec = streamSpec();
        JobArgs args = JobOptionsCli.args(spec);
        Map<String, String> client = KafkaArgs.connect(args);
        DeliveryStats delivery = stats ? new DeliveryStats() : null;
        Path output;
        OutputConsumer.Result r;
        // The run holds its output directory from before it is checked to its publication; it
        // writes into a staging directory that replaces the output only once complete.
        try (DirectoryLock lock = Preprocess.lockOutput(OutputArgs.dir(args))) {
            output = OutputArgs.prepare(args);
            OutputCommit commit = OutputCommit.start(output, PART);
            r =
                    new OutputConsumer(
                                    KafkaArgs.bootstrapServers(args),
                                    client,
                                    topic,
                                    vocabTopic,
                                    deadLetterTopic)
                            .spec(streamSpec)
                            .consume(
                                    commit.partStarted(PART),
                                    rows,
                                    Duration.ofSeconds(timeout),
                                    delivery,
                                    System.err);
            commit.partDone(PART);
        }
        spec.commandLine()
                .getOut()
                .printf(
                        "consume: %,d rows in %,d records, %,d dead letters%s in %.1f s -> %s%n",
                        r.rows(),
                        r.rowRecords(),
                        r.deadLetters(),
                        r.vocabSizes().isEmpty()
                                ? ""
                                : String.format(
                                        ", %,d vocabulary entries",
                                        r.vocabSizes().values().stream()
                                                .mapToLong(Integer::longValue)
                                                .sum()),
                        r.seconds(),
                        output);
        if (delivery != null) {
            spec.commandLine().getOut().println(delivery.report(r.rows()));
            if (timeline != null) {
                delivery.writeTimeline(timeline);
            }
        }
        return 0;
    }
}
