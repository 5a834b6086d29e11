package dev.piper.benchmarks.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.feed.LineProducer;
import dev.piper.feed.TopicCreation;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * {@code piper bench --join}: the stream's label join against the same stream without it, as a user
 * runs them. The impressions and clicks of {@code piper generate --events json --actions} go to two
 * topics of two partitions each on a running broker; then whole cold {@code piper stream} processes
 * alternate, each from a fresh consumer group until its input is consumed and committed: one under
 * the generated spec (the impressions joined with their clicks in event time), one under the same
 * spec without its {@code labels} section (the same impressions, the same columns, the label read
 * from a field). The figure is impressions per second to the first look at which the whole input
 * was committed ({@code stream}'s "all committed at"); the ratio join / plain of each pair, and
 * their median, is what holds across machines.
 */
final class JoinBench {

    private static final Pattern CONSUMED =
            Pattern.compile(
                    "stream: ([0-9,]+) input records consumed in ([0-9.]+) s \\(all committed at"
                            + " ([0-9.]+) s");

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The young generation bin/piper gives a stream ({@code -XX:MaxNewSize}), which the streams of
     * this bench, started with the bench's own JVM flags, are given too.
     */
    static final String STREAM_YOUNG = "piper.stream.max-new-size";

    /**
     * The collector flag bin/piper gives a stream ({@code -XX:+UseParallelGC}), which the streams
     * of this bench are given too; absent where PIPER_GC or PIPER_JAVA_OPTS chose another.
     */
    static final String STREAM_GC = "piper.stream.gc";

    /** One cold process: what it consumed, when all of it was committed, how long it ran. */
    record Run(String kind, long consumed, double committedSeconds, double wallSeconds) {}

    /** A pair of runs, the join's first, and the ratio of their impressions per second. */
    record Pair(Run join, Run plain, long impressions) {
        double joinRate() {
            return impressions / join.committedSeconds();
        }

        double plainRate() {
            return impressions / plain.committedSeconds();
        }

        double ratio() {
            return joinRate() / plainRate();
        }

        double wallRatio() {
            return plain.wallSeconds() / join.wallSeconds();
        }
    }

    private final String bootstrap;
    private final long impressions;
    private final long seed;
    private final int repeat;
    private final Path dataDir;
    private final List<String> relaunch;
    private final List<String> streamArgs;
    private final PrintStream progress;

    /**
     * @param relaunch the command that starts a piper process as this one was started
     * @param streamArgs more {@code stream} options, for each stream of the bench ({@code
     *     --stream-arg})
     */
    JoinBench(
            String bootstrap,
            long impressions,
            long seed,
            int repeat,
            Path dataDir,
            List<String> relaunch,
            List<String> streamArgs,
            PrintStream progress) {
        this.bootstrap = bootstrap;
        this.impressions = impressions;
        this.seed = seed;
        this.repeat = repeat;
        this.dataDir = dataDir;
        this.relaunch = List.copyOf(relaunch);
        this.streamArgs = List.copyOf(streamArgs);
        this.progress = progress;
    }

    /**
     * The directory of the generated impressions and clicks ({@code generate --events json
     * --actions} of {@code --rows} and {@code --seed}), generated on first use.
     */
    Path logs() throws Exception {
        Path logs = dataDir.resolve("join-" + impressions + "-" + seed);
        if (!Files.isRegularFile(logs.resolve("model.json"))) {
            Files.createDirectories(dataDir);
            progress.printf("bench: generating %,d impressions and their clicks%n", impressions);
            JobRuns.run(
                    generateCommand(logs),
                    logs.resolveSibling(logs.getFileName() + ".log"),
                    "piper generate");
        }
        return logs;
    }

    /**
     * The label freshness of {@code freshness} over the logs: one cold stream with the impressions
     * and clicks sent live ({@link JoinFreshness}); the run's topics are deleted at its end.
     */
    JoinFreshness.Result freshness(JoinFreshness freshness) throws Exception {
        Path logs = logs();
        String run = "piper-bench-join-" + ProcessHandle.current().pid();
        try {
            Path work = Files.createDirectories(dataDir.resolve(run));
            JoinFreshness.Result r = freshness.run(logs, work, run);
            Yardstick.deleteTree(work);
            return r;
        } finally {
            deleteTopics(run + "-");
        }
    }

    /** Generates (or finds) the logs, sends them and runs {@code repeat} alternated pairs. */
    List<Pair> run() throws Exception {
        Path logs = logs();
        String run = "piper-bench-join-" + ProcessHandle.current().pid();
        String impressionsTopic = run + "-impressions";
        String clicksTopic = run + "-clicks";
        try {
            send(logs.resolve("impressions.jsonl"), impressionsTopic);
            long clickRecords = send(logs.resolve("clicks.jsonl"), clicksTopic);
            Path work = Files.createDirectories(dataDir.resolve(run));
            Path joinSpec = work.resolve("join.json");
            Path plainSpec = work.resolve("plain.json");
            writeSpecs(logs.resolve("impressions.spec.json"), clicksTopic, joinSpec, plainSpec);
            List<Pair> pairs = new ArrayList<>();
            for (int i = 1; i <= repeat; i++) {
                Run join = stream("join", i, joinSpec, impressionsTopic, work);
                check(join, impressions + clickRecords);
                Run plain = stream("plain", i, plainSpec, impressionsTopic, work);
                check(plain, impressions);
                Pair p = new Pair(join, plain, impressions);
                progress.printf(
                        "bench: join pair %d of %d: join %,.0f impressions/s, plain %,.0f: ratio"
                                + " %.2f%n",
                        i, repeat, p.joinRate(), p.plainRate(), p.ratio());
                pairs.add(p);
            }
            Yardstick.deleteTree(work);
            return pairs;
        } finally {
            deleteTopics(run + "-");
        }
    }

    /** The median ratio join / plain of {@code pairs}, as the yardstick's median. */
    static double medianRatio(List<Pair> pairs) {
        return Yardstick.median(pairs.stream().map(Pair::ratio).toList());
    }

    /** Prints the ratio first, then each pair. */
    void print(List<Pair> pairs, PrintWriter out) {
        out.printf(
                "join: median ratio join/plain %.2f over %d pairs (impressions/s to all input"
                        + " committed; %,d impressions, 2 partitions each, whole cold piper"
                        + " stream processes alternating, %d cores)%n",
                medianRatio(pairs),
                pairs.size(),
                impressions,
                Runtime.getRuntime().availableProcessors());
        out.printf(
                "%-5s %14s %14s %7s %12s %12s %10s%n",
                "pair",
                "join imp/s",
                "plain imp/s",
                "ratio",
                "join wall s",
                "plain wall s",
                "wall ratio");
        int i = 1;
        for (Pair p : pairs) {
            out.printf(
                    "%-5d %,14.0f %,14.0f %7.2f %12.1f %12.1f %10.2f%n",
                    i++,
                    p.joinRate(),
                    p.plainRate(),
                    p.ratio(),
                    p.join().wallSeconds(),
                    p.plain().wallSeconds(),
                    p.wallRatio());
        }
    }

    /** Writes the pairs as JSON to {@code json}. */
    void writeJson(List<Pair> pairs, Path json) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("impressions", impressions);
        root.put("seed", seed);
        root.put("cores", Runtime.getRuntime().availableProcessors());
        root.put("median_ratio", medianRatio(pairs));
        var list = root.putArray("pairs");
        for (Pair p : pairs) {
            ObjectNode n = list.addObject();
            n.put("join_impressions_per_s", p.joinRate());
            n.put("plain_impressions_per_s", p.plainRate());
            n.put("ratio", p.ratio());
            n.put("join_committed_s", p.join().committedSeconds());
            n.put("plain_committed_s", p.plain().committedSeconds());
            n.put("join_wall_s", p.join().wallSeconds());
            n.put("plain_wall_s", p.plain().wallSeconds());
        }
        writeResult(root, json);
    }

    private List<String> generateCommand(Path logs) {
        List<String> command = new ArrayList<>(relaunch);
        command.addAll(
                List.of(
                        "generate",
                        "--events",
                        "json",
                        "--actions",
                        "--rows",
                        Long.toString(impressions),
                        "--seed",
                        Long.toString(seed),
                        "--output",
                        logs.toString()));
        return command;
    }

    /** Sends {@code log}'s lines to {@code topic}, made with 2 partitions: how many. */
    private long send(Path log, String topic) throws Exception {
        TopicCreation.createIfAbsent(bootstrap, Map.of(), topic, 2, progress);
        LineProducer.Result r =
                LineProducer.produce(log, bootstrap, topic, null, Map.of(), progress);
        progress.printf(
                "bench: %,d records of %s sent to %s in %.1f s%n",
                r.lines(), log.getFileName(), topic, r.seconds());
        return r.lines();
    }

    /**
     * The spec {@code generate} wrote, its clicks read from {@code clicksTopic}, to {@code join};
     * the same without its labels section (and its join key), the label read from the price, to
     * {@code plain}.
     */
    static void writeSpecs(Path generated, String clicksTopic, Path join, Path plain)
            throws IOException {
        ObjectNode spec = joinSpec(generated, clicksTopic);
        writeResult(spec, join);
        ObjectNode without = spec.deepCopy();
        without.remove("labels");
        ObjectNode input = (ObjectNode) without.path("input");
        input.remove("key");
        ((ObjectNode) input.path("fields")).put("label", "price_cents");
        without.put("name", spec.path("name").asText() + "-without-join");
        writeResult(without, plain);
    }

    /**
     * The spec {@code generate} wrote to {@code generated}, its clicks read from {@code
     * clicksTopic}.
     */
    static ObjectNode joinSpec(Path generated, String clicksTopic) throws IOException {
        ObjectNode spec = (ObjectNode) JSON.readTree(generated.toFile());
        ObjectNode click = (ObjectNode) spec.path("labels").path("streams").path("click");
        if (click.isMissingNode() || !click.has("topic")) {
            throw new IllegalStateException(
                    generated + ": no labels.streams.click.topic, as generate --actions writes");
        }
        click.put("topic", clicksTopic);
        return spec;
    }

    /** Writes {@code json} to {@code file}, indented, its folder made where it is missing. */
    static void writeResult(ObjectNode json, Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), json);
    }

    /**
     * The command line of one {@code piper stream} of {@code spec} over {@code input} from its
     * start, stopping once idle for 3 s: its topics, group, transactional ids named {@code id}, its
     * checkpoints in {@code work}; {@code extra} arguments, then {@code streamArgs}, at its end.
     */
    static List<String> streamCommand(
            List<String> relaunch,
            List<String> streamArgs,
            String bootstrap,
            Path spec,
            String input,
            String id,
            Path work,
            String... extra) {
        List<String> command = new ArrayList<>(relaunch);
        String young = System.getProperty(STREAM_YOUNG);
        int classPath = command.indexOf("-cp");
        if (young != null && classPath > 0) { // as bin/piper starts a stream
            command.add(classPath, "-XX:MaxNewSize=" + young);
        }
        String collector = System.getProperty(STREAM_GC);
        if (collector != null && classPath > 0) { // as bin/piper starts a stream
            command.add(classPath, collector);
        }
        command.addAll(
                List.of(
                        "stream",
                        "--bootstrap-servers",
                        bootstrap,
                        "--spec",
                        spec.toString(),
                        "--input-topic",
                        input,
                        "--output-topic",
                        id + "-rows",
                        "--vocab-topic",
                        id + "-vocab",
                        "--checkpoint-dir",
                        work.resolve(id + "-checkpoints").toString(),
                        "--group-id",
                        id,
                        "--transactional-id-prefix",
                        id,
                        "--until-idle",
                        "3s"));
        command.addAll(List.of(extra));
        command.addAll(streamArgs);
        return command;
    }

    /** One cold {@code piper stream} process of {@code spec} over the impressions' topic. */
    private Run stream(String kind, int i, Path spec, String input, Path work) throws Exception {
        String id = work.getFileName() + "-" + kind + "-" + i;
        List<String> command =
                streamCommand(relaunch, streamArgs, bootstrap, spec, input, id, work);
        progress.printf("bench: cold piper stream, %s, run %d%n", kind, i);
        Path log = work.resolve(id + ".log");
        double wall = JobRuns.run(command, log, "piper stream (" + kind + ")");
        String printed = Files.readString(log, StandardCharsets.UTF_8);
        Matcher m = CONSUMED.matcher(printed);
        if (!m.find()) {
            throw new IllegalStateException(
                    "the " + kind + " stream process said no \"all committed at\"; see " + log);
        }
        Yardstick.deleteTree(work.resolve(id + "-checkpoints"));
        return new Run(
                kind,
                Long.parseLong(m.group(1).replace(",", "")),
                Double.parseDouble(m.group(3)),
                wall);
    }

    private static void check(Run run, long expected) {
        if (run.consumed() != expected) {
            throw new IllegalStateException(
                    "the "
                            + run.kind()
                            + " stream consumed "
                            + run.consumed()
                            + " records, not the "
                            + expected
                            + " sent");
        }
    }

    /** Deletes the topics of this run: its inputs and what its streams created. */
    private void deleteTopics(String prefix) {
        Properties props = new Properties();
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            List<String> ours =
                    admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                            .filter(t -> t.startsWith(prefix))
                            .toList();
            admin.deleteTopics(ours).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            progress.printf("bench: could not delete the topics %s*: %s%n", prefix, e);
        }
    }
}
