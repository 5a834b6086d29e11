package dev.piper.cli.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

/**
 * The few calls of Flink's REST API that deploying a job needs (upload and run a jar, follow, stop
 * with a savepoint, cancel), with the JDK's HTTP client. Every error names the call and quotes
 * Flink's own message.
 */
public final class FlinkRest {

    /** Job states after which a job does not run again. */
    public static final Set<String> TERMINAL = Set.of("FINISHED", "FAILED", "CANCELED");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final HttpClient http;
    private final Duration timeout;

    /**
     * @param base the REST address, such as {@code http://127.0.0.1:8081}
     * @param timeout how long one call may take
     */
    public FlinkRest(URI base, Duration timeout) {
        String s = base.toString();
        this.base = URI.create(s.endsWith("/") ? s : s + "/");
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    public URI base() {
        return base;
    }

    /** The cluster answered a call with an error. */
    public static final class RestException extends IOException {
        private static final long serialVersionUID = 1L;

        private final String detail;

        RestException(String call, String detail) {
            super(call + ": " + detail);
            this.detail = detail;
        }

        /** Flink's message: the innermost cause of the error it reports. */
        public String detail() {
            return detail;
        }
    }

    /** A job's state, name and run time so far. */
    public record Job(String id, String name, String state, long startTime, long durationMillis) {

        /** A job as {@code GET /jobs/:id} and {@code GET /jobs/overview} describe it. */
        static Job of(JsonNode j) {
            return new Job(
                    j.path("jid").asText(),
                    j.path("name").asText(),
                    j.path("state").asText(),
                    j.path("start-time").asLong(),
                    j.path("duration").asLong());
        }

        public boolean terminal() {
            return TERMINAL.contains(state);
        }
    }

    /** The cluster's overview: task managers, slots, jobs by state, Flink version. */
    public JsonNode overview() throws IOException, InterruptedException {
        return call("GET", "overview", null);
    }

    /** The ids of the TaskManagers registered with the cluster. */
    public List<String> taskManagerIds() throws IOException, InterruptedException {
        List<String> ids = new java.util.ArrayList<>();
        for (JsonNode tm : call("GET", "taskmanagers", null).path("taskmanagers")) {
            ids.add(tm.path("id").asText());
        }
        return ids;
    }

    /** Uploads a job jar and returns the id the cluster gives it. */
    public String uploadJar(Path jar) throws IOException, InterruptedException {
        String boundary = "piper-" + UUID.randomUUID();
        String head =
                "--"
                        + boundary
                        + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                        + jar.getFileName()
                        + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n";
        String tail = "\r\n--" + boundary + "--\r\n";
        HttpRequest request =
                request("jars/upload")
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(
                                HttpRequest.BodyPublishers.concat(
                                        HttpRequest.BodyPublishers.ofString(head),
                                        HttpRequest.BodyPublishers.ofFile(jar),
                                        HttpRequest.BodyPublishers.ofString(tail)))
                        .build();
        JsonNode answer = send(request, "POST jars/upload");
        String file = answer.path("filename").asText("");
        if (file.isEmpty()) {
            throw new IOException("POST jars/upload: no file name in the answer " + answer);
        }
        return Path.of(file).getFileName().toString();
    }

    /**
     * Runs the uploaded jar's {@code entryClass} with {@code args} and returns the id of the job it
     * submitted.
     *
     * @param parallelism the job's default parallelism, or null for the cluster's
     * @param savepoint a savepoint to restore, or null
     */
    public String run(
            String jarId,
            String entryClass,
            Integer parallelism,
            List<String> args,
            String savepoint,
            boolean allowNonRestoredState)
            throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode();
        body.put("entryClass", entryClass);
        if (parallelism != null) {
            body.put("parallelism", parallelism);
        }
        var list = body.putArray("programArgsList");
        args.forEach(list::add);
        if (savepoint != null) {
            body.put("savepointPath", savepoint);
            body.put("allowNonRestoredState", allowNonRestoredState);
        }
        JsonNode answer = call("POST", "jars/" + jarId + "/run", body);
        String id = answer.path("jobid").asText("");
        if (id.isEmpty()) {
            throw new IOException("POST jars/" + jarId + "/run: no job id in the answer " + answer);
        }
        return id;
    }

    /** Removes an uploaded jar from the cluster's upload directory. */
    public void deleteJar(String jarId) throws IOException, InterruptedException {
        call("DELETE", "jars/" + jarId, null);
    }

    /** One job's state. */
    public Job job(String id) throws IOException, InterruptedException {
        JsonNode j = call("GET", "jobs/" + id, null);
        return Job.of(j);
    }

    /** Whether every task of a running job is running (or already finished). */
    public boolean allTasksRunning(String id) throws IOException, InterruptedException {
        JsonNode j = call("GET", "jobs/" + id, null);
        if (!"RUNNING".equals(j.path("state").asText())) {
            return false;
        }
        for (JsonNode vertex : j.path("vertices")) {
            String state = vertex.path("status").asText();
            if (!state.equals("RUNNING") && !state.equals("FINISHED")) {
                return false;
            }
        }
        return true;
    }

    /**
     * The sum of a metric over every subtask of a running job that reports it (operator metrics are
     * named {@code <operator>.<metric>}), or empty if none does yet. The JobManager refreshes the
     * figures every {@code metrics.fetcher.update-interval} (10 s by default).
     */
    public OptionalLong metricSum(String id, String metric)
            throws IOException, InterruptedException {
        long sum = 0;
        boolean found = false;
        for (JsonNode vertex : call("GET", "jobs/" + id, null).path("vertices")) {
            String path =
                    "jobs/" + id + "/vertices/" + vertex.path("id").asText() + "/subtasks/metrics";
            for (JsonNode available : call("GET", path, null)) {
                String name = available.path("id").asText();
                if (!name.equals(metric) && !name.endsWith("." + metric)) {
                    continue;
                }
                for (JsonNode value : call("GET", path + "?agg=sum&get=" + name, null)) {
                    sum += (long) value.path("sum").asDouble();
                    found = true;
                }
            }
        }
        return found ? OptionalLong.of(sum) : OptionalLong.empty();
    }

    /** Every job the cluster knows, newest first. */
    public List<Job> jobs() throws IOException, InterruptedException {
        List<Job> jobs = new ArrayList<>();
        for (JsonNode j : call("GET", "jobs/overview", null).path("jobs")) {
            jobs.add(Job.of(j));
        }
        jobs.sort((a, b) -> Long.compare(b.startTime(), a.startTime()));
        return jobs;
    }

    /**
     * The exception that failed the job, as its innermost cause's line (the whole trace is in the
     * cluster's logs and web UI), or empty if the cluster recorded none.
     */
    public String failureCause(String id) throws IOException, InterruptedException {
        return failureCause(call("GET", "jobs/" + id + "/exceptions?maxExceptions=20", null));
    }

    /**
     * The cause in a job's exception history ({@code /jobs/:id/exceptions}): the newest failure
     * that is not only the echo of another. When one task fails, Flink may record the failure of an
     * operator coordinator that could no longer reach it ({@code TaskNotRunningException}) as a
     * newer entry or beside the real one; the real one is what a user needs.
     */
    static String failureCause(JsonNode exceptions) {
        List<String> traces = new ArrayList<>();
        for (JsonNode entry : exceptions.path("exceptionHistory").path("entries")) {
            traces.add(entry.path("stacktrace").asText(""));
            for (JsonNode concurrent : entry.path("concurrentExceptions")) {
                traces.add(concurrent.path("stacktrace").asText(""));
            }
        }
        traces.add(exceptions.path("root-exception").asText(""));
        traces.removeIf(String::isBlank);
        for (String trace : traces) {
            String cause = innermostCause(trace);
            if (ECHOES.stream().noneMatch(cause::startsWith)) {
                return cause;
            }
        }
        return traces.isEmpty() ? "" : innermostCause(traces.get(0));
    }

    /** Failures that only report that another task failed first. */
    private static final List<String> ECHOES =
            List.of("org.apache.flink.runtime.operators.coordination.TaskNotRunningException");

    /**
     * Triggers a savepoint (into {@code directory}, or the cluster's default savepoint directory
     * when null), optionally stopping the job with it, and waits for it.
     *
     * @return the savepoint's location
     */
    public String savepoint(String id, String directory, boolean stop, Duration wait)
            throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode();
        String trigger;
        if (stop) {
            if (directory != null) {
                body.put("targetDirectory", directory);
            }
            body.put("drain", false);
            trigger = call("POST", "jobs/" + id + "/stop", body).path("request-id").asText();
        } else {
            if (directory != null) {
                body.put("target-directory", directory);
            }
            body.put("cancel-job", false);
            trigger = call("POST", "jobs/" + id + "/savepoints", body).path("request-id").asText();
        }
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            JsonNode s = call("GET", "jobs/" + id + "/savepoints/" + trigger, null);
            if ("COMPLETED".equals(s.path("status").path("id").asText())) {
                JsonNode op = s.path("operation");
                if (op.has("failure-cause")) {
                    throw new IOException(
                            "the savepoint of job "
                                    + id
                                    + " failed: "
                                    + innermostCause(
                                            op.path("failure-cause")
                                                    .path("stack-trace")
                                                    .asText(op.path("failure-cause").toString())));
                }
                return op.path("location").asText();
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        "the savepoint of job " + id + " did not complete within " + wait);
            }
            Thread.sleep(200); // polling a remote operation: the REST API has nothing to wait on
        }
    }

    /**
     * Waits until the job has ended (finished, failed or cancelled) and returns its last state.
     *
     * @throws IOException if it has not ended within {@code wait}
     */
    public Job awaitEnd(String id, Duration wait) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Job job = job(id);
            if (job.terminal()) {
                return job;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("job " + id + " is still " + job.state() + " after " + wait);
            }
            Thread.sleep(200); // polling a remote job: the REST API has nothing to wait on
        }
    }

    /**
     * The parallelism a job submitted without one should get: the cluster's {@code
     * parallelism.default} where its configuration sets one, else every slot it has. (A REST
     * submission without a parallelism runs at 1: Flink's jar handler passes "default", -1, which
     * overrides the cluster's setting and is scheduled as 1.)
     */
    public int defaultParallelism() throws IOException, InterruptedException {
        for (JsonNode entry : call("GET", "jobmanager/config", null)) {
            if (entry.path("key").asText().equals("parallelism.default")) {
                int configured = entry.path("value").asInt(-1);
                if (configured > 0) {
                    return configured;
                }
            }
        }
        return Math.max(1, overview().path("slots-total").asInt(1));
    }

    /** The largest parallelism of job {@code id}'s operators. */
    public int parallelism(String id) throws IOException, InterruptedException {
        int max = 0;
        for (JsonNode vertex : call("GET", "jobs/" + id, null).path("vertices")) {
            max = Math.max(max, vertex.path("parallelism").asInt());
        }
        return max;
    }

    /** How often job {@code id} has restarted (its {@code numRestarts} metric). */
    public long restarts(String id) throws IOException, InterruptedException {
        for (JsonNode m : call("GET", "jobs/" + id + "/metrics?get=numRestarts", null)) {
            return m.path("value").asLong();
        }
        return 0;
    }

    /** Where the job's latest completed checkpoint is, if it has one. */
    public Optional<String> latestCheckpoint(String id) throws IOException, InterruptedException {
        JsonNode completed =
                call("GET", "jobs/" + id + "/checkpoints", null).path("latest").path("completed");
        String path = completed.path("external_path").asText("");
        return path.isEmpty() ? Optional.empty() : Optional.of(path);
    }

    /**
     * Whether job {@code id} takes checkpoints ({@code GET jobs/:id/checkpoints/config} answers
     * only for such a job).
     */
    public boolean checkpoints(String id) throws IOException, InterruptedException {
        try {
            return call("GET", "jobs/" + id + "/checkpoints/config", null).has("interval");
        } catch (RestException e) {
            return false;
        }
    }

    /** Cancels a job (no savepoint). */
    public void cancel(String id) throws IOException, InterruptedException {
        call("PATCH", "jobs/" + id + "?mode=cancel", null);
    }

    /** The innermost "Caused by:" of a Java stack trace, or its first line if there is none. */
    static String innermostCause(String trace) {
        List<String> causes = new java.util.ArrayList<>();
        causes.add(trace.lines().findFirst().orElse("").strip());
        for (String l : (Iterable<String>) trace.lines()::iterator) {
            if (l.startsWith("Caused by: ")) {
                causes.add(l.substring("Caused by: ".length()).strip());
            }
        }
        // The innermost cause, or the outermost of the causes of its class that only add
        // context to its message ("IOException: /data/out/rows.bin: No space left on device"
        // around "IOException: No space left on device").
        String innermost = causes.get(causes.size() - 1);
        int colon = innermost.indexOf(": ");
        if (colon < 0) {
            return innermost;
        }
        String type = innermost.substring(0, colon + 2);
        String message = innermost.substring(colon + 2);
        String best = innermost;
        for (int i = causes.size() - 2; i >= 0; i--) {
            String c = causes.get(i);
            if (!c.startsWith(type)
                    || !c.endsWith(": " + message)
                    || c.length() == innermost.length()) {
                break;
            }
            best = c;
        }
        return best;
    }

    private JsonNode call(String method, String path, JsonNode body)
            throws IOException, InterruptedException {
        HttpRequest.BodyPublisher publisher =
                body == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(
                                JSON.writeValueAsString(body), StandardCharsets.UTF_8);
        HttpRequest.Builder b = request(path).method(method, publisher);
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return send(b.build(), method + " " + path);
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(timeout);
    }

    private JsonNode send(HttpRequest request, String what)
            throws IOException, InterruptedException {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IOException(
                    what + ": no answer from " + base + " (" + e.getClass().getSimpleName() + ")",
                    e);
        }
        String text = response.body();
        JsonNode json = text == null || text.isBlank() ? JSON.createObjectNode() : parse(text);
        if (response.statusCode() / 100 != 2) {
            List<String> errors = new ArrayList<>();
            json.path("errors").forEach(e -> errors.add(e.asText()));
            String detail = errors.isEmpty() ? text : innermostCause(String.join("\n", errors));
            throw new RestException(
                    what + ": HTTP " + response.statusCode() + " from " + base, detail);
        }
        return json;
    }

    private static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            return JSON.getNodeFactory().textNode(text);
        }
    }
}
