package dev.piper.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.cli.serve.TransformServer;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
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
                    + " input format, one a line (Criteo text, JSON or CSV events) or each a"
                    + " 4-byte big-endian length then the record (Avro datums, Protobuf"
                    + " messages), answers the"
                    + " rows the feed would make of them (JSON: rows, lists, event_times,"
                    + " dead_letters, unknown_keys), their indices from the vocabularies of"
                    + " --output-dir or --snapshot, which never grow. GET /health, GET /metrics"
                    + " (Prometheus)."
                    + " See docs/SERVING.md."
        })
final class ServeCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--output-dir",
            paramLabel = "DIR",
            description =
                    "A preprocess or consume output of the same spec: its vocab/ files at its end"
                            + " are the vocabularies the rows take their indices from.")
    Path dir;

    @Option(
            names = "--snapshot",
            paramLabel = "FILE",
            description =
                    "Instead of --output-dir: a snapshot file of 'piper vocab snapshot', the"
                            + " vocabularies at a position of the stream (a rows record's, a"
                            + " trainer checkpoint's).")
    Path snapshotFile;

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

    @Option(
            names = "--request",
            paramLabel = "FILE",
            description =
                    "Answer the records of FILE ('-': standard input), as POST /transform takes"
                            + " them, on standard output, and exit: no server.")
    Path request;

    @Override
    public Integer call() throws Exception {
        PipelineSpec pipeline = ServedSpec.of(spec, specFile, preset);
        DecodeOptions options = SpecCompiler.decodeOptions(pipeline, 1024);
        if (pipeline.input().avro() != null && pipeline.input().avro().schema() == null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "input.format avro: serve needs the writer schema of the datums it is sent"
                            + " (input.schema, a .avsc file or the schema inline); a schema"
                            + " registry's or a container file's is not read (docs/SERVING.md)");
        }
        VocabularySnapshot snapshot = snapshot(pipeline, options);
        if (request != null) {
            return answerOnce(options, snapshot);
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
                        health(pipeline, snapshot, dir, snapshotFile),
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
                    pipeline.name(),
                    pipeline.version(),
                    snapshot.source(),
                    at.getHostString(),
                    at.getPort());
            err.flush();
            stopped.await();
        } catch (IOException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--host/--port: cannot listen on " + host + ":" + port + ": " + e.getMessage());
        }
        return 0;
    }

    /** {@code --request}: one request's answer on standard output. */
    private int answerOnce(DecodeOptions options, VocabularySnapshot snapshot) throws IOException {
        byte[] body;
        try {
            body =
                    request.toString().equals("-")
                            ? System.in.readAllBytes()
                            : Files.readAllBytes(request);
        } catch (IOException e) {
            throw new ParameterException(
                    spec.commandLine(), "--request: cannot read " + request + ": " + e);
        }
        if (body.length == 0) {
            throw new ParameterException(
                    spec.commandLine(), "--request: " + request + " holds no records");
        }
        byte[] answer;
        try {
            answer = TransformServer.answer(options, snapshot, body);
        } catch (IllegalArgumentException framing) {
            throw new ParameterException(
                    spec.commandLine(), "--request: " + request + ": " + framing.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(new String(answer, StandardCharsets.UTF_8));
        out.flush();
        return 0;
    }

    /**
     * The vocabularies: of --output-dir, made by this spec; or of --snapshot, of this spec's
     * pipeline and columns.
     */
    private VocabularySnapshot snapshot(PipelineSpec pipeline, DecodeOptions options) {
        if ((dir == null) == (snapshotFile == null)) {
            throw new ParameterException(
                    spec.commandLine(), "--output-dir or --snapshot: give one of them");
        }
        if (dir != null) {
            try {
                ServedSpec.checkMadeBy(dir, pipeline);
                return VocabularySnapshot.read(dir, options.program());
            } catch (IOException e) {
                throw new ParameterException(spec.commandLine(), "--output-dir: " + e.getMessage());
            }
        }
        VocabularySnapshot snapshot;
        try {
            snapshot = VocabularySnapshot.load(snapshotFile);
            snapshot.checkFits(options.program());
        } catch (IOException | IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--snapshot: " + e.getMessage());
        }
        String label = ServedSpec.label(pipeline);
        if (!snapshot.pipeline().isEmpty() && !snapshot.pipeline().equals(label)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--snapshot: "
                            + snapshotFile
                            + " holds the vocabularies of pipeline "
                            + snapshot.pipeline()
                            + ", not of "
                            + label
                            + " (serve it with that spec)");
        }
        return snapshot;
    }

    /**
     * The body of {@code GET /health}: the spec, where the vocabularies were read ({@code
     * outputDir}, or {@code snapshotFile} and its source), and per sparse column the table size a
     * served model needs and the reserved index.
     */
    static String health(
            PipelineSpec pipeline, VocabularySnapshot snapshot, Path outputDir, Path snapshotFile) {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.put("status", "ok");
        root.put("spec", pipeline.name());
        root.put("version", pipeline.version());
        if (outputDir != null) {
            root.put("output_dir", outputDir.toAbsolutePath().toString());
        } else {
            root.put("snapshot", snapshotFile.toAbsolutePath().toString());
            root.put("vocabularies", snapshot.source());
        }
        // the rows a model's tables need to serve every index answered (a column without OOV
        // buckets: its entries and the reserved index's row), and the reserved index itself
        ObjectNode sizes = root.putObject("table_sizes");
        ObjectNode reserved = root.putObject("reserved_indices");
        for (int c = 0; c < snapshot.columns(); c++) {
            VocabularySnapshot.Column column = snapshot.columnList().get(c);
            sizes.put(column.name(), snapshot.tableSize(c));
            if (snapshot.hasReservedIndex(c)) {
                reserved.put(column.name(), snapshot.reservedIndex(c));
            } else {
                reserved.putNull(column.name());
            }
        }
        return root.toString();
    }
}
