package dev.piper.job.cli;

import dev.piper.job.spec.PipelineSpec;
import dev.piper.job.spec.SpecException;
import dev.piper.job.spec.SpecParser;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code piper spec}: check and show pipeline specs. */
@Command(
        name = "spec",
        mixinStandardHelpOptions = true,
        description = "Pipeline specs: per column operator chains as data (docs/SPECS.md).",
        subcommands = {
            SpecCommand.Validate.class,
            SpecCommand.Show.class,
            SpecCommand.Publish.class
        })
final class SpecCommand implements Runnable {

    @Spec CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    private static PipelineSpec read(CommandLine cmd, Path file) throws Exception {
        if (!Files.isRegularFile(file)) {
            throw new ParameterException(cmd, file + " is not a readable file");
        }
        return SpecParser.parse(file);
    }

    /** {@code piper spec validate FILE}. */
    @Command(
            name = "validate",
            mixinStandardHelpOptions = true,
            description = {
                "Check a spec. Prints a summary and exits 0 if it is valid; otherwise prints every"
                        + " problem, each naming its field, and exits 1."
            })
    static final class Validate implements Callable<Integer> {

        @Spec CommandSpec spec;

        @Parameters(paramLabel = "FILE", description = "The spec (JSON).")
        Path file;

        @Override
        public Integer call() throws Exception {
            try {
                PipelineSpec p = read(spec.commandLine(), file);
                spec.commandLine()
                        .getOut()
                        .printf(
                                "%s: valid: pipeline %s version %d, %d columns%n",
                                file, p.name(), p.version(), p.columns().size());
                return 0;
            } catch (SpecException e) {
                PrintWriter err = spec.commandLine().getErr();
                err.printf("%s: invalid, %d problem(s):%n", file, e.problems().size());
                e.problems().forEach(p -> err.println("  " + p));
                return 1;
            }
        }
    }

    /** {@code piper spec publish --bootstrap-servers B --topic C FILE}. */
    @Command(
            name = "publish",
            mixinStandardHelpOptions = true,
            description = {
                "Publish a spec to a running stream's control topic (stream --control-topic C)."
                        + " The spec is validated here first; the stream validates it again"
                        + " against its active spec and reports acceptance or rejection, and"
                        + " where it took effect, on its status topic."
            })
    static final class Publish implements Callable<Integer> {

        @Spec CommandSpec spec;

        @Mixin KafkaClientOptions kafka;

        @Option(
                names = "--topic",
                required = true,
                paramLabel = "C",
                description = "The control topic.")
        String topic;

        @Option(
                names = "--unchecked",
                description =
                        "Publish even if the spec is invalid here (to see the stream reject it).")
        boolean unchecked;

        @Parameters(paramLabel = "FILE", description = "The spec (JSON).")
        Path file;

        @Override
        public Integer call() throws Exception {
            String key = "unchecked";
            try {
                PipelineSpec p = read(spec.commandLine(), file);
                key = p.name();
            } catch (SpecException e) {
                if (!unchecked) {
                    PrintWriter err = spec.commandLine().getErr();
                    err.printf(
                            "%s: invalid, %d problem(s), not published:%n",
                            file, e.problems().size());
                    e.problems().forEach(p -> err.println("  " + p));
                    return 1;
                }
            }
            Properties props = new Properties();
            props.putAll(kafka.clientProperties(spec.commandLine()));
            props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers);
            props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
            props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(
                            props, new ByteArraySerializer(), new ByteArraySerializer())) {
                RecordMetadata m =
                        producer.send(
                                        new ProducerRecord<>(
                                                topic,
                                                key.getBytes(StandardCharsets.UTF_8),
                                                Files.readAllBytes(file)))
                                .get(60, TimeUnit.SECONDS);
                spec.commandLine()
                        .getOut()
                        .printf(
                                "published %s to %s/%d@%d%n",
                                file, m.topic(), m.partition(), m.offset());
            }
            return 0;
        }
    }

    /** {@code piper spec show [FILE]}. */
    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = {
                "Show a spec's pipeline: each column's operator chain. Without FILE, the built-in"
                        + " DLRM Criteo spec."
            })
    static final class Show implements Callable<Integer> {

        @Spec CommandSpec spec;

        @Parameters(arity = "0..1", paramLabel = "FILE", description = "The spec (JSON).")
        Path file;

        @Option(names = "--json", description = "Print the built-in spec's JSON text instead.")
        boolean json;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                if (file != null) {
                    throw new ParameterException(
                            spec.commandLine(), "--json shows the built-in spec; give no FILE");
                }
                out.print(new String(SpecParser.builtinText(), StandardCharsets.UTF_8));
                out.flush();
                return 0;
            }
            PipelineSpec p;
            try {
                p = file == null ? SpecParser.builtin() : read(spec.commandLine(), file);
            } catch (SpecException e) {
                throw new IllegalArgumentException(
                        e.problems().size() + " problem(s): " + String.join("; ", e.problems()));
            }
            out.printf("pipeline %s version %d%n", p.name(), p.version());
            out.printf(
                    "input    %s%s%s%n",
                    p.input().format(),
                    p.input().topic().map(t -> ", topic " + t).orElse(""),
                    p.input()
                            .routeField()
                            .map(
                                    f ->
                                            ", lines whose "
                                                    + f
                                                    + " is "
                                                    + p.input().routeValue().orElse(""))
                            .orElse(""));
            out.printf(
                    "output   %s, pad_missing_fields %s, max_line_bytes %d%n",
                    p.output().format(), p.output().padMissingFields(), p.output().maxLineBytes());
            for (PipelineSpec.Column c : p.columns()) {
                out.printf("%-6s %-6s %s%n", c.name(), c.kind(), c.chain());
            }
            return 0;
        }
    }
}
