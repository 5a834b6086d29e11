package dev.piper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.piper.feed.StatusWatcher;
import dev.piper.job.PiperOptions;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobOption;
import dev.piper.job.launch.KafkaArgs;
import dev.piper.job.launch.LaunchChecks;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.Sizes;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import dev.piper.pipeline.spec.SpecResources;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

        @Option(
                names = "--memory",
                paramLabel = "SIZE",
                description =
                        "The heap the job will have, e.g. 4g: a TaskManager's on a cluster"
                                + " (default: this JVM's, which an embedded preprocess or stream"
                                + " shares).")
        String memory;

        @Option(
                names = "--parallelism",
                paramLabel = "N",
                defaultValue = "2",
                description =
                        "Decoders that each hold the spec's tables (default: ${DEFAULT-VALUE},"
                                + " preprocess's).")
        int parallelism;

        @Override
        public Integer call() throws Exception {
            LaunchChecks.parallelism(parallelism);
            long heap;
            try {
                heap = memory == null ? Runtime.getRuntime().maxMemory() : Sizes.bytes(memory);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--memory: not a size (e.g. 512m, 4g): \"" + memory + "\"");
            }
            try {
                PipelineSpec p = read(spec.commandLine(), file);
                List<String> files = PiperOptions.fileProblems(p);
                if (!files.isEmpty()) {
                    throw new SpecException(file.toString(), files);
                }
                SpecResources resources = SpecResources.of(SpecCompiler.program(p));
                Optional<String> problem = resources.problem(heap, parallelism);
                if (problem.isPresent()) {
                    spec.commandLine()
                            .getErr()
                            .printf(
                                    "%s: invalid: the job cannot hold it: %s%n",
                                    file, problem.get());
                    return 1;
                }
                PrintWriter out = spec.commandLine().getOut();
                out.printf(
                        "%s: valid: pipeline %s version %d, %d columns%n",
                        file, p.name(), p.version(), p.columns().size());
                out.printf(
                        "  memory: %s of tables and bounded vocabularies with %d decoders (of %s"
                                + " heap)%s%n",
                        SpecResources.mib(resources.fixedBytes(parallelism)),
                        parallelism,
                        SpecResources.mib(heap),
                        resources.unboundedVocabularies().isEmpty()
                                ? ""
                                : "; unbounded vocabularies (they grow with the input's distinct"
                                        + " ids): "
                                        + resources.unboundedVocabularies().size()
                                        + " columns");
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
    static final class Publish implements Callable<Integer>, JobOptionsCli.Taking {

        @Spec CommandSpec spec;

        @Override
        public List<JobOption> jobOptions() {
            return KafkaArgs.OPTIONS;
        }

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

        @Option(
                names = "--wait",
                description =
                        "Wait for the stream's verdict on its status topic and, once accepted,"
                                + " for the first rows under the new spec; prints each with the"
                                + " time since publishing. Exit code 2 if the stream rejects the"
                                + " spec, 1 on timeout.")
        boolean wait;

        @Option(
                names = "--status-topic",
                paramLabel = "S",
                description = "The stream's status topic (default: the control topic + -status).")
        String statusTopic;

        @Option(
                names = "--timeout",
                paramLabel = "SECONDS",
                defaultValue = "120",
                description = "How long --wait waits for each answer (default: ${DEFAULT-VALUE}).")
        int timeoutSeconds;

        @Parameters(paramLabel = "FILE", description = "The spec (JSON).")
        Path file;

        @Override
        public Integer call() throws Exception {
            if (timeoutSeconds < 1) {
                throw new ParameterException(
                        spec.commandLine(), "--timeout: at least 1 second, not " + timeoutSeconds);
            }
            if (statusTopic != null && !wait) {
                throw new ParameterException(spec.commandLine(), "--status-topic: needs --wait");
            }
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
            JobArgs args = JobOptionsCli.args(spec);
            Map<String, String> client = KafkaArgs.connect(args);
            // Opened before publishing, so that no answer can be missed.
            StatusWatcher watcher =
                    wait
                            ? new StatusWatcher(
                                    KafkaArgs.bootstrapServers(args),
                                    client,
                                    statusTopic != null ? statusTopic : topic + "-status")
                            : null;
            try {
                return publish(key, KafkaArgs.bootstrapServers(args), client, watcher);
            } finally {
                if (watcher != null) {
                    watcher.close();
                }
            }
        }

        private int publish(
                String key, String bootstrap, Map<String, String> client, StatusWatcher watcher)
                throws Exception {
            Properties props = new Properties();
            props.putAll(client);
            props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
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
                if (watcher == null) {
                    return 0;
                }
                return follow(
                        watcher,
                        m.topic() + "/" + m.partition() + "@" + m.offset(),
                        System.nanoTime());
            }
        }

        /** Waits for the verdict on the message at {@code source}, then for its first rows. */
        private int follow(StatusWatcher watcher, String source, long published) {
            PrintWriter out = spec.commandLine().getOut();
            Duration timeout = Duration.ofSeconds(timeoutSeconds);
            var verdict = watcher.await(s -> source.equals(s.path("source").asText()), timeout);
            if (verdict.isEmpty()) {
                out.printf(
                        "no verdict on %s within %d s: is a stream reading the control topic?%n",
                        source, timeoutSeconds);
                return 1;
            }
            JsonNode v = verdict.get();
            long ms = (System.nanoTime() - published) / 1_000_000;
            if (!"accepted".equals(v.path("status").asText())) {
                out.printf("rejected after %,d ms:%n", ms);
                v.path("problems").forEach(p -> out.println("  " + p.asText()));
                return 2;
            }
            String pipeline = v.path("pipeline").asText();
            int version = v.path("version").asInt();
            out.printf(
                    "accepted after %,d ms: %s/%d replaces version %d; changed %s, new"
                            + " vocabulary epochs %s%n",
                    ms,
                    pipeline,
                    version,
                    v.path("previous_version").asInt(),
                    v.path("changed"),
                    v.path("new_epochs"));
            out.flush();
            var first =
                    watcher.await(
                            s ->
                                    "effective".equals(s.path("status").asText())
                                            && pipeline.equals(s.path("pipeline").asText())
                                            && s.path("version").asInt() == version,
                            timeout);
            if (first.isEmpty()) {
                out.printf(
                        "no rows under %s/%d committed within %d s (no input?)%n",
                        pipeline, version, timeoutSeconds);
                return 1;
            }
            JsonNode e = first.get();
            out.printf(
                    "first rows under %s/%d committed after %,d ms: %s partition %d from offset"
                            + " %d%n",
                    pipeline,
                    version,
                    (System.nanoTime() - published) / 1_000_000,
                    e.path("topic").asText(),
                    e.path("partition").asInt(),
                    e.path("offset").asLong());
            return 0;
        }
    }

    /** {@code piper spec show [FILE]}. */
    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = {
                "Show a spec's pipeline: each column's operator chain. Without FILE, the built-in"
                        + " DLRM Criteo spec; with --preset, a spec that ships with piper."
            })
    static final class Show implements Callable<Integer> {

        @Spec CommandSpec spec;

        @Parameters(arity = "0..1", paramLabel = "FILE", description = "The spec (JSON).")
        Path file;

        @Option(
                names = "--json",
                description = "Print the built-in (or preset) spec's JSON text instead.")
        boolean json;

        @Option(
                names = "--preset",
                paramLabel = "NAME",
                description =
                        "Show a preset: dlrm-criteo, dlrm-criteo-json, rm1..rm5 (PreSto's feature"
                                + " mixes).")
        String preset;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            Presets.Preset named = null;
            if (preset != null) {
                if (file != null) {
                    throw new ParameterException(
                            spec.commandLine(), "--preset names the spec; give no FILE");
                }
                try {
                    named = Presets.named(preset);
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), "--preset: " + e.getMessage());
                }
            }
            if (json) {
                if (file != null) {
                    throw new ParameterException(
                            spec.commandLine(),
                            "--json shows the built-in (or preset) spec; give no FILE");
                }
                byte[] text = named == null ? SpecParser.builtinText() : named.text();
                out.print(new String(text, StandardCharsets.UTF_8));
                out.flush();
                return 0;
            }
            PipelineSpec p;
            try {
                p =
                        named != null
                                ? named.spec()
                                : file == null
                                        ? SpecParser.builtin()
                                        : read(spec.commandLine(), file);
            } catch (SpecException e) {
                throw new IllegalArgumentException(
                        e.problems().size() + " problem(s): " + String.join("; ", e.problems()));
            }
            out.printf("pipeline %s version %d%n", p.name(), p.version());
            out.printf(
                    "input    %s%s%s%s%n",
                    p.input().format(),
                    p.layout().equals(RowLayout.CRITEO) ? "" : " (" + p.layout() + ")",
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
