package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The check that a Grafana dashboard only uses what Flink's Prometheus endpoints serve: every
 * metric name in its queries, and every label it groups by or names in a legend.
 */
final class MetricsScrape {

    private static final Pattern METRIC = Pattern.compile("\\bflink_[A-Za-z0-9_]+");
    private static final Pattern BY = Pattern.compile("\\bby \\(([^)]*)\\)");
    private static final Pattern LEGEND = Pattern.compile("\\{\\{([A-Za-z_]+)}}");
    private static final Pattern LABEL = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"");

    private MetricsScrape() {}

    /** The metric names and label names the dashboard at {@code dashboard} uses. */
    static Used used(Path dashboard) throws IOException {
        JsonNode root = new ObjectMapper().readTree(dashboard.toFile());
        Set<String> metrics = new TreeSet<>();
        Set<String> labels = new TreeSet<>();
        for (JsonNode panel : root.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                Matcher m = METRIC.matcher(expr);
                while (m.find()) {
                    metrics.add(m.group());
                }
                Matcher by = BY.matcher(expr);
                while (by.find()) {
                    for (String label : by.group(1).split(",")) {
                        labels.add(label.trim());
                    }
                }
                Matcher legend = LEGEND.matcher(target.path("legendFormat").asText());
                while (legend.find()) {
                    labels.add(legend.group(1));
                }
            }
        }
        return new Used(metrics, labels);
    }

    record Used(Set<String> metrics, Set<String> labels) {}

    /**
     * Waits until the endpoints together serve every metric and label the dashboard uses (metrics
     * register as the job's operators open and see data), failing after {@code timeout} with the
     * ones still missing.
     */
    static void assertServes(Collection<String> endpoints, Path dashboard, Duration timeout)
            throws Exception {
        Used used = used(dashboard);
        assertThat(used.metrics()).as("metrics of %s", dashboard).hasSizeGreaterThan(10);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Set<String> served = new TreeSet<>();
            Set<String> labels = new TreeSet<>();
            for (String endpoint : endpoints) {
                String body =
                        http.send(
                                        HttpRequest.newBuilder(URI.create(endpoint)).build(),
                                        HttpResponse.BodyHandlers.ofString())
                                .body();
                for (String line : body.split("\n")) {
                    if (line.isEmpty() || line.startsWith("#")) {
                        continue;
                    }
                    int end = line.indexOf('{');
                    served.add(line.substring(0, end >= 0 ? end : line.indexOf(' ')));
                    Matcher label = LABEL.matcher(end >= 0 ? line.substring(end) : "");
                    while (label.find()) {
                        labels.add(label.group(1));
                    }
                }
            }
            Set<String> missing = new TreeSet<>(used.metrics());
            missing.removeAll(served);
            Set<String> missingLabels = new TreeSet<>(used.labels());
            missingLabels.removeAll(labels);
            if (missing.isEmpty() && missingLabels.isEmpty()) {
                // Issue 40: names that carry a job's name never match the documented ones; the
                // job name is the job_name label
                assertThat(served)
                        .as("metric names carrying a job's name")
                        .noneMatch(
                                n -> n.contains("piper_stream") || n.contains("piper_preprocess"));
                return;
            }
            assertThat(System.nanoTime())
                    .as(
                            "the endpoints %s serve the dashboard's metrics %s and labels %s",
                            endpoints, missing, missingLabels)
                    .isLessThan(deadline);
            Thread.sleep(500); // polling other processes' registries: no event to wait on
        }
    }
}
