package dev.piper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.cli.serve.TransformServer;
import dev.piper.core.serve.Transform;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code piper serve}: the serving transform over HTTP ({@link TransformServer}), with the
 * vocabularies of a finished output, so that requests become the rows the feed made of the same
 * records (docs/SERVING.md).
 */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description = {
            "Serve the feed's transform over HTTP: POST /transform with records of the spec's"
                    + " input format, one a line (Criteo text, JSON or CSV events), answers the"
                    + " rows the feed would make of them (JSON: rows, lists, event_times,"
                    + " dead_letters, unknown_keys), their indices from the vocabularies of"
                    + " --output-dir, which never grow. GET /health, GET /metrics (Prometheus)."
                    + " See docs/SERVING.md."
        })
final class ServeCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--output-dir",
            required = true,
            paramLabel = "DIR",
            description =
                    "A preprocess or consume output of the same spec: its vocab/ files are the"
                            + " vocabularies the rows take their indices from.")
    Path dir;

    @Option(
            names = "--spec",
            paramLabel = "FILE",
            description = "The output's pipeline spec (default: the built-in DLRM Criteo spec).")
    Path specFile;

    @Option(
            names = "--preset",
            paramLabel = "NAME",
            description = "A spec that ships with piper instead of --spec (docs/SPECS.md).")
    String preset;

    @Option(
            names = "--host",
            paramLabel = "HOST",
            defaultValue = "127.0.0.1",
            description = "The address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "8089",
            description = "The port to listen on; 0 takes a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(
            names = "--threads",
            paramLabel = "N",
            description = "Serving threads (default: the machine's cores).")
    Integer threads;

    @Option(
            names = "--max-request-bytes",
            paramLabel = "B",
            defaultValue = "16777216",
            description =
                    "The largest request body taken; larger ones get 413 (default:"
                            + " ${DEFAULT-VALUE}).")
    int maxRequestBytes;

    @Override
    public Integer call() throws Exception {
        PipelineSpec pipeline = pipeline();
        DecodeOptions options = SpecCompiler.decodeOptions(pipeline, 1024);
        if (!Transform.readsLines(options)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "input.format "
                            + pipeline.input().format()
                            + ": serve takes records of lines (criteo-tsv, json, csv); transform"
                            + " Avro or Protobuf records with the Java library (docs/SERVING.md)");
        }
        VocabularySnapshot snapshot;
        try {
            checkMadeBy(pipeline);
            snapshot = VocabularySnapshot.read(dir, options.program());
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--output-dir: " + e.getMessage());
        }
        if (port < 0 || port > 65535) {
            throw new ParameterException(spec.commandLine(), "--port: " + port + " is no port");
        }
        int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        if (n < 1 || maxRequestBytes < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--threads and --max-request-bytes must be positive");
        }
        PrintWriter err = spec.commandLine().getErr();
        CountDownLatch stopped = new CountDownLatch(1);
        try (TransformServer server =
                new TransformServer(
                        options,
                        snapshot,
                        new InetSocketAddress(host, port),
                        health(pipeline, snapshot),
                        n,
                        maxRequestBytes)) {
            Runtime.getRuntime()
                    .addShutdownHook(
                            new Thread(
                                    () -> {
                                        server.close();
                                        stopped.countDown();
                                    },
                                    "piper-serve-stop"));
            server.start();
            InetSocketAddress at = server.address();
            err.printf(
                    "serve: spec %s version %d, vocabularies of %s; listening on http://%s:%d"
                            + " (POST /transform, GET /health, GET /metrics); Ctrl-C stops%n",
                    pipeline.name(), pipeline.version(), dir, at.getHostString(), at.getPort());
            err.flush();
            stopped.await();
        } catch (IOException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--host/--port: cannot listen on " + host + ":" + port + ": " + e.getMessage());
        }
        return 0;
    }

    /** The spec: --spec, --preset or the built-in one. */
    private PipelineSpec pipeline() throws IOException {
        if (specFile != null && preset != null) {
            throw new ParameterException(spec.commandLine(), "--spec and --preset: give one");
        }
        PipelineSpec pipeline;
        try {
            pipeline =
                    specFile != null
                            ? SpecParser.parse(specFile)
                            : preset != null ? Presets.named(preset).spec() : SpecParser.builtin();
        } catch (SpecException | IllegalArgumentException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    (specFile != null ? "--spec: " : "--preset: ") + e.getMessage());
        }
        return pipeline;
    }

    /**
     * Refuses an output made by another spec (its metadata.json's pipeline name and version): its
     * vocabularies would give other keys' indices.
     */
    private void checkMadeBy(PipelineSpec pipeline) throws IOException {
        Path metadata = dir.resolve("metadata.json");
        if (!Files.isRegularFile(metadata)) {
            throw new IOException(metadata + " is missing: not a finished output");
        }
        JsonNode made = new ObjectMapper().readTree(metadata.toFile()).path("pipeline");
        String name = made.path("name").asText("");
        int version = made.path("version").asInt(-1);
        if (!name.equals(pipeline.name()) || version != pipeline.version()) {
            throw new IOException(
                    dir
                            + " was made by spec "
                            + name
                            + " version "
                            + version
                            + ", not by "
                            + pipeline.name()
                            + " version "
                            + pipeline.version()
                            + ": its vocabularies are another pipeline's (serve it with that"
                            + " spec)");
        }
    }

    private String health(PipelineSpec pipeline, VocabularySnapshot snapshot) {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.put("status", "ok");
        root.put("spec", pipeline.name());
        root.put("version", pipeline.version());
        root.put("output_dir", dir.toAbsolutePath().toString());
        ObjectNode sizes = root.putObject("table_sizes");
        for (int c = 0; c < snapshot.columns(); c++) {
            sizes.put(
                    pipeline.layout().fieldName(pipeline.layout().labelDenseWidth() + c),
                    snapshot.tableSize(c));
        }
        return root.toString();
    }
}
