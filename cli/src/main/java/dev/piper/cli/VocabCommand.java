package dev.piper.cli;

import dev.piper.core.serve.VocabularyPosition;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.feed.TopicSnapshot;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobOption;
import dev.piper.job.launch.KafkaArgs;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code piper vocab}: the vocabularies a model was trained with, for serving. */
@Command(
        name = "vocab",
        mixinStandardHelpOptions = true,
        description = "Vocabularies for serving (docs/SERVING.md).",
        subcommands = {VocabCommand.Snapshot.class})
final class VocabCommand implements Runnable {

    @Spec CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code piper vocab snapshot}: the vocabularies at a position, as one file. */
    @Command(
            name = "snapshot",
            mixinStandardHelpOptions = true,
            description = {
                "Write a snapshot file of a pipeline's vocabularies at one position, for 'piper"
                        + " serve --snapshot' and the transform library: from the stream's"
                        + " vocabulary topic at the position of a rows record (--at) or of a"
                        + " trainer checkpoint (--position, the file the Python client writes"
                        + " beside each checkpoint), or from a batch output's vocab/ at its end"
                        + " (--output-dir). Evicting columns hold the key each index held at"
                        + " that position."
            })
    static final class Snapshot implements Callable<Integer>, JobOptionsCli.Taking {

        private static final Pattern RECORD = Pattern.compile("(.+)/(\\d+)@(\\d+)");

        /** {@code --at TOPIC@end}: the position of the topic's last committed records. */
        private static final Pattern END = Pattern.compile("(.+)@end");

        @Spec CommandSpec spec;

        @Override
        public List<JobOption> jobOptions() {
            return KafkaArgs.OPTIONS;
        }

        @Option(
                names = "--out",
                required = true,
                paramLabel = "FILE",
                description = "The snapshot file to write (replaced whole, or left as it was).")
        Path out;

        @Option(
                names = "--vocab-topic",
                paramLabel = "V",
                description = "The stream's vocabulary topic, read up to the position.")
        String vocabTopic;

        @Option(
                names = "--at",
                paramLabel = "TOPIC/PARTITION@OFFSET|TOPIC@end",
                description =
                        "The position of this rows record: the vocabularies once its block was"
                                + " applied (e.g. rows/0@41); or TOPIC@end, the stream's end as"
                                + " committed now: every entry of the vocabulary topic, the"
                                + " pipeline of the rows topic's newest record (e.g. rows@end).")
        String at;

        @Option(
                names = "--position",
                paramLabel = "FILE",
                description =
                        "The position in this file (a trainer checkpoint's, written by the"
                                + " Python client; format in docs/SERVING.md).")
        Path positionFile;

        @Option(
                names = "--timeout",
                paramLabel = "SECONDS",
                defaultValue = "30",
                description =
                        "Give up once no record has come for this long, naming the columns not"
                                + " reached (default: ${DEFAULT-VALUE}).")
        int timeout;

        @Option(
                names = "--output-dir",
                paramLabel = "DIR",
                description = "Instead of the topic: a batch output's vocab/, at its end.")
        Path dir;

        @Option(
                names = "--spec",
                paramLabel = "FILE",
                description =
                        "With --output-dir: the output's spec (default: the built-in DLRM Criteo"
                                + " spec).")
        Path specFile;

        @Option(
                names = "--preset",
                paramLabel = "NAME",
                description = "With --output-dir: a spec that ships with piper instead of --spec.")
        String preset;

        @Override
        public Integer call() throws Exception {
            if (timeout < 1) {
                throw new ParameterException(
                        spec.commandLine(), "--timeout: must be at least 1 second, not " + timeout);
            }
            long start = System.nanoTime();
            VocabularySnapshot snapshot = dir != null ? fromOutput() : fromTopic();
            snapshot.write(out);
            long entries = 0;
            for (int c = 0; c < snapshot.columns(); c++) {
                entries += snapshot.entries(c);
            }
            PrintWriter o = spec.commandLine().getOut();
            o.printf(
                    "vocab snapshot: %d columns, %,d entries, %s%s; %,d bytes in %.1f s -> %s%n",
                    snapshot.columns(),
                    entries,
                    snapshot.source(),
                    snapshot.pipeline().isEmpty() ? "" : " (pipeline " + snapshot.pipeline() + ")",
                    Files.size(out),
                    (System.nanoTime() - start) / 1e9,
                    out);
            o.flush();
            return 0;
        }

        private VocabularySnapshot fromOutput() throws IOException {
            if (vocabTopic != null || at != null || positionFile != null) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--output-dir reads a batch output: give no --vocab-topic, --at or"
                                + " --position with it");
            }
            PipelineSpec pipeline = ServedSpec.of(spec, specFile, preset);
            DecodeOptions options =
                    SpecCompiler.decodeOptions(pipeline, DecodeOptions.DEFAULT_MAX_RAW_BYTES);
            try {
                ServedSpec.checkMadeBy(dir, pipeline);
                return VocabularySnapshot.read(dir, options.program())
                        .withPipeline(ServedSpec.label(pipeline));
            } catch (IOException e) {
                throw new ParameterException(spec.commandLine(), "--output-dir: " + e.getMessage());
            }
        }

        private VocabularySnapshot fromTopic() throws IOException {
            if (specFile != null || preset != null) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--spec and --preset go with --output-dir; the topic's records name"
                                + " their columns");
            }
            if (vocabTopic == null) {
                throw new ParameterException(
                        spec.commandLine(),
                        "give --vocab-topic (with --at or --position) or --output-dir");
            }
            if ((at == null) == (positionFile == null)) {
                throw new ParameterException(
                        spec.commandLine(), "--at or --position: give one of them");
            }
            Matcher record = at == null ? null : RECORD.matcher(at);
            Matcher end = at == null ? null : END.matcher(at);
            if (record != null && !record.matches() && !end.matches()) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--at: \""
                                + at
                                + "\" is not TOPIC/PARTITION@OFFSET, e.g. rows/0@41, or"
                                + " TOPIC@end");
            }
            VocabularyPosition position = null;
            if (positionFile != null) {
                try {
                    position = VocabularyPosition.read(positionFile);
                } catch (IOException e) {
                    throw new ParameterException(
                            spec.commandLine(), "--position: " + e.getMessage());
                }
            }
            JobArgs args = JobOptionsCli.args(spec);
            Map<String, String> client = KafkaArgs.connect(args);
            TopicSnapshot topics = new TopicSnapshot(KafkaArgs.bootstrapServers(args), client);
            Duration idle = Duration.ofSeconds(timeout);
            if (end != null && end.matches()) {
                position = topics.positionAtEnd(end.group(1), vocabTopic, idle);
            } else if (record != null) {
                try {
                    position =
                            topics.positionOf(
                                    record.group(1),
                                    Integer.parseInt(record.group(2)),
                                    Long.parseLong(record.group(3)),
                                    idle);
                } catch (NumberFormatException e) {
                    throw new ParameterException(
                            spec.commandLine(), "--at: \"" + at + "\": " + e.getMessage());
                }
            }
            return topics.read(vocabTopic, position, idle, System.err);
        }
    }
}
