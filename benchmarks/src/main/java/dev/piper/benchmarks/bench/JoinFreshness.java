package dev.piper.benchmarks.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.feed.TopicCreation;
import dev.piper.pipeline.join.ActionStream;
import dev.piper.pipeline.join.JoinSettings;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code piper bench --join B --freshness RATE}: how soon after its window closes a labelled
 * impression is committed, with the impressions arriving live. The logs of {@code generate --events
 * json --actions} are re-timed to the wall clock, every event time scaled by one factor so that the
 * impressions' times advance at RATE a second (the clicks' delays scale with them), and sent to
 * their topics as the wall clock reaches each record's time (a record that the log has out of order
 * goes out right after its predecessor, so it arrives late as it would); one cold {@code piper
 * stream} joins them, and a read_committed consumer notes when each row of the output arrives. A
 * row's impression at time t can be decided once the watermark passes t + window, which the join's
 * reading reaches at wall time t + window + max_out_of_orderness (the spec's bound on disorder is a
 * wait the user declares); the figure is, per row, the arrival less that moment, its percentiles
 * over every row whose decision falls while the input still flows (the watermark of a log that
 * stops does not advance, so the last window's rows stay in state, as in production).
 */
final class JoinFreshness {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * How long after the last record is sent the decisions are no longer counted: the join sees the
     * end of a partition's records only through its watermark, which the last records move.
     */
    private static final long TAIL_MARGIN_MS = 1_000;

    /** The partitions of each topic, as {@code bench --join}'s. */
    private static final int PARTITIONS = 2;

    /**
     * Per row counted, how long after its earliest decision it was committed, in seconds, sorted.
     */
    record Lateness(double[] sorted) {

        double at(double q) {
            return percentile(sorted, q);
        }

        double min() {
            return sorted.length == 0 ? Double.NaN : sorted[0];
        }

        double max() {
            return sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1];
        }

        int rows() {
            return sorted.length;
        }
    }

    /**
     * The outcome of a run.
     *
     * @param steady the rows whose decision fell after the warm-up
     * @param all every row decided while the input flowed
     * @param written of the steady rows: from the decision to their record's write by the stream's
     *     sink (the join's own lag: watermark, key join, order, blocks)
     * @param commitWait of the steady rows: from their record's write to its arrival as committed
     *     (the checkpoint that commits the transaction, and the read)
     * @param lastRowBeforeEndSeconds the latest row's impression time before the end of the input
     */
    record Result(
            double rate,
            long windowMs,
            long boundMs,
            long checkpointMs,
            long warmupMs,
            long impressionsSent,
            long clicksSent,
            double sendSeconds,
            double impressionSeconds,
            long rowsExpected,
            long rowsLater,
            Lateness steady,
            Lateness all,
            Lateness written,
            Lateness commitWait,
            double lastRowBeforeEndSeconds) {

        double achievedRate() {
            return impressionsSent / impressionSeconds;
        }

        double p99() {
            return steady.at(0.99);
        }

        /** The acceptance's bound: the checkpoint interval and one second. */
        double targetSeconds() {
            return checkpointMs / 1000.0 + 1.0;
        }
    }

    private final String bootstrap;
    private final double rate;
    private final String window; // the click window the spec gets
    private final Duration checkpoint;
    private final Duration warmup;
    private final List<String> relaunch;
    private final List<String> streamArgs;
    private final PrintStream progress;

    JoinFreshness(
            String bootstrap,
            double rate,
            String window,
            Duration checkpoint,
            Duration warmup,
            List<String> relaunch,
            List<String> streamArgs,
            PrintStream progress) {
        if (!(rate > 0)) {
            throw new IllegalArgumentException("--freshness must be impressions/s > 0: " + rate);
        }
        this.bootstrap = bootstrap;
        this.rate = rate;
        this.window = Objects.requireNonNull(window, "window");
        this.checkpoint = checkpoint;
        this.warmup = warmup;
        this.relaunch = List.copyOf(relaunch);
        this.streamArgs = List.copyOf(streamArgs);
        this.progress = progress;
    }

    /**
     * Runs one cold stream over the logs in {@code logs} (as {@link JoinBench#logs} makes them).
     */
    Result run(Path logs, Path work, String run) throws Exception {
        String impressionsTopic = run + "-impressions";
        String clicksTopic = run + "-clicks";
        String id = run + "-fresh";
        Path spec = work.resolve("fresh.json");
        ObjectNode s = JoinBench.joinSpec(logs.resolve("impressions.spec.json"), clicksTopic);
        ((ObjectNode) s.path("labels").path("streams").path("click")).put("window", window);
        JoinBench.writeResult(s, spec);
        String timeField = s.path("input").path("timestamp").asText();
        JoinSettings join = SpecParser.parse(spec).labels().join();
        long windowMs = join.streams().stream().mapToLong(ActionStream::windowMs).max().orElse(0);
        long boundMs = join.maxOutOfOrdernessMs();
        progress.printf("bench: reading %s into memory%n", logs);
        LiveLog impressions = LiveLog.read(logs.resolve("impressions.jsonl"), timeField);
        LiveLog clicks = LiveLog.read(logs.resolve("clicks.jsonl"), timeField);
        double sendMs = checkLength(impressions.size(), windowMs + boundMs);
        TopicCreation.createIfAbsent(bootstrap, Map.of(), impressionsTopic, PARTITIONS, progress);
        TopicCreation.createIfAbsent(bootstrap, Map.of(), clicksTopic, PARTITIONS, progress);
        progress.printf(
                "bench: cold piper stream, the impressions live at %,.0f/s (window %d ms,"
                        + " max_out_of_orderness %d ms, checkpoint every %d ms)%n",
                rate, windowMs, boundMs, checkpoint.toMillis());
        Path log = work.resolve(id + ".log");
        Process stream =
                new ProcessBuilder(
                                JoinBench.streamCommand(
                                        relaunch,
                                        streamArgs,
                                        bootstrap,
                                        spec,
                                        impressionsTopic,
                                        id,
                                        work,
                                        "--checkpoint-interval",
                                        checkpoint.toMillis() + "ms"))
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        try {
            awaitRunning(stream, log);
            RowArrivals arrivals = new RowArrivals(bootstrap, id + "-rows");
            Thread reader = new Thread(arrivals, "freshness-reader");
            reader.start();
            Timing timing = Timing.of(impressions, sendMs, System.currentTimeMillis() + 1_000);
            Sent sent =
                    send(
                            new LiveLog[] {impressions, clicks},
                            impressionsTopic,
                            clicksTopic,
                            timing);
            progress.printf(
                    "bench: sent %,d impressions and %,d clicks in %.1f s (%,.0f impressions/s)%n",
                    sent.impressions,
                    sent.clicks,
                    sent.seconds,
                    sent.impressions / sent.impressionSeconds);
            awaitEnd(stream, log, arrivals, reader);
            long decidedBy = sent.lastSentMs - TAIL_MARGIN_MS;
            long expected = 0;
            for (long t : impressions.times()) {
                if (timing.at(t) + windowMs + boundMs <= decidedBy) {
                    expected++;
                }
            }
            return result(
                    arrivals,
                    expected,
                    decidedBy,
                    timing.t0() + warmup.toMillis(),
                    windowMs,
                    boundMs,
                    sent);
        } finally {
            stream.destroyForcibly();
            deleteQuietly(work.resolve(id + "-checkpoints"));
        }
    }

    /**
     * How long {@code impressions} take at the rate, in ms; refused where no row would be counted
     * (all decided within the warm-up, or none while the input flows).
     */
    private double checkLength(int impressions, long decisionMs) {
        double sendMs = impressions / rate * 1000.0;
        if (sendMs <= warmup.toMillis() + TAIL_MARGIN_MS || sendMs <= decisionMs + TAIL_MARGIN_MS) {
            throw new IllegalArgumentException(
                    String.format(
                            "%,d impressions at %,.0f/s are sent in %.1f s, within the warm-up"
                                    + " (%d ms) or the window and max_out_of_orderness (%d ms):"
                                    + " no row would be counted; give more --rows",
                            impressions, rate, sendMs / 1000, warmup.toMillis(), decisionMs));
        }
        return sendMs;
    }

    /** Waits for the stream's end (exit code 0), then for the reader's, which reads to the end. */
    private static void awaitEnd(Process stream, Path log, RowArrivals arrivals, Thread reader)
            throws Exception {
        int code = waitFor(stream, log);
        if (code != 0) {
            throw new IllegalStateException(
                    "piper stream exited with " + code + "; its output is in " + log);
        }
        arrivals.finish();
        reader.join(TimeUnit.MINUTES.toMillis(3)); // it gives up itself after 2
        if (reader.isAlive()) {
            throw new IllegalStateException(
                    "reading the rows did not end within 3 minutes of the stream's end");
        }
        if (arrivals.failure.get() != null) {
            throw new IllegalStateException("reading the rows failed", arrivals.failure.get());
        }
    }

    private Result result(
            RowArrivals arrivals,
            long expected,
            long decidedBy,
            long warmedAt,
            long windowMs,
            long boundMs,
            Sent sent) {
        int n = arrivals.count;
        double[] all = new double[n];
        double[] steady = new double[n];
        double[] written = new double[n];
        double[] commitWait = new double[n];
        int m = 0;
        int k = 0;
        long later = 0;
        long latest = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            latest = Math.max(latest, arrivals.eventTimes[i]);
            long close = arrivals.eventTimes[i] + windowMs + boundMs;
            if (close > decidedBy) {
                later++;
                continue;
            }
            double late = (arrivals.arrivedMs[i] - close) / 1000.0;
            all[m++] = late;
            if (close >= warmedAt) {
                written[k] = (arrivals.writtenMs[i] - close) / 1000.0;
                commitWait[k] = (arrivals.arrivedMs[i] - arrivals.writtenMs[i]) / 1000.0;
                steady[k++] = late;
            }
        }
        all = Arrays.copyOf(all, m);
        steady = Arrays.copyOf(steady, k);
        written = Arrays.copyOf(written, k);
        commitWait = Arrays.copyOf(commitWait, k);
        Arrays.sort(all);
        Arrays.sort(steady);
        Arrays.sort(written);
        Arrays.sort(commitWait);
        return new Result(
                rate,
                windowMs,
                boundMs,
                checkpoint.toMillis(),
                warmup.toMillis(),
                sent.impressions,
                sent.clicks,
                sent.seconds,
                sent.impressionSeconds,
                expected,
                later,
                new Lateness(steady),
                new Lateness(all),
                new Lateness(written),
                new Lateness(commitWait),
                n == 0 ? Double.NaN : (sent.lastSentMs - latest) / 1000.0);
    }

    /** The value at quantile {@code q} of the sorted {@code v} (nearest rank), NaN for none. */
    static double percentile(double[] v, double q) {
        if (v.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * v.length);
        return v[Math.min(v.length, Math.max(1, rank)) - 1];
    }

    /** Prints the figure against its target first, then the details. */
    static void print(Result r, PrintWriter out) {
        out.printf(
                "join freshness: p99 %.2f s from the earliest decision (window close +"
                        + " max_out_of_orderness) to the row committed, target <= %.2f s"
                        + " (checkpoint interval + 1 s): %s; at %,.0f impressions/s (asked"
                        + " %,.0f), after a %d s warm-up, %d cores%n",
                r.p99(),
                r.targetSeconds(),
                r.p99() <= r.targetSeconds() ? "met" : "NOT met",
                r.achievedRate(),
                r.rate(),
                r.warmupMs() / 1000,
                Runtime.getRuntime().availableProcessors());
        for (Map.Entry<String, Lateness> e :
                List.of(
                        Map.entry("after the warm-up", r.steady()),
                        Map.entry("every row", r.all()))) {
            String what = e.getKey();
            Lateness l = e.getValue();
            out.printf(
                    "  %-17s %,9d rows: p50 %.2f s, p90 %.2f s, p99 %.2f s, p99.9 %.2f s, max"
                            + " %.2f s%n",
                    what, l.rows(), l.at(0.5), l.at(0.9), l.at(0.99), l.at(0.999), l.max());
        }
        out.printf(
                "  after the warm-up, split: written by the stream p50 %.2f s, p99 %.2f s after"
                        + " the decision; then committed and read p50 %.2f s, p99 %.2f s after"
                        + " written (a record's write time is its Kafka timestamp)%n",
                r.written().at(0.5),
                r.written().at(0.99),
                r.commitWait().at(0.5),
                r.commitWait().at(0.99));
        out.printf(
                "  window %d ms, max_out_of_orderness %d ms, checkpoint interval %d ms; %,d"
                        + " impressions and %,d clicks sent in %.1f s; %,d rows decided while"
                        + " they flowed, of %,d impressions (%,d rows of later windows); the"
                        + " last row committed of an impression %.2f s before the input's end%n",
                r.windowMs(),
                r.boundMs(),
                r.checkpointMs(),
                r.impressionsSent(),
                r.clicksSent(),
                r.sendSeconds(),
                r.all().rows(),
                r.rowsExpected(),
                r.rowsLater(),
                r.lastRowBeforeEndSeconds());
        if (r.all().rows() != r.rowsExpected()) {
            out.printf(
                    "  note: %,d impressions decided while the input flowed have no committed"
                            + " row (dead letters, and negatives sampled out, are not rows)%n",
                    r.rowsExpected() - r.all().rows());
        }
    }

    /** Writes {@code r} as JSON to {@code json}. */
    static void writeJson(Result r, Path json) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("asked_impressions_per_s", r.rate());
        root.put("impressions_per_s", r.achievedRate());
        root.put("cores", Runtime.getRuntime().availableProcessors());
        root.put("window_ms", r.windowMs());
        root.put("max_out_of_orderness_ms", r.boundMs());
        root.put("checkpoint_interval_ms", r.checkpointMs());
        root.put("warmup_ms", r.warmupMs());
        root.put("target_s", r.targetSeconds());
        root.put("p99_s", r.p99());
        for (Map.Entry<String, Lateness> e :
                List.of(Map.entry("steady", r.steady()), Map.entry("all", r.all()))) {
            Lateness l = e.getValue();
            ObjectNode n = root.putObject(e.getKey());
            n.put("rows", l.rows());
            n.put("min_s", l.min());
            n.put("p50_s", l.at(0.5));
            n.put("p90_s", l.at(0.9));
            n.put("p99_s", l.at(0.99));
            n.put("p999_s", l.at(0.999));
            n.put("max_s", l.max());
        }
        for (Map.Entry<String, Lateness> e :
                List.of(
                        Map.entry("steady_written", r.written()),
                        Map.entry("steady_commit_wait", r.commitWait()))) {
            ObjectNode n = root.putObject(e.getKey());
            n.put("p50_s", e.getValue().at(0.5));
            n.put("p99_s", e.getValue().at(0.99));
            n.put("max_s", e.getValue().max());
        }
        root.put("rows_expected", r.rowsExpected());
        root.put("rows_of_later_windows", r.rowsLater());
        root.put("impressions_sent", r.impressionsSent());
        root.put("clicks_sent", r.clicksSent());
        root.put("send_s", r.sendSeconds());
        root.put("last_row_before_end_s", r.lastRowBeforeEndSeconds());
        JoinBench.writeResult(root, json);
    }

    /**
     * The re-timing: a record of original time {@code t} is sent at (and carries) wall time {@code
     * t0 + (t - first) * scale}.
     */
    private record Timing(long first, double scale, long t0) {

        /** One factor for every time: the impressions' times then span {@code sendMs}. */
        static Timing of(LiveLog impressions, double sendMs, long t0) {
            long first = Arrays.stream(impressions.times()).min().orElseThrow();
            long last = Arrays.stream(impressions.times()).max().orElseThrow();
            return new Timing(first, sendMs / Math.max(1, last - first), t0);
        }

        long at(long t) {
            return t0 + Math.round((t - first) * scale);
        }
    }

    /**
     * What was sent: its counts, how long it took, and the time of the last record of the topic
     * whose records end first (the join's watermark, the slowest partition's, goes no further).
     */
    private record Sent(
            long impressions,
            long clicks,
            double seconds,
            double impressionSeconds,
            long lastSentMs) {}

    /**
     * Sends both logs ({@code logs}: the impressions', the clicks') in their order, each record
     * when the wall clock reaches its re-timed event time (or right after its predecessor in its
     * log, if that is later), carrying that time, round robin over each topic's partitions: a
     * partition that receives nothing holds the join's watermark back (Kafka's producer, given no
     * key, fills one partition's batch at a time).
     */
    private Sent send(LiveLog[] logs, String impressionsTopic, String clicksTopic, Timing timing)
            throws Exception {
        AtomicReference<Exception> failure = new AtomicReference<>();
        String[] topics = {impressionsTopic, clicksTopic};
        int[] next = new int[2];
        long[] due = {Long.MIN_VALUE, Long.MIN_VALUE};
        long[] lastSent = {Long.MIN_VALUE, Long.MIN_VALUE};
        long impressionsDone = 0;
        long nextReport = System.nanoTime() + 5_000_000_000L;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig())) {
            while (failure.get() == null) {
                int pick = -1;
                long pickAt = Long.MAX_VALUE;
                for (int i = 0; i < 2; i++) {
                    if (next[i] < logs[i].size()) {
                        long when = Math.max(timing.at(logs[i].times()[next[i]]), due[i]);
                        if (when < pickAt) {
                            pickAt = when;
                            pick = i;
                        }
                    }
                }
                if (pick < 0) {
                    break;
                }
                LockSupport.parkNanos((pickAt - System.currentTimeMillis()) * 1_000_000L);
                int k = next[pick]++;
                long time = timing.at(logs[pick].times()[k]);
                due[pick] = pickAt;
                producer.send(
                        new ProducerRecord<>(
                                topics[pick], k % PARTITIONS, null, logs[pick].retimed(k, time)),
                        (metadata, e) -> {
                            if (e != null) {
                                failure.compareAndSet(null, e);
                            }
                        });
                if (pick == 0 && next[0] == logs[0].size()) {
                    impressionsDone = System.currentTimeMillis();
                }
                lastSent[pick] = Math.max(lastSent[pick], time);
                if (System.nanoTime() > nextReport) {
                    progress.printf(
                            "bench: %,d impressions and %,d clicks sent%n", next[0], next[1]);
                    nextReport = System.nanoTime() + 5_000_000_000L;
                }
            }
            producer.flush();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("sending the logs failed", failure.get());
        }
        // the join's watermark is its slowest partition's: the topic whose records end first
        return new Sent(
                next[0],
                next[1],
                (System.currentTimeMillis() - timing.t0()) / 1e3,
                (impressionsDone - timing.t0()) / 1e3,
                Math.min(lastSent[0], lastSent[1]));
    }

    private Map<String, Object> producerConfig() {
        Map<String, Object> conf = new HashMap<>();
        conf.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        conf.put(ProducerConfig.ACKS_CONFIG, "all");
        conf.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        conf.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        conf.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        conf.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        conf.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        return conf;
    }

    /** Waits until the stream says its job runs; fails if it exits first. */
    private static void awaitRunning(Process stream, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            String printed = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            if (printed.contains(" running\n")) {
                return;
            }
            if (stream.waitFor(100, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        "piper stream exited with "
                                + stream.exitValue()
                                + " before its job ran; its output is in "
                                + log);
            }
        }
        throw new IllegalStateException(
                "piper stream did not say its job is running within 3 minutes; see " + log);
    }

    private static int waitFor(Process stream, Path log) throws Exception {
        if (!stream.waitFor(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException(
                    "piper stream did not stop within 10 minutes of the input's end; see " + log);
        }
        return stream.exitValue();
    }

    private static void deleteQuietly(Path dir) {
        try {
            Yardstick.deleteTree(dir);
        } catch (IOException e) {
            // scratch space; the bench's data directory holds it
        }
    }
}
