package dev.piper.cli.serve;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.piper.core.serve.Transform;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * {@code piper serve}'s HTTP server (the JDK's own, {@code com.sun.net.httpserver}): {@code POST
 * /transform} turns a request's records, one a line, into the feed's rows ({@link Transform}, one
 * per serving thread, all sharing one {@link VocabularySnapshot}); {@code GET /health} and {@code
 * GET /metrics} (Prometheus' text format) say how it is. A record the feed would reject is a dead
 * letter in the answer, not an error; a request that is no request of this server is a 4xx naming
 * what is wrong; nothing a request holds stops the server (an unexpected failure is a 500 with its
 * cause, counted).
 *
 * <p>Every connection has Nagle's algorithm off ({@code TCP_NODELAY}): the JDK server writes an
 * answer's headers and its body in two segments, and with Nagle on the body waits for the client's
 * delayed ACK of the headers (40 ms on Linux) on every request of a kept-alive connection.
 */
public final class TransformServer implements AutoCloseable {

    /** The JDK server's switch for {@code TCP_NODELAY} on the connections it accepts. */
    static final String NODELAY = "sun.net.httpserver.nodelay";

    static {
        // Read once, when the JDK server's configuration class loads: before any server is made.
        // A -D on the command line wins.
        if (System.getProperty(NODELAY) == null) {
            System.setProperty(NODELAY, "true");
        }
    }

    /**
     * The most bytes of a request over the limit read and dropped before its 413 is answered, so
     * that a client that sends its whole body before reading gets the answer instead of a reset;
     * past it the connection is closed.
     */
    static final long DRAIN_LIMIT = 1L << 30;

    /**
     * The media types {@code POST /transform} reads (parameters such as {@code charset} aside), as
     * well as none: records one a line for a line format, length-prefixed records for a binary one,
     * and for both curl's default ({@code --data-binary} sends {@code
     * application/x-www-form-urlencoded}, as Python's {@code urllib} does) and {@code
     * application/octet-stream}.
     */
    static final java.util.Set<String> ANY_FORMAT_TYPES =
            java.util.Set.of("application/x-www-form-urlencoded", "application/octet-stream");

    static final java.util.Set<String> LINE_TYPES =
            java.util.Set.of(
                    "text/plain",
                    "text/csv",
                    "text/tab-separated-values",
                    "application/json",
                    "application/x-ndjson",
                    "application/jsonl",
                    "application/x-jsonlines");

    static final java.util.Set<String> BINARY_TYPES =
            java.util.Set.of(
                    "application/x-protobuf",
                    "application/protobuf",
                    "application/vnd.google.protobuf",
                    "application/avro",
                    "avro/binary");

    private final HttpServer http;
    private final ExecutorService threads;
    private final ThreadLocal<Transform> transforms;
    private final RowsJson json;
    private final ServeMetrics metrics;
    private final String health;
    private final int maxRequestBytes;

    /** Whether a request holds records one a line, else length-prefixed binary records. */
    private final boolean lines;

    private final java.util.concurrent.atomic.AtomicBoolean closed =
            new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Binds {@code address} (port 0: any free one) without answering yet.
     *
     * @param options the spec's decoding, of a line format
     * @param snapshot the vocabularies the rows take their indices from
     * @param health the body of {@code GET /health} (a JSON object)
     * @param threads serving threads
     * @param maxRequestBytes the largest request body taken (a larger one is a 413)
     */
    public TransformServer(
            DecodeOptions options,
            VocabularySnapshot snapshot,
            InetSocketAddress address,
            String health,
            int threads,
            int maxRequestBytes)
            throws IOException {
        this.transforms = ThreadLocal.withInitial(() -> new Transform(options, snapshot));
        this.json = new RowsJson(options.program());
        this.metrics = new ServeMetrics(options.program().layout());
        this.health = health;
        this.maxRequestBytes = maxRequestBytes;
        this.lines = Transform.readsLines(options);
        this.http = HttpServer.create(address, 64);
        this.threads = Executors.newFixedThreadPool(threads);
        http.setExecutor(this.threads);
        http.createContext("/transform", this::transform);
        http.createContext("/health", e -> answerGet(e, "/health", "application/json", health));
        http.createContext(
                "/metrics",
                e -> answerGet(e, "/metrics", "text/plain; version=0.0.4", metrics.text()));
        http.createContext(
                "/",
                e ->
                        error(
                                e,
                                404,
                                "no such path: "
                                        + e.getRequestURI().getPath()
                                        + " (POST /transform, GET /health, GET /metrics)"));
    }

    /** Starts answering. */
    public void start() {
        http.start();
    }

    /** The address it listens on (the port chosen, for port 0). */
    public InetSocketAddress address() {
        return http.getAddress();
    }

    /** Stops answering: requests in progress get a second to finish. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        http.stop(1);
        threads.shutdown();
        try {
            threads.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What {@code POST /transform} answers for {@code body}, without a server: {@code piper serve
     * --request}.
     *
     * @throws IllegalArgumentException if binary records are not framed as {@link LengthPrefixed}
     */
    public static byte[] answer(DecodeOptions options, VocabularySnapshot snapshot, byte[] body) {
        return new RowsJson(options.program())
                .write(
                        apply(
                                new Transform(options, snapshot),
                                Transform.readsLines(options),
                                body));
    }

    /**
     * A body's records through {@code t}: one a line for a line format, else length-prefixed
     * ({@link LengthPrefixed}).
     */
    private static Transform.Result apply(Transform t, boolean lines, byte[] body) {
        return lines ? t.applyLines(body) : t.apply(LengthPrefixed.split(body));
    }

    private void transform(HttpExchange e) throws IOException {
        long start = System.nanoTime();
        try (e) {
            if (!e.getRequestURI().getPath().equals("/transform")) {
                error(e, 404, "no such path: " + e.getRequestURI().getPath());
                return;
            }
            if (!e.getRequestMethod().equals("POST")) {
                e.getResponseHeaders().set("Allow", "POST");
                error(e, 405, "/transform takes POST, not " + e.getRequestMethod());
                return;
            }
            String type = e.getRequestHeaders().getFirst("Content-Type");
            if (!reads(type)) {
                drain(e.getRequestBody());
                error(
                        e,
                        415,
                        "Content-Type "
                                + type
                                + " is not read here: send the records "
                                + (lines
                                        ? "one a line as text/plain (or application/x-ndjson,"
                                                + " text/csv)"
                                        : "length-prefixed as application/octet-stream")
                                + ", or without a Content-Type");
                return;
            }
            byte[] body = readBody(e.getRequestBody());
            if (body == null) {
                drain(e.getRequestBody());
                error(
                        e,
                        413,
                        "the request is over " + maxRequestBytes + " bytes (--max-request-bytes)");
                return;
            }
            if (body.length == 0) {
                error(
                        e,
                        400,
                        lines
                                ? "no records: the body holds one record a line"
                                : "no records: the body holds records, each a 4-byte big-endian"
                                        + " length then the record");
                return;
            }
            Transform.Result result;
            try {
                result = apply(transforms.get(), lines, body);
            } catch (IllegalArgumentException framing) {
                error(e, 400, framing.getMessage());
                return;
            }
            byte[] answer = json.write(result);
            metrics.answered(result, System.nanoTime() - start);
            // counted before the answer leaves: a client that reads /metrics right after its
            // answer must find it counted (as error(...) does for the other codes)
            metrics.status(200);
            send(e, 200, "application/json", answer);
        } catch (RuntimeException bad) {
            metrics.failed();
            error(e, 500, "the transform failed: " + bad);
        }
    }

    /** Whether {@code POST /transform} reads a body of Content-Type {@code type} (null: none). */
    private boolean reads(String type) {
        if (type == null) {
            return true;
        }
        int semicolon = type.indexOf(';');
        String media =
                (semicolon < 0 ? type : type.substring(0, semicolon))
                        .strip()
                        .toLowerCase(java.util.Locale.ROOT);
        return media.isEmpty()
                || ANY_FORMAT_TYPES.contains(media)
                || (lines ? LINE_TYPES : BINARY_TYPES).contains(media);
    }

    /**
     * Reads and drops what is left of a request's body, up to {@link #DRAIN_LIMIT}, so that its
     * error answer reaches a client still sending: a server that answers and closes with unread
     * bytes in the socket resets the connection, and the client loses the answer.
     */
    private static void drain(InputStream in) throws IOException {
        byte[] sink = new byte[1 << 16];
        long left = DRAIN_LIMIT;
        int n;
        while (left > 0 && (n = in.read(sink, 0, (int) Math.min(sink.length, left))) > 0) {
            left -= n;
        }
    }

    /** The body, or null if it is longer than the limit. */
    private byte[] readBody(InputStream in) throws IOException {
        byte[] b = in.readNBytes(maxRequestBytes + 1);
        return b.length > maxRequestBytes ? null : b;
    }

    private void answerGet(HttpExchange e, String path, String type, String body)
            throws IOException {
        try (e) {
            if (!e.getRequestURI().getPath().equals(path)) {
                error(e, 404, "no such path: " + e.getRequestURI().getPath());
                return;
            }
            if (!e.getRequestMethod().equals("GET")) {
                e.getResponseHeaders().set("Allow", "GET");
                error(e, 405, e.getRequestURI().getPath() + " takes GET");
                return;
            }
            send(e, 200, type, body.getBytes(StandardCharsets.UTF_8));
        }
    }

    private void error(HttpExchange e, int code, String why) throws IOException {
        try (e) {
            metrics.status(code);
            send(e, code, "application/json", RowsJson.error(why));
        }
    }

    private static void send(HttpExchange e, int code, String type, byte[] body)
            throws IOException {
        e.getResponseHeaders().set("Content-Type", type);
        e.sendResponseHeaders(code, body.length);
        try (OutputStream out = e.getResponseBody()) {
            out.write(body);
        }
    }
}
