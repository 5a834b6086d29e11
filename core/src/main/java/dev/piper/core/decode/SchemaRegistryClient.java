package dev.piper.core.decode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Asks a schema registry for writer schemas by id, through the Confluent Schema Registry API that
 * Confluent's registry and Apicurio's ({@code .../apis/ccompat/v7}) both serve: {@code GET
 * {base}/schemas/ids/{id}} answers {@code {"schema": "..."}}, or 404 for an id it does not know.
 * The JDK's HTTP client, no registry library (Confluent's client is not on Maven Central).
 *
 * <p>A registry that cannot be reached, or answers 5xx, is asked again with growing pauses for
 * {@code patience} (it may start after the job), then the lookup fails with the address and the
 * cause. Not thread-safe; the decoder caches what it gets.
 */
public final class SchemaRegistryClient implements WriterSchemas {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String base;
    private final Duration patience;
    private final HttpClient http;

    /**
     * @param base the registry's base URL, e.g. {@code http://localhost:8081}
     * @param patience how long an unreachable registry is retried before a lookup fails
     */
    public SchemaRegistryClient(String base, Duration patience) {
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.patience = patience;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @Override
    public String schema(int id) throws IOException {
        URI uri = URI.create(base + "/schemas/ids/" + Integer.toUnsignedString(id));
        HttpRequest request =
                HttpRequest.newBuilder(uri)
                        .timeout(Duration.ofSeconds(10))
                        .header(
                                "Accept",
                                "application/vnd.schemaregistry.v1+json, application/json")
                        .GET()
                        .build();
        long deadline = System.nanoTime() + patience.toNanos();
        long pause = 100;
        while (true) {
            String problem;
            HttpResponse<String> r = null;
            try {
                r = http.send(request, HttpResponse.BodyHandlers.ofString());
                problem = "HTTP " + r.statusCode() + ": " + clip(r.body());
            } catch (IOException e) {
                problem = e.toString(); // not reached, refused, timed out: asked again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while asking " + uri, e);
            }
            if (r != null && r.statusCode() == 200) {
                return schemaOf(uri, r.body());
            }
            if (r != null && r.statusCode() == 404) {
                return null;
            }
            if (r != null && r.statusCode() < 500) {
                throw new IOException(uri + " answered " + problem); // asking again won't help
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        "schema registry "
                                + base
                                + " did not answer for "
                                + patience.toSeconds()
                                + " s (asked for schema id "
                                + Integer.toUnsignedString(id)
                                + "): "
                                + problem);
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for " + base, e);
            }
            pause = Math.min(pause * 2, 2000);
        }
    }

    private static String schemaOf(URI uri, String body) throws IOException {
        JsonNode n;
        try {
            n = JSON.readTree(body);
        } catch (IOException bad) {
            throw new IOException(uri + " answered what is not JSON: " + clip(body), bad);
        }
        JsonNode schema = n == null ? null : n.get("schema");
        if (schema == null || !schema.isTextual()) {
            throw new IOException(uri + " answered without a \"schema\" text: " + clip(body));
        }
        return schema.asText();
    }

    private static String clip(String s) {
        return s == null || s.length() <= 200 ? String.valueOf(s) : s.substring(0, 200) + "...";
    }

    @Override
    public String describe() {
        return "the registry at " + base;
    }
}
