package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.generate.ClickModel;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command line's contract: --help everywhere, exit 2 with one line naming a bad argument. */
class PiperCliTest {

    @TempDir Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream savedOut;
    private PrintStream savedErr;

    @BeforeEach
    void capture() {
        savedOut = System.out;
        savedErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(savedOut);
        System.setErr(savedErr);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "preprocess",
                "report",
                "generate",
                "convert",
                "demo",
                "bench",
                "kafka",
                "kafka start",
                "kafka stop",
                "kafka status",
                "produce",
                "stream",
                "consume",
                "hotline",
                "spec",
                "spec validate",
                "spec show",
                "spec publish",
                "cluster",
                "cluster start",
                "cluster stop",
                "cluster status",
                "submit",
                "job",
                "job list",
                "job stop",
                "job savepoint",
                "job cancel"
            })
    void everySubcommandHasHelp(String command) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.add("--help");
        assertThat(PiperCli.execute(args.toArray(new String[0]))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: piper " + command);
    }

    /**
     * {@code bench} is a program of the benchmarks module, which the command line has on its class
     * path at run time only: found there, listed in {@code --help}, its options checked by the
     * program and a bad one named in one line, exit code 2, before anything is measured.
     */
    @Test
    void theBenchProgramIsFoundAtRunTimeAndNamesABadOption() {
        assertThat(PiperCli.execute("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .containsPattern("\\n\\s+bench\\s+Measure marginal throughput");
        String[][] bad = {
            {"--rows", "1"},
            {"--regimes", "small,tiny"},
            {"--parallelism", "1,x"},
            {"--parallelism", "0"},
            {"--block-bytes", "0"},
            {"--with-hotline", "lots"},
            {"--chart-from", "no-such-results.json"},
            {"--freshness-window", "5s"},
            {"--freshness", "1000"},
            {"--join", "127.0.0.1:9", "--freshness", "1000", "--repeat", "3"},
            {"--stream-arg=--join-lines=topic"}
        };
        String[] said = {
            "--rows: must be at least 2, not 1",
            "--regimes: unknown regime 'tiny' (small, medium, large)",
            "--parallelism: 'x' is not an int",
            "--parallelism: must be at least 1, not 0",
            "--block-bytes: ",
            "--with-hotline: \"lots\" is not a size in bytes (e.g. 1m)",
            "--chart-from: no-such-results.json is not a readable file",
            "--freshness-window goes with --freshness",
            "--freshness measures the label join: give --join too",
            "--repeat: not with --freshness, which measures one live run per command: run it"
                    + " again for another",
            "--stream-arg goes with --join"
        };
        for (int i = 0; i < bad.length; i++) {
            err.reset();
            List<String> args = new ArrayList<>(List.of("bench"));
            args.addAll(List.of(bad[i]));
            assertThat(PiperCli.execute(args.toArray(String[]::new)))
                    .as(args.toString())
                    .isEqualTo(2);
            assertThat(err()).as(args.toString()).contains(said[i]);
            assertThat(err().strip()).as(args.toString()).doesNotContain("\n");
        }
    }

    /**
     * Issue 28: {@code demo} left a temporary directory of tens of MB without a word. It now says
     * where the files are, how large, that they stay, and how to remove them.
     */
    @Test
    void theDemoSaysWhereItsTemporaryFilesAreAndThatTheyStay() throws Exception {
        assertThat(PiperCli.execute("demo", "--rows", "3000", "--parallelism", "1")).isZero();
        String printed = out.toString(StandardCharsets.UTF_8);
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile(
                                "These files \\(([0-9.,]+) MB\\) are in a temporary directory that"
                                        + " piper does not remove: rm -r (\\S+) when done, or pass"
                                        + " --dir DIR")
                        .matcher(printed);
        assertThat(m.find()).as(printed).isTrue();
        Path base = Path.of(m.group(2));
        try {
            assertThat(base.resolve("out/rows.bin")).exists();
            assertThat(Double.parseDouble(m.group(1).replace(",", ""))).isPositive();
        } finally {
            try (var files = Files.walk(base)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
        // with --dir the user chose the place: nothing to say
        out.reset();
        Path chosen = tmp.resolve("demo");
        assertThat(PiperCli.execute("demo", "--rows", "3000", "--dir", chosen.toString())).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("Output in " + chosen.resolve("out"))
                .doesNotContain("temporary directory");
    }

    /**
     * {@code piper hotline}: an output's split checked against a replay of its settings (a flipped
     * flag named by its row), and the study's table, JSON and chart, the oracle never below the
     * online split at a budget that holds every entry.
     */
    @Test
    void hotlineVerifiesAnOutputsSplitAndStudiesItAgainstTheOracle() throws Exception {
        Path input = tmp.resolve("in.tsv");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--rows",
                                "20000",
                                "--scale",
                                "0.001",
                                "--seed",
                                "4",
                                "--output",
                                input.toString()))
                .isZero();
        Path output = tmp.resolve("out");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                output.toString(),
                                "--parallelism",
                                "1",
                                "--hotline-budget",
                                "64k",
                                "--hotline-window",
                                "5000",
                                "--hotline-sample",
                                "0.2",
                                "--hotline-sample-rows",
                                "100"))
                .isZero();
        assertThat(PiperCli.execute("hotline", "--output-dir", output.toString(), "--verify"))
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("verified: 20,000 rows, 4 windows");
        Path popular = output.resolve("hotline/popular.bin");
        byte[] flags = Files.readAllBytes(popular);
        flags[12_345] ^= 1;
        Files.write(popular, flags);
        assertThat(PiperCli.execute("hotline", "--output-dir", output.toString(), "--verify"))
                .isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("popular.bin first differs at row 12345");

        Path study = tmp.resolve("study");
        assertThat(
                        PiperCli.execute(
                                "hotline",
                                "--output-dir",
                                output.toString(),
                                "--budgets",
                                "4k,64m",
                                "--hotline-window",
                                "5000",
                                "--out",
                                study.toString()))
                .isZero();
        JsonNode json = new ObjectMapper().readTree(tmp.resolve("study.json").toFile());
        JsonNode all = json.get("budgets").get(1);
        assertThat(all.get("oracle_popular_fraction").asDouble()).isEqualTo(1.0);
        assertThat(all.get("online_popular_fraction").asDouble()).isBetween(0.0, 1.0);
        assertThat(all.get("windows")).hasSize(4);
        assertThat(Files.readString(tmp.resolve("study.svg")))
                .startsWith("<svg")
                .contains("static oracle");
        assertThat(PiperCli.execute("hotline", "--output-dir", tmp.toString())).isEqualTo(2);
        assertThat(err()).contains("--output-dir: " + tmp + " has no metadata.json");
    }

    @Test
    void reportNamesABadOption() throws Exception {
        Path input = tmp.resolve("in.tsv");
        Files.writeString(input, "");
        assertThat(PiperCli.execute("report", "--input", tmp.resolve("none").toString()))
                .isEqualTo(2);
        assertThat(err()).contains("--input: " + tmp.resolve("none") + " is not a readable file");
        assertThat(
                        PiperCli.execute(
                                "report", "--input", input.toString(), "--report-interval", "soon"))
                .isEqualTo(2);
        assertThat(err()).contains("--report-interval: \"soon\" is not a duration");
        assertThat(
                        PiperCli.execute(
                                "report",
                                "--input",
                                input.toString(),
                                "--target-rows-per-second",
                                "-1"))
                .isEqualTo(2);
        assertThat(err()).contains("--target-rows-per-second: must not be negative");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                tmp.resolve("out").toString(),
                                "--report",
                                "--fpga-vocabulary-bytes",
                                "-5"))
                .isEqualTo(2);
        assertThat(err()).contains("--fpga-vocabulary-bytes: must not be negative, not -5");
    }

    @Test
    void kafkaStatusOfADirectoryWithoutABrokerExitsThree() {
        assertThat(PiperCli.execute("kafka", "status", "--dir", tmp.resolve("none").toString()))
                .isEqualTo(3);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("not running");
    }

    @Test
    void kafkaStartRefusesEqualPorts() {
        assertThat(
                        PiperCli.execute(
                                "kafka",
                                "start",
                                "--dir",
                                tmp.resolve("k").toString(),
                                "--port",
                                "9400",
                                "--controller-port",
                                "9400"))
                .isEqualTo(2);
        assertThat(err()).contains("--controller-port must differ from --port");
    }

    private static final String[] STREAM = {
        "stream",
        "--bootstrap-servers",
        "127.0.0.1:1",
        "--input-topic",
        "in",
        "--output-topic",
        "out"
    };

    private int stream(String... more) {
        List<String> args = new ArrayList<>(List.of(STREAM));
        args.addAll(List.of("--checkpoint-dir", tmp.resolve("ckpt").toString()));
        args.addAll(List.of(more));
        return PiperCli.execute(args.toArray(new String[0]));
    }

    @Test
    void streamNamesABadDurationOrCount() {
        assertThat(stream("--checkpoint-interval", "soon")).isEqualTo(2);
        assertThat(err()).contains("--checkpoint-interval: 'soon' is not a positive duration");
        assertThat(stream("--linger", "0ms")).isEqualTo(2);
        assertThat(err()).contains("--linger: '0ms'");
        assertThat(stream("--until-idle", "0")).isEqualTo(2);
        assertThat(err()).contains("--until-idle: '0' is not a positive duration");
        assertThat(stream("--until-idle", "500ms")).isEqualTo(2);
        assertThat(err()).contains("--until-idle: must be at least 1 second, not 500ms");
        assertThat(stream("--until-idle", "soon")).isEqualTo(2);
        assertThat(err()).contains("--until-idle: 'soon' is not a positive duration");
        assertThat(stream("--block-lines", "0")).isEqualTo(2);
        assertThat(err()).contains("--block-lines: must be at least 1");
        assertThat(stream("--output-partitions", "0")).isEqualTo(2);
        assertThat(err()).contains("--output-partitions: must be at least 1, not 0");
        assertThat(stream("--from-savepoint", tmp.toString())).isEqualTo(2);
        assertThat(err()).contains("--from-savepoint: " + tmp + " holds no _metadata file");
    }

    @Test
    void streamRefusesPipelineOptionsThatContradictEachOther() throws Exception {
        Path eu = tmp.resolve("eu.json");
        Files.writeString(
                eu,
                new String(dev.piper.pipeline.spec.SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace("\"name\": \"dlrm-criteo\"", "\"name\": \"eu\""));
        assertThat(stream("--status-topic", "s")).isEqualTo(2);
        assertThat(err()).contains("--status-topic: needs --control-topic");
        assertThat(stream("--status-dir", "s")).isEqualTo(2);
        assertThat(err()).contains("--status-dir: needs --control-dir");
        assertThat(stream("--control-dir", tmp.toString(), "--control-topic", "c")).isEqualTo(2);
        assertThat(err()).contains("--control-dir: not with --control-topic");
        assertThat(stream("--control-dir", tmp.resolve("none").toString())).isEqualTo(2);
        assertThat(err()).contains("--control-dir: " + tmp.resolve("none") + " is not a directory");
        assertThat(stream("--pipeline", eu.toString())).isEqualTo(2);
        assertThat(err()).contains("--input-topic cannot be combined with --pipeline");
        assertThat(
                        PiperCli.execute(
                                "stream",
                                "--bootstrap-servers",
                                "127.0.0.1:1",
                                "--checkpoint-dir",
                                tmp.resolve("ckpt2").toString(),
                                "--pipeline",
                                eu.toString()))
                .isEqualTo(2);
        assertThat(err()).contains("pipeline eu: input.topic is required");
        assertThat(
                        PiperCli.execute(
                                "stream",
                                "--bootstrap-servers",
                                "127.0.0.1:1",
                                "--checkpoint-dir",
                                tmp.resolve("ckpt3").toString()))
                .isEqualTo(2);
        assertThat(err()).contains("--input-topic and --output-topic are required");
    }

    @Test
    void specPublishRefusesAnInvalidSpecBeforeConnecting() throws Exception {
        Path bad = tmp.resolve("bad.json");
        Files.writeString(bad, "{\"name\": \"x\"}");
        assertThat(
                        PiperCli.execute(
                                "spec",
                                "publish",
                                "--bootstrap-servers",
                                "127.0.0.1:1",
                                "--topic",
                                "ctl",
                                bad.toString()))
                .isEqualTo(1);
        assertThat(err()).contains("invalid").contains("not published").contains("version");
    }

    @Test
    void anUnreadableKafkaPropertiesFileIsNamed() {
        Path missing = tmp.resolve("client.properties");
        assertThat(stream("--kafka-properties", missing.toString())).isEqualTo(2);
        assertThat(err()).contains("--kafka-properties: cannot read " + missing);
    }

    @Test
    void consumeRefusesANegativeRowCount() {
        assertThat(
                        PiperCli.execute(
                                "consume",
                                "--bootstrap-servers",
                                "127.0.0.1:1",
                                "--topic",
                                "out",
                                "--output",
                                tmp.resolve("c").toString(),
                                "--rows",
                                "-1"))
                .isEqualTo(2);
        assertThat(err()).contains("--rows: must not be negative");
    }

    @Test
    void specValidateAcceptsTheBuiltinAndRejectsABadSpecNamingEveryField() throws Exception {
        assertThat(PiperCli.execute("spec", "show", "--json")).isZero();
        Path good =
                Files.writeString(tmp.resolve("good.json"), out.toString(StandardCharsets.UTF_8));
        out.reset();
        assertThat(PiperCli.execute("spec", "validate", good.toString())).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("valid: pipeline dlrm-criteo version 1, 40 columns");

        Path bad =
                Files.writeString(
                        tmp.resolve("bad.json"),
                        Files.readString(good)
                                .replace("\"version\": 1", "\"version\": 0")
                                .replace("\"neg2zero\"", "\"neg2one\""));
        assertThat(PiperCli.execute("spec", "validate", bad.toString())).isEqualTo(1);
        assertThat(err())
                .contains("invalid, 2 problem(s)")
                .contains("version: must be a positive integer, not 0")
                .contains("columns.I1..I13[2]: unknown operator \"neg2one\"");
    }

    /**
     * Issue 23: a spec whose tables the job cannot hold validated, then ran the job out of memory.
     * {@code spec validate} sizes its tables and bounded vocabularies against the heap the job will
     * have, and preprocess refuses it before starting, naming the table.
     */
    @Test
    void aSpecWhoseTablesTheJobCannotHoldIsRefusedBeforeItRuns() throws Exception {
        Path table = tmp.resolve("ids.tsv");
        try (var w = new java.io.PrintWriter(Files.newBufferedWriter(table))) {
            for (int i = 0; i < 1_000_000; i++) {
                w.print(i);
                w.print('\t');
                w.println(i % 1000);
            }
        }
        Path spec =
                Files.writeString(
                        tmp.resolve("mapid.json"),
                        new String(
                                        dev.piper.pipeline.spec.SpecParser.builtinText(),
                                        StandardCharsets.UTF_8)
                                .replace(
                                        "\"hex2int\", \"vocab\"",
                                        "\"hex2int\", {\"op\": \"mapid\", \"file\": \""
                                                + table
                                                + "\"}, \"vocab\""));
        assertThat(PiperCli.execute("spec", "validate", spec.toString(), "--memory", "4g"))
                .as(err())
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains(
                        "memory: 45.8 MiB of tables and bounded vocabularies with 2 decoders (of"
                                + " 4,096.0 MiB heap)");
        assertThat(PiperCli.execute("spec", "validate", spec.toString(), "--memory", "64m"))
                .isEqualTo(1);
        assertThat(err())
                .contains(
                        "invalid: the job cannot hold it: its tables and bounded vocabularies"
                                + " need about 45.8 MiB with 2 decoders, more than half of the"
                                + " 64.0 MiB of heap the job has; the largest: mapid "
                                + table
                                + ": 1000000 ids (22.9 MiB per decoder)");
        Path input = tmp.resolve("in.tsv");
        Files.writeString(input, "");
        // 64 decoders each holding the table need more than half of this JVM's heap
        long heap = Runtime.getRuntime().maxMemory();
        int decoders = (int) Math.min(128, heap / 2 / (24L * 1_000_000) + 1);
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                tmp.resolve("o").toString(),
                                "--spec",
                                spec.toString(),
                                "--parallelism",
                                Integer.toString(decoders)))
                .isEqualTo(2);
        assertThat(err())
                .contains("--spec: its tables and bounded vocabularies need about ")
                .contains("the largest: mapid " + table + ": 1000000 ids");
        assertThat(tmp.resolve("o")).doesNotExist();
    }

    /**
     * generate writes its file beside the output and renames it into place once whole (a killed run
     * left a shorter file that read as a whole input); through a link it replaces the file, not the
     * link; a pipe (or /dev/stdout) it writes as a stream.
     */
    @Test
    void generateReplacesTheFileBehindALinkAndWritesAPipeAsAStream() throws Exception {
        Path tsv = Files.writeString(tmp.resolve("target.tsv"), "old\n");
        Path link = Files.createSymbolicLink(tmp.resolve("link.tsv"), tsv);
        assertThat(PiperCli.execute("generate", "--rows", "7", "--output", link.toString()))
                .isZero();
        assertThat(link).isSymbolicLink();
        assertThat(Files.readAllLines(tsv)).hasSize(7);
        Path fifo = tmp.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        var reading =
                java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return Files.readAllLines(fifo);
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        });
        assertThat(PiperCli.execute("generate", "--rows", "9", "--output", fifo.toString()))
                .isZero();
        assertThat(reading.get(60, java.util.concurrent.TimeUnit.SECONDS)).hasSize(9);
        assertThat(tmp.resolve(".target.tsv.partial")).doesNotExist();
    }

    /**
     * Issue 28: {@code --inpt} was reported as a missing {@code --input}. An unknown option is
     * named first, with the nearest known one.
     */
    @Test
    void anUnknownOptionIsNamedWithTheNearestKnownOne() {
        assertThat(PiperCli.execute("preprocess", "--inpt", "x", "--output", "y")).isEqualTo(2);
        assertThat(err().strip())
                .isEqualTo(
                        "piper preprocess: Unknown option: '--inpt' (did you mean --input?) (see"
                                + " 'piper preprocess --help')");
        err.reset();
        assertThat(
                        PiperCli.execute(
                                "preprocess", "--input", "x", "--output", "y", "--paralelism=2"))
                .isEqualTo(2);
        assertThat(err()).contains("Unknown option: '--paralelism' (did you mean --parallelism?)");
        err.reset();
        assertThat(PiperCli.execute("preprocess", "--input", "x", "--output", "y", "--zzz"))
                .isEqualTo(2);
        assertThat(err().strip())
                .isEqualTo(
                        "piper preprocess: Unknown option: '--zzz' (see 'piper preprocess"
                                + " --help')");
    }

    /**
     * Issue 23: {@code --overwrite} deleted an input lying inside the output directory (named like
     * an output file), then failed for want of it. Such an input is refused before anything is
     * removed.
     */
    @Test
    void preprocessRefusesAnInputInsideItsOutputAndDeletesNothing() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("out"));
        Path input = out.resolve("rows.bin");
        try (var w = Files.newOutputStream(input)) {
            new dev.piper.pipeline.generate.CriteoGenerator(3, 0.0005, 0).write(w, 100);
        }
        long size = Files.size(input);
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                out.toString(),
                                "--overwrite"))
                .isEqualTo(2);
        assertThat(err())
                .contains(
                        "--output: the input "
                                + input
                                + " lies inside the output directory "
                                + out
                                + "; write the output elsewhere (nothing was removed)");
        assertThat(input).exists().hasSize(size);
    }

    /**
     * Issue 65: {@code --overwrite} refused the output of any spec with {@code input.timestamp}
     * ("holds event_times.bin, which is not a piper output file"): the click events' output is
     * replaced, its event times too.
     */
    @Test
    void anOutputWithEventTimesIsOverwritten() throws Exception {
        Path events = tmp.resolve("clicks.jsonl");
        Path out = tmp.resolve("clicks-out");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--events",
                                "json",
                                "--rows",
                                "200",
                                "--output",
                                events.toString()))
                .isZero();
        for (String[] extra : new String[][] {{}, {"--overwrite"}}) {
            List<String> args =
                    new ArrayList<>(
                            List.of(
                                    "preprocess",
                                    "--input",
                                    events.toString(),
                                    "--output",
                                    out.toString(),
                                    "--preset",
                                    "clicks-json"));
            args.addAll(List.of(extra));
            assertThat(PiperCli.execute(args.toArray(String[]::new))).as(err()).isZero();
            assertThat(out.resolve("event_times.bin")).hasSize(200 * 8);
        }
    }

    /**
     * Issue 23: {@code /proc/cpuinfo} as input gave 0 lines (a pseudo-file was read by its size,
     * 0). Files of no size and pipes are read as streams: every line is read (here each a dead
     * letter), and lines written into a named pipe become rows.
     */
    @Test
    void pseudoFilesAndPipesAreReadToTheirEnd() throws Exception {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        int lines = Files.readAllLines(cpuinfo).size();
        assertThat(lines).isPositive();
        Path o1 = tmp.resolve("o1");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                cpuinfo.toString(),
                                "--output",
                                o1.toString()))
                .as(err())
                .isZero();
        JsonNode meta = new ObjectMapper().readTree(o1.resolve("metadata.json").toFile());
        assertThat(meta.get("lines_read").asLong()).isEqualTo(lines);
        assertThat(meta.get("dead_letters").asLong()).isEqualTo(lines);

        Path fifo = tmp.resolve("clicks.fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        Thread writer =
                new Thread(
                        () -> {
                            try (var w = Files.newOutputStream(fifo)) {
                                new dev.piper.pipeline.generate.CriteoGenerator(3, 0.0005, 0)
                                        .write(w, 1_000);
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        });
        writer.start();
        Path o2 = tmp.resolve("o2");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                fifo.toString(),
                                "--output",
                                o2.toString()))
                .as(err())
                .isZero();
        writer.join(60_000);
        assertThat(Files.size(o2.resolve("rows.bin"))).isEqualTo(1_000L * 160);
    }

    /**
     * Issue 23: a full disk under a failed job showed only "The TaskExecutor is shutting down.".
     * The error line adds the root cause of the chain when it says something else.
     */
    /**
     * Issue 40: when the embedded cluster could not start (its network buffers need more direct
     * memory than a small heap allows), the OutOfMemoryError ended the main thread with a stack
     * trace and the cluster's threads kept the JVM alive for ever. It ends with one line and exit
     * 1.
     */
    @Test
    void anEmbeddedClusterThatCannotStartEndsTheProcess() throws Exception {
        Path input = tmp.resolve("in.tsv");
        assertThat(PiperCli.execute("generate", "--rows", "50", "--output", input.toString()))
                .isZero();
        Path log = tmp.resolve("process.log");
        Process process =
                PiperProcesses.start(
                        log,
                        List.of("-Xmx64m", "-XX:MaxDirectMemorySize=32m"),
                        List.of(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                tmp.resolve("out").toString()));
        try {
            assertThat(process.waitFor(2, java.util.concurrent.TimeUnit.MINUTES))
                    .as("the process ended; it printed: %s", Files.readString(log))
                    .isTrue();
        } finally {
            process.destroyForcibly();
        }
        String printed = Files.readString(log);
        assertThat(process.exitValue()).as(printed).isEqualTo(1);
        assertThat(printed)
                .contains("preprocess: error: OutOfMemoryError: ")
                .contains("the JVM ran out of direct memory")
                .contains("PIPER_JAVA_OPTS=-Xmx8g")
                .doesNotContain("Exception in thread \"main\"");
        assertThat(tmp.resolve("out").resolve("metadata.json")).doesNotExist();
    }

    /** Issue 40: running out of heap gave a bare OutOfMemoryError; the line says what to do. */
    @Test
    void anOutOfMemoryErrorNamesTheRemedies() {
        RuntimeException failed =
                new RuntimeException(
                        "Job execution failed.", new OutOfMemoryError("Java heap space"));
        assertThat(PiperCli.message(failed))
                .startsWith("Job execution failed. (cause: OutOfMemoryError: Java heap space);")
                .contains("give it more with PIPER_JAVA_OPTS=-Xmx8g")
                .contains("--state-backend rocksdb");
        assertThat(PiperCli.message(new IllegalStateException("x"))).isEqualTo("x");
    }

    @Test
    void anErrorLineNamesTheRootCause() {
        Exception failed =
                new IllegalStateException(
                        "The TaskExecutor is shutting down.",
                        new RuntimeException(
                                "Job execution failed.",
                                new java.io.IOException(
                                        "/data/out/rows.bin: No space left on device")));
        assertThat(PiperCli.message(failed))
                .isEqualTo(
                        "The TaskExecutor is shutting down. (cause: IOException: /data/out/rows.bin:"
                                + " No space left on device)");
        Exception plain = new IllegalArgumentException("bad\nthing");
        assertThat(PiperCli.message(plain)).isEqualTo("bad thing");
        Exception same = new RuntimeException("disk full", new java.io.IOException("disk full"));
        assertThat(PiperCli.message(same)).isEqualTo("disk full");
        // Java names only the path of a file-system error: the message says what happened
        assertThat(PiperCli.message(new java.nio.file.AccessDeniedException("/data/out")))
                .isEqualTo("/data/out: permission denied");
        assertThat(
                        PiperCli.message(
                                new IllegalStateException(
                                        "job failed",
                                        new java.nio.file.NoSuchFileException("/data/in.tsv"))))
                .isEqualTo(
                        "job failed (cause: NoSuchFileException: /data/in.tsv: no such file or"
                                + " directory)");
    }

    /**
     * Issue 23: two preprocess runs into one directory both exited 0, leaving one run's
     * metadata.json beside a mix of both runs' rows. A run holds its output directory: while
     * another holds it, a second run into it is refused naming the holder and changes nothing; once
     * released, a run goes through.
     */
    @Test
    void aSecondRunIntoAnOutputInUseIsRefusedNamingTheHolder() throws Exception {
        Path input = tmp.resolve("in.tsv");
        try (var w = Files.newOutputStream(input)) {
            new dev.piper.pipeline.generate.CriteoGenerator(3, 0.0005, 0).write(w, 500);
        }
        Path out = tmp.resolve("locked");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                out.toString()))
                .as(err())
                .isZero();
        byte[] rows = Files.readAllBytes(out.resolve("rows.bin"));
        try (var held = dev.piper.job.Preprocess.lockOutput(out)) {
            assertThat(
                            PiperCli.execute(
                                    "preprocess",
                                    "--input",
                                    input.toString(),
                                    "--output",
                                    out.toString(),
                                    "--overwrite"))
                    .isEqualTo(1);
            assertThat(err())
                    .contains(
                            "preprocess: error: output directory "
                                    + out
                                    + " is in use by another run (pid "
                                    + ProcessHandle.current().pid())
                    .contains("lock " + tmp.resolve(".locked.lock"));
            assertThat(out.resolve("rows.bin")).hasBinaryContent(rows);
            assertThat(out.resolve("metadata.json")).exists();
        }
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                out.toString(),
                                "--overwrite"))
                .as(err())
                .isZero();
        try (var list = Files.list(out)) {
            assertThat(list.map(p -> p.getFileName().toString()))
                    .doesNotContain(".locked.lock")
                    .contains("rows.bin", "metadata.json");
        }
    }

    @Test
    void preprocessRefusesABadSpecAndOptionsTheSpecDefines() throws Exception {
        Path input = Files.writeString(tmp.resolve("in.tsv"), "");
        Path bad = Files.writeString(tmp.resolve("bad.json"), "{\"name\": \"x\"}");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                tmp.resolve("o1").toString(),
                                "--spec",
                                bad.toString()))
                .isEqualTo(2);
        assertThat(err()).contains("--spec: " + bad + ": version: missing");
        assertThat(Files.exists(tmp.resolve("o1"))).as("no output directory made").isFalse();

        assertThat(PiperCli.execute("spec", "show", "--json")).isZero();
        Path good =
                Files.writeString(tmp.resolve("good.json"), out.toString(StandardCharsets.UTF_8));
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                tmp.resolve("o2").toString(),
                                "--spec",
                                good.toString(),
                                "--max-ind-range",
                                "10"))
                .isEqualTo(2);
        assertThat(err()).contains("--max-ind-range cannot be combined with --spec");
    }

    /** A spec whose C7 vocabulary is {@code vocab}, the rest the builtin's. */
    private Path specWithC7Vocab(String name, String vocab) throws IOException {
        String sparse = "[\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]";
        String builtin =
                new String(
                        dev.piper.pipeline.spec.SpecParser.builtinText(), StandardCharsets.UTF_8);
        assertThat(builtin).contains("\"C1..C26\": " + sparse);
        String c7 = "[\"decode\", \"fill_missing\", \"hex2int\", " + vocab + "]";
        return Files.writeString(
                tmp.resolve(name),
                builtin.replace(
                        "\"C1..C26\": " + sparse,
                        "\"C1..C6\": " + sparse + ", \"C7\": " + c7 + ", \"C8..C26\": " + sparse));
    }

    @Test
    void preprocessChecksAnImportedVocabularyBeforeStarting() throws Exception {
        Path input = Files.writeString(tmp.resolve("in.tsv"), "");
        Path vocab = Files.writeString(tmp.resolve("C7.tsv"), "0\t10\n1\tzz\n");
        Path spec =
                specWithC7Vocab(
                        "import.json", "{\"op\": \"vocab\", \"import\": \"" + vocab + "\"}");
        // issue 23: validate reads the spec's files too, as the job must (it accepted this one)
        assertThat(PiperCli.execute("spec", "validate", spec.toString())).isEqualTo(1);
        assertThat(err())
                .contains(
                        "columns.C7: vocab import: "
                                + vocab
                                + " line 2 has key \"zz\", not an unsigned decimal below 2^64");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                tmp.resolve("o").toString(),
                                "--spec",
                                spec.toString()))
                .isEqualTo(2);
        assertThat(err())
                .contains(
                        "--spec "
                                + spec
                                + ": columns.C7: vocab import: "
                                + vocab
                                + " line 2 has key \"zz\", not an unsigned decimal below 2^64");
        assertThat(Files.exists(tmp.resolve("o"))).as("no output directory made").isFalse();
    }

    /**
     * convert to an Avro container file and to Protobuf messages (found by their names), then
     * preprocess of each gives the text's rows.bin; the lines no record carries are set aside and
     * counted, and an Avro codec it cannot write is refused by name.
     */
    @Test
    void convertToAvroProtobufAndCsvThenPreprocessGivesTheTextsRows() throws Exception {
        Path tsv = tmp.resolve("in.tsv");
        try (var w = Files.newOutputStream(tsv)) {
            new dev.piper.pipeline.generate.CriteoGenerator(5, 0.0005, 0.02).write(w, 2_000);
        }
        Path text = tmp.resolve("from-text");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                tsv.toString(),
                                "--output",
                                text.toString()))
                .as(err())
                .isZero();
        Path avro = tmp.resolve("in.avro");
        assertThat(
                        PiperCli.execute(
                                "convert", "--input", tsv.toString(), "--output", avro.toString()))
                .as(err())
                .isZero();
        String said = out.toString(StandardCharsets.UTF_8);
        assertThat(said).contains("Avro records written").contains("codec deflate");
        long rejected = 0; // lines, counted as bytes: some are not UTF-8
        for (byte b : Files.readAllBytes(avro.resolveSibling("in.avro.rejected.tsv"))) {
            rejected += b == '\n' ? 1 : 0;
        }
        assertThat(rejected).isPositive();
        assertThat(said)
                .contains(
                        String.format("convert: %,d lines are no record of the layout", rejected));
        Path fromAvro = tmp.resolve("from-avro");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                avro.toString(),
                                "--output",
                                fromAvro.toString(),
                                "--preset",
                                "dlrm-criteo-avro"))
                .as(err())
                .isZero();
        assertThat(Files.mismatch(fromAvro.resolve("rows.bin"), text.resolve("rows.bin")))
                .isEqualTo(-1);

        Path pb = tmp.resolve("in.pb");
        assertThat(
                        PiperCli.execute(
                                "convert", "--input", tsv.toString(), "--output", pb.toString()))
                .as(err())
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("Protobuf messages written")
                .contains("message dev.piper.events.CriteoLine, descriptor set " + pb + ".desc");
        Path spec = tmp.resolve("pb.json");
        Files.writeString(
                spec,
                """
                {"name": "criteo-pb", "version": 1,
                 "input": {"format": "protobuf", "descriptor": "%s",
                           "message": "dev.piper.events.CriteoLine"},
                 "columns": {"label": ["decode", "fill_missing"],
                   "I1..I13": ["decode", "fill_missing", "neg2zero"],
                   "C1..C26": ["decode", "fill_missing", "hex2int", "vocab"]}}
                """
                        .formatted(pb + ".desc"));
        Path fromPb = tmp.resolve("from-pb");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                pb.toString(),
                                "--output",
                                fromPb.toString(),
                                "--spec",
                                spec.toString()))
                .as(err())
                .isZero();
        assertThat(Files.mismatch(fromPb.resolve("rows.bin"), text.resolve("rows.bin")))
                .isEqualTo(-1);

        // CSV: every line written (the header first), read back with the preset to the same rows
        Path csv = tmp.resolve("in.csv");
        assertThat(
                        PiperCli.execute(
                                "convert", "--input", tsv.toString(), "--output", csv.toString()))
                .as(err())
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("2,000 CSV lines written after the header")
                .contains("--preset dlrm-criteo-csv");
        assertThat(Files.readAllLines(csv, StandardCharsets.ISO_8859_1).get(0))
                .startsWith("label,I1,I2,")
                .endsWith(",C25,C26");
        Path fromCsv = tmp.resolve("from-csv");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                csv.toString(),
                                "--output",
                                fromCsv.toString(),
                                "--preset",
                                "dlrm-criteo-csv"))
                .as(err())
                .isZero();
        assertThat(Files.mismatch(fromCsv.resolve("rows.bin"), text.resolve("rows.bin")))
                .isEqualTo(-1);
        JsonNode fromCsvMeta =
                new ObjectMapper().readTree(fromCsv.resolve("metadata.json").toFile());
        JsonNode textMeta = new ObjectMapper().readTree(text.resolve("metadata.json").toFile());
        assertThat(fromCsvMeta.get("dead_letters")).isEqualTo(textMeta.get("dead_letters"));
        assertThat(fromCsvMeta.get("dead_letters_by_reason"))
                .isEqualTo(textMeta.get("dead_letters_by_reason"));

        assertThat(
                        PiperCli.execute(
                                "convert",
                                "--input",
                                tsv.toString(),
                                "--output",
                                tmp.resolve("x.avro").toString(),
                                "--compression",
                                "zstd"))
                .isEqualTo(2);
        assertThat(err())
                .contains(
                        "--compression: an Avro file is uncompressed or gzip (deflate), not"
                                + " \"zstd\"");
        assertThat(tmp.resolve("x.avro")).doesNotExist();
    }

    /**
     * convert, then preprocess of the Parquet file (found by its name) to rows.parquet; every
     * refusal of either names its option and exits 2 before anything is written.
     */
    @Test
    void convertThenPreprocessParquetAndTheirRefusals() throws Exception {
        Path tsv = tmp.resolve("in.tsv");
        try (var w = Files.newOutputStream(tsv)) {
            new dev.piper.pipeline.generate.CriteoGenerator(3, 0.0005, 0.02).write(w, 2_000);
        }
        Path parquet = tmp.resolve("in.parquet");
        assertThat(
                        PiperCli.execute(
                                "convert",
                                "--input",
                                tsv.toString(),
                                "--output",
                                parquet.toString(),
                                "--compression",
                                "zstd"))
                .isZero();
        String converted = out.toString(StandardCharsets.UTF_8);
        assertThat(converted).contains("convert: 2,000 lines read, ").contains("-> " + parquet);
        Path dead = tmp.resolve("in.dead-letters.jsonl");
        long deadLetters = Files.readAllLines(dead).size();
        assertThat(deadLetters).isPositive();
        assertThat(converted).contains(String.format("%,d dead letters", deadLetters));

        Path o = tmp.resolve("o");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                parquet.toString(),
                                "--output",
                                o.toString(),
                                "--output-format",
                                "parquet",
                                "--block-rows",
                                "100"))
                .isZero();
        assertThat(o.resolve("rows.parquet")).isRegularFile();
        assertThat(o.resolve("rows.bin")).doesNotExist();
        // convert writes a checksum for every page: no note that damage would go unseen
        assertThat(err()).doesNotContain("no page checksums");
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains(String.format("%,d rows written, 0 dead letters", 2_000 - deadLetters));

        assertThat(
                        PiperCli.execute(
                                "convert",
                                "--input",
                                tsv.toString(),
                                "--output",
                                parquet.toString()))
                .isEqualTo(2);
        assertThat(err()).contains("--output: " + parquet + " exists; remove it first");
        assertThat(
                        PiperCli.execute(
                                "convert",
                                "--input",
                                tsv.toString(),
                                "--output",
                                tmp.resolve("x.parquet").toString(),
                                "--compression",
                                "lzo"))
                .isEqualTo(2);
        assertThat(err()).contains("--compression: unknown codec \"lzo\" (known: uncompressed,");
        String[] refusals = {
            "--input-format", "csv", "--input-format: unknown format \"csv\" (known: tsv, parquet)",
            "--output-format", "orc", "--output-format: unknown output format \"orc\"",
            "--block-rows", "0", "--block-rows: must be between 1 and 16777216, not 0",
            "--report", null, "--report: the cost report measures the decoding of text input"
        };
        for (int i = 0; i < refusals.length; i += 3) {
            List<String> args =
                    new ArrayList<>(
                            List.of(
                                    "preprocess",
                                    "--input",
                                    parquet.toString(),
                                    "--output",
                                    tmp.resolve("o2").toString(),
                                    refusals[i]));
            if (refusals[i + 1] != null) {
                args.add(refusals[i + 1]);
            }
            assertThat(PiperCli.execute(args.toArray(new String[0]))).isEqualTo(2);
            assertThat(err().lines().reduce((a, b) -> b).orElseThrow()).contains(refusals[i + 2]);
        }
        String spec =
                new String(dev.piper.pipeline.spec.SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace(
                                "\"input\": {",
                                "\"input\": {\"parquet_columns\": {\"label\": \"click\"}, ");
        Path specFile = Files.writeString(tmp.resolve("click.json"), spec);
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                parquet.toString(),
                                "--output",
                                tmp.resolve("o3").toString(),
                                "--spec",
                                specFile.toString()))
                .isEqualTo(2);
        assertThat(err())
                .contains(
                        "--input: "
                                + parquet.toAbsolutePath()
                                + ": field label (Parquet column \"click\"): no such column");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                tsv.toString(),
                                "--input-format",
                                "parquet",
                                "--output",
                                tmp.resolve("o4").toString()))
                .isEqualTo(2);
        assertThat(err()).contains("--input: " + tsv + " is not a readable Parquet file");
        for (String never : List.of("o2", "o3", "o4")) {
            assertThat(tmp.resolve(never)).as("no output directory made").doesNotExist();
        }
    }

    @Test
    void specShowListsEveryColumnsChain() {
        assertThat(PiperCli.execute("spec", "show")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("pipeline dlrm-criteo version 1")
                .contains("C26    sparse decode fill_missing hex2int vocab");
    }

    @Test
    void badValueExitsTwoWithOneLineNamingIt() {
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                "x",
                                "--output",
                                "y",
                                "--parallelism",
                                "many"))
                .isEqualTo(2);
        assertThat(err().lines()).hasSize(1);
        assertThat(err()).contains("--parallelism").contains("'many'");
    }

    @Test
    void blockBytesOutOfRangeIsNamed() throws Exception {
        Path input = Files.writeString(tmp.resolve("in.tsv"), "");
        // issue 23: --block-bytes 1 was accepted, and a 1,000-line file took 46 s and 4.8 GB
        for (String bad : new String[] {"0", "1", "65535", "1073741824"}) {
            assertThat(
                            PiperCli.execute(
                                    "preprocess",
                                    "--input",
                                    input.toString(),
                                    "--output",
                                    tmp.resolve("o").toString(),
                                    "--block-bytes",
                                    bad))
                    .isEqualTo(2);
            assertThat(err().lines().reduce((a, b) -> b).orElseThrow())
                    .contains(
                            "--block-bytes: must be between 65536 (64 KiB: the blocks of a file cost splits")
                    .contains("and 268435456, not " + bad);
        }
    }

    @Test
    void missingRequiredOptionIsNamed() {
        assertThat(PiperCli.execute("generate", "--rows", "10")).isEqualTo(2);
        assertThat(err().lines()).hasSize(1);
        assertThat(err()).contains("--output");
    }

    @Test
    void unknownOptionIsNamed() {
        assertThat(PiperCli.execute("generate", "--rows", "10", "--output", "f", "--colour", "red"))
                .isEqualTo(2);
        assertThat(err()).contains("--colour");
    }

    @Test
    void missingInputFileIsNamed() {
        Path missing = tmp.resolve("missing.tsv");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                missing.toString(),
                                "--output",
                                tmp.resolve("o").toString()))
                .isEqualTo(2);
        assertThat(err()).startsWith("piper preprocess: --input: ").contains("missing.tsv");
    }

    @Test
    void refusesANonEmptyOutputDirectoryAndForeignFilesEvenWithOverwrite() throws Exception {
        Path input = tmp.resolve("in.tsv");
        Files.writeString(input, "\n");
        Path output = Files.createDirectories(tmp.resolve("out"));
        Files.writeString(output.resolve("notes.txt"), "mine");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                output.toString()))
                .isEqualTo(2);
        assertThat(err()).contains("--output:").contains("is not empty");
        err.reset();
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                output.toString(),
                                "--overwrite"))
                .isEqualTo(2);
        assertThat(err()).contains("notes.txt").contains("refusing");
        assertThat(output.resolve("notes.txt")).exists();
    }

    /**
     * Lines of another layout: generate writes them, convert reads them into Parquet columns of
     * that layout, preprocess takes them from either with a spec that declares the layout and gives
     * the same rows; a spec of the wrong layout is refused before the job starts, naming the field.
     */
    @Test
    void anotherLayoutFromGenerateThroughConvertAndPreprocess() throws Exception {
        Path tsv = tmp.resolve("wide.tsv");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--rows",
                                "500",
                                "--dense",
                                "20",
                                "--sparse",
                                "3",
                                "--scale",
                                "0.001",
                                "--bad-rate",
                                "0.02",
                                "--output",
                                tsv.toString()))
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("500 lines")
                .contains("of 20 dense, 3 sparse");
        assertThat(Files.readAllLines(tsv).get(0).split("\t", -1)).hasSize(24);
        // written beside it and renamed into place whole: nothing left beside it
        assertThat(tmp.resolve(".wide.tsv.partial")).doesNotExist();
        Path parquet = tmp.resolve("wide.parquet");
        assertThat(
                        PiperCli.execute(
                                "convert",
                                "--input",
                                tsv.toString(),
                                "--output",
                                parquet.toString(),
                                "--dense",
                                "20",
                                "--sparse",
                                "3"))
                .isZero();
        Path spec = tmp.resolve("wide.json");
        Files.writeString(
                spec,
                """
                {"name": "wide", "version": 1,
                 "input": {"format": "criteo-tsv", "dense": 20, "sparse": 3},
                 "columns": {"label": ["decode", "fill_missing"],
                             "I1..I20": ["decode", "fill_missing", "neg2zero"],
                             "C1..C3": ["decode", "fill_missing", "hex2int", "vocab"]}}
                """);
        Path fromText = tmp.resolve("t");
        Path fromParquet = tmp.resolve("p");
        for (String[] run :
                List.of(
                        new String[] {tsv.toString(), fromText.toString()},
                        new String[] {parquet.toString(), fromParquet.toString()})) {
            assertThat(
                            PiperCli.execute(
                                    "preprocess",
                                    "--input",
                                    run[0],
                                    "--output",
                                    run[1],
                                    "--spec",
                                    spec.toString()))
                    .as(err())
                    .isZero();
        }
        byte[] rows = Files.readAllBytes(fromText.resolve("rows.bin"));
        assertThat(rows).isNotEmpty();
        assertThat(rows.length % (24 * 4)).isZero();
        assertThat(Files.readAllBytes(fromParquet.resolve("rows.bin"))).isEqualTo(rows);
        assertThat(fromText.resolve("vocab/C3.tsv")).isRegularFile();
        assertThat(fromText.resolve("vocab/C4.tsv")).doesNotExist();

        // The built-in (Criteo) spec does not fit the Parquet file's columns, nor these lines.
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                parquet.toString(),
                                "--output",
                                tmp.resolve("x").toString()))
                .isEqualTo(2);
        assertThat(err()).contains("--input: ").contains("field C4: no such column");
        assertThat(
                        PiperCli.execute(
                                "convert",
                                "--input",
                                tsv.toString(),
                                "--output",
                                tmp.resolve("y.parquet").toString(),
                                "--dense",
                                "0"))
                .isEqualTo(2);
        assertThat(err()).contains("--dense: must be from 1 to 4096, not 0");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                tsv.toString(),
                                "--output",
                                tmp.resolve("z").toString(),
                                "--spec",
                                spec.toString(),
                                "--report"))
                .as(err())
                .isZero();
        // the cost report prices every layout's columns: here 23 (the label aside)
        JsonNode report =
                new ObjectMapper().readTree(tmp.resolve("z").resolve("report.json").toFile());
        assertThat(report.get("columns")).hasSize(23);
    }

    /**
     * {@code generate --click-model --drift-at}: the Bayes AUC printed and written to {@code
     * OUTPUT.model.json}, before and after the drift, is the AUC of the hidden model's
     * probabilities on the lines written, computed here again from the file (the malformed lines,
     * which the model does not score, left out by their line numbers: the same run without the
     * click model marks none, so they are those whose label is not the model's 0/1 or which do not
     * parse); the default output stays the one without a model.
     */
    /**
     * {@code generate --events}: click events in the format asked, the preset that reads them
     * named, the Bayes AUC written; a Protobuf file's descriptor set beside it; an unknown format
     * and options it does not take refused naming the option.
     */
    @Test
    void generateEventsWritesClickEventsAndNamesTheirPreset() throws Exception {
        Path csv = tmp.resolve("events.csv");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--events",
                                "csv",
                                "--rows",
                                "3000",
                                "--scale",
                                "0.01",
                                "--drift-at",
                                "1500",
                                "--output",
                                csv.toString()))
                .as(err())
                .isZero();
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines).hasSize(3001);
        assertThat(lines.get(0)).isEqualTo(ClickEvents.CSV_HEADER);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("3,000 click events (csv)")
                .contains("read them with --preset clicks-csv")
                .contains("after the drift at event 1500");
        JsonNode model = new ObjectMapper().readTree(tmp.resolve("events.csv.model.json").toFile());
        assertThat(model.get("bayes_auc").asDouble()).isBetween(0.6, 0.9);
        Path pb = tmp.resolve("events.pb");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--events",
                                "protobuf",
                                "--rows",
                                "100",
                                "--output",
                                pb.toString()))
                .as(err())
                .isZero();
        assertThat(tmp.resolve("events.pb.desc")).exists();
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--events",
                                "xml",
                                "--rows",
                                "1",
                                "--output",
                                pb.toString()))
                .isEqualTo(2);
        assertThat(err()).contains("--events: unknown event format \"xml\"");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--events",
                                "json",
                                "--bad-rate",
                                "0.1",
                                "--rows",
                                "1",
                                "--output",
                                pb.toString()))
                .isEqualTo(2);
        assertThat(err()).contains("not with --bad-rate, --preset or --click-model");
    }

    /**
     * {@code generate --actions --negative-sample-rate}: the spec keeps negatives at the rate, each
     * row's weight in I4; a rate that is not 1/n is refused naming the option, and nothing is
     * written.
     */
    @Test
    void generateActionsWithSampledNegativesWritesTheirWeightColumn() throws Exception {
        Path dir = tmp.resolve("sampled");
        assertThat(generateSampled("0.25", dir)).as(err()).isZero();
        PipelineSpec spec = SpecParser.parse(dir.resolve("impressions.spec.json"));
        assertThat(spec.labels().join().negativeSampleRate()).isEqualTo(0.25);
        assertThat(Files.readString(dir.resolve("impressions.spec.json")))
                .contains("\"I4\": \"labels.weight\"");
        Path refused = tmp.resolve("refused");
        assertThat(generateSampled("0.3", refused)).isEqualTo(2);
        assertThat(err()).contains("--negative-sample-rate:").contains("0.3 is not 1/n");
        assertThat(refused).doesNotExist();
        assertThat(generateSampled("2", refused)).isEqualTo(2);
        assertThat(err())
                .contains(
                        "--negative-sample-rate: the share of negatives kept, in (0, 1], not 2.0");
        assertThat(refused).doesNotExist();
    }

    /**
     * {@code generate --events json --actions} of 2,000 impressions, negatives kept at {@code
     * rate}.
     */
    private static int generateSampled(String rate, Path output) {
        return PiperCli.execute(
                "generate",
                "--events",
                "json",
                "--actions",
                "--rows",
                "2000",
                "--negative-sample-rate",
                rate,
                "--output",
                output.toString());
    }

    @Test
    void generateWithAClickModelPrintsItsBayesAuc() throws Exception {
        Path tsv = tmp.resolve("clicks.tsv");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--click-model",
                                "--drift-at",
                                "20000",
                                "--rows",
                                "40000",
                                "--scale",
                                "0.01",
                                "--seed",
                                "5",
                                "--output",
                                tsv.toString()))
                .as(err())
                .isZero();
        JsonNode model = new ObjectMapper().readTree(tmp.resolve("clicks.tsv.model.json").toFile());
        List<String> lines = Files.readAllLines(tsv);
        ClickModel hidden = new ClickModel(5);
        double[] auc = new double[2];
        for (int phase = 0; phase < 2; phase++) {
            double[] p = new double[20_000];
            boolean[] clicks = new boolean[20_000];
            for (int i = 0; i < p.length; i++) {
                String line = lines.get(phase * 20_000 + i);
                p[i] = hidden.probability(phase, line);
                clicks[i] = line.startsWith("1\t");
            }
            auc[phase] = ClickModel.rankAuc(p, clicks);
        }
        assertThat(model.get("bayes_auc").asDouble()).isCloseTo(auc[0], within(1e-4));
        assertThat(model.get("bayes_auc_after_drift").asDouble()).isCloseTo(auc[1], within(1e-4));
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains(String.format("Bayes AUC %.4f", model.get("bayes_auc").asDouble()))
                .contains(
                        String.format(
                                "%.4f after the drift at line 20000",
                                model.get("bayes_auc_after_drift").asDouble()));
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--rows",
                                "10",
                                "--drift-at",
                                "5",
                                "--output",
                                tmp.resolve("x").toString()))
                .isEqualTo(2);
        assertThat(err()).contains("--drift-at: needs --click-model");
    }

    /**
     * PreSto's presets from the command line: generate writes an RM2 sample (lists, 504 dense),
     * preprocess runs it with the same preset, spec show prints the preset; contradictions and
     * unknown presets are named.
     */
    @Test
    void presetsFromGenerateToPreprocess() throws Exception {
        Path tsv = tmp.resolve("rm2.tsv");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--preset",
                                "RM2",
                                "--rows",
                                "200",
                                "--scale",
                                "0.001",
                                "--output",
                                tsv.toString()))
                .as(err())
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains(
                        "of 504 dense, 42 sparse, 21 generated (lists: C1..C42, separated by ',')");
        assertThat(Files.readAllLines(tsv).get(0).split("\t", -1)).hasSize(547);
        Path o = tmp.resolve("rm2");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                tsv.toString(),
                                "--output",
                                o.toString(),
                                "--preset",
                                "rm2"))
                .as(err())
                .isZero();
        assertThat(Files.size(o.resolve("rows.bin"))).isEqualTo(200L * (1 + 504 + 21) * 4);
        assertThat(Files.size(o.resolve("lists/C42.lengths"))).isEqualTo(200L * 4);
        Path parquet = tmp.resolve("rm2.parquet");
        assertThat(
                        PiperCli.execute(
                                "convert",
                                "--input",
                                tsv.toString(),
                                "--output",
                                parquet.toString(),
                                "--preset",
                                "rm2"))
                .as(err())
                .isZero();
        // a spec of JSON events reads Parquet by its fields' paths, and is refused where the file
        // holds what its column never can: rm2's C1 is a list, Criteo's C1 one id
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                parquet.toString(),
                                "--output",
                                tmp.resolve("rm2-json").toString(),
                                "--preset",
                                "dlrm-criteo-json"))
                .isEqualTo(2);
        assertThat(err())
                .contains(
                        parquet
                                + ": C1 (C1): \"C1\" is a LIST, but the column holds one value (name"
                                + " it in input.list_columns, or read one element: C1[0])");
        // read by paths: one element of the list, and a path the file lacks (noted, its fill)
        Path paths = tmp.resolve("paths.json");
        Files.writeString(
                paths,
                """
                {"name": "paths", "version": 1,
                 "input": {"format": "json", "dense": 1, "sparse": 1,
                   "fields": {"label": "label", "I1": "no_such", "C1": "C1[0]"}},
                 "columns": {"label": ["decode", "fill_missing"],
                   "I1": ["decode", "fill_missing"],
                   "C1": ["decode", "fill_missing", "hex2int", "vocab"]}}""");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                parquet.toString(),
                                "--output",
                                tmp.resolve("rm2-paths").toString(),
                                "--spec",
                                paths.toString()))
                .as(err())
                .isZero();
        assertThat(err())
                .contains(
                        "preprocess: note: "
                                + parquet
                                + " has no column at the path of I1 (no_such); every row reads it"
                                + " as missing (its fill)");
        assertThat(Files.size(tmp.resolve("rm2-paths").resolve("rows.bin")))
                .isEqualTo(200L * 3 * 4);
        Path p = tmp.resolve("rm2-parquet");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                parquet.toString(),
                                "--output",
                                p.toString(),
                                "--preset",
                                "rm2"))
                .as(err())
                .isZero();
        assertThat(Files.mismatch(p.resolve("rows.bin"), o.resolve("rows.bin"))).isEqualTo(-1);
        // generate writes Parquet directly: the same lines, converted
        Path generated = tmp.resolve("rm2-direct.parquet");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--preset",
                                "rm2",
                                "--rows",
                                "200",
                                "--scale",
                                "0.001",
                                "--output",
                                generated.toString()))
                .as(err())
                .isZero();
        assertThat(tmp.resolve(".rm2-direct.parquet.tsv")).doesNotExist();
        Path q = tmp.resolve("rm2-direct");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                generated.toString(),
                                "--output",
                                q.toString(),
                                "--preset",
                                "rm2"))
                .as(err())
                .isZero();
        assertThat(Files.mismatch(q.resolve("rows.bin"), o.resolve("rows.bin"))).isEqualTo(-1);
        assertThat(Files.mismatch(p.resolve("lists/C42.values"), o.resolve("lists/C42.values")))
                .isEqualTo(-1);
        assertThat(PiperCli.execute("spec", "show", "--preset", "rm5")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("pipeline presto-rm5 version 1")
                .contains("G42    dense  decode fill_missing neg2zero bucketize(");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                tsv.toString(),
                                "--output",
                                tmp.resolve("x").toString(),
                                "--preset",
                                "rm9"))
                .isEqualTo(2);
        assertThat(err())
                .contains(
                        "--preset: unknown preset \"rm9\" (known: "
                                + dev.piper.pipeline.spec.Presets.ALL.stream()
                                        .map(dev.piper.pipeline.spec.Presets.Preset::name)
                                        .collect(java.util.stream.Collectors.joining(", "))
                                + ")");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--preset",
                                "rm1",
                                "--dense",
                                "20",
                                "--rows",
                                "1",
                                "--output",
                                tmp.resolve("y").toString()))
                .isEqualTo(2);
        assertThat(err()).contains("--dense cannot be combined with --preset");
        Path z = tmp.resolve("z");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                tsv.toString(),
                                "--output",
                                z.toString(),
                                "--preset",
                                "rm2",
                                "--output-format",
                                "parquet"))
                .as(err())
                .isZero();
        assertThat(z.resolve("rows.parquet")).isRegularFile();
        assertThat(z.resolve("lists")).doesNotExist();
    }

    /**
     * The cost report prices onehot, which no paper built, as an assumption it names in the
     * column's {@code fpga_assumed_ops}.
     */
    @Test
    void reportPricesOnehotAsAnAssumption() throws Exception {
        Path input = tmp.resolve("in.tsv");
        try (var w = Files.newOutputStream(input)) {
            new dev.piper.pipeline.generate.CriteoGenerator(3, 0.0005, 0).write(w, 10);
        }
        Path spec = tmp.resolve("oh.json");
        Files.writeString(
                spec,
                new String(dev.piper.pipeline.spec.SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace(
                                "\"I1..I13\": [\"decode\", \"fill_missing\", \"neg2zero\"]",
                                "\"I1\": [\"decode\", \"fill_missing\", {\"op\": \"onehot\","
                                        + " \"size\": 3}], \"I2..I13\": [\"decode\","
                                        + " \"fill_missing\", \"neg2zero\"]"));
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                tmp.resolve("o").toString(),
                                "--spec",
                                spec.toString(),
                                "--report"))
                .as(err())
                .isZero();
        JsonNode i1 =
                new ObjectMapper()
                        .readTree(tmp.resolve("o").resolve("report.json").toFile())
                        .get("columns")
                        .get(0);
        assertThat(i1.get("column").asText()).isEqualTo("I1");
        assertThat(i1.get("fpga_assumed_ops").toString()).contains("onehot");
        assertThat(
                        PiperCli.execute(
                                "preprocess",
                                "--input",
                                input.toString(),
                                "--output",
                                tmp.resolve("p").toString(),
                                "--spec",
                                spec.toString()))
                .as(err())
                .isZero();
        assertThat(Files.size(tmp.resolve("p").resolve("rows.bin"))).isEqualTo(10L * 41 * 4);
    }

    @Test
    void generateWritesTheRequestedLines() throws Exception {
        Path file = tmp.resolve("g.tsv");
        assertThat(
                        PiperCli.execute(
                                "generate",
                                "--rows",
                                "1234",
                                "--seed",
                                "5",
                                "--scale",
                                "0.001",
                                "--output",
                                file.toString()))
                .isZero();
        assertThat(Files.readAllLines(file)).hasSize(1234);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("1,234 lines");
    }

    @Test
    void submitNamesABadArgumentBeforeUploadingAnything() throws Exception {
        Path jar = Files.writeString(tmp.resolve("job.jar"), "not used");
        assertThat(PiperCli.execute("submit", "--jar", jar.toString())).isEqualTo(2);
        assertThat(err()).contains("name the job after --");
        err.reset();
        // The job's own options are checked here, as the job jar would check them.
        assertThat(
                        PiperCli.execute(
                                "submit",
                                "--jar",
                                jar.toString(),
                                "--",
                                "preprocess",
                                "--input",
                                "a",
                                "--output",
                                "b",
                                "--inptu",
                                "x"))
                .isEqualTo(2);
        assertThat(err().strip())
                .startsWith("piper submit: job arguments: Unknown option: '--inptu'")
                .doesNotContain("\n");
        err.reset();
        assertThat(
                        PiperCli.execute(
                                "submit", "--jar", jar.toString(), "--", "bench", "--rows", "1"))
                .isEqualTo(2);
        assertThat(err())
                .contains("job arguments: name the job to run: preprocess or stream, not 'bench'");
        err.reset();
        assertThat(PiperCli.execute("submit", "--jar", jar.toString(), "--", "stream", "--help"))
                .isEqualTo(2);
        assertThat(err())
                .contains(
                        "job arguments: --help and --version run no job; see 'piper stream --help'");
        err.reset();
        assertThat(PiperCli.execute("submit", "--jar", jar.toString(), "--", "--parallelism", "2"))
                .isEqualTo(2);
        assertThat(err()).contains("job arguments: ");
        err.reset();
        String[] preprocess = {"--", "preprocess", "--input", "a", "--output", "b"};
        assertThat(
                        PiperCli.execute(
                                concat(
                                        new String[] {
                                            "submit",
                                            "--jar",
                                            jar.toString(),
                                            "--rest",
                                            "ftp://host"
                                        },
                                        preprocess)))
                .isEqualTo(2);
        assertThat(err()).contains("--rest: expected a URL like http://127.0.0.1:8081");
        err.reset();
        assertThat(
                        PiperCli.execute(
                                concat(
                                        new String[] {
                                            "submit", "--jar", tmp.resolve("none.jar").toString()
                                        },
                                        preprocess)))
                .isEqualTo(2);
        assertThat(err()).contains("--jar: " + tmp.resolve("none.jar") + " is not a readable file");
        err.reset();
        assertThat(
                        PiperCli.execute(
                                concat(
                                        new String[] {
                                            "submit",
                                            "--jar",
                                            jar.toString(),
                                            "--allow-non-restored-state"
                                        },
                                        preprocess)))
                .isEqualTo(2);
        assertThat(err()).contains("--allow-non-restored-state: needs --from-savepoint");
    }

    @Test
    void submitToAnAddressWhereNoClusterAnswersFailsNamingIt() throws Exception {
        Path jar = Files.writeString(tmp.resolve("job.jar"), "not used");
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertThat(
                        PiperCli.execute(
                                "submit",
                                "--rest",
                                "http://127.0.0.1:" + port,
                                "--jar",
                                jar.toString(),
                                "--",
                                "preprocess",
                                "--input",
                                "a",
                                "--output",
                                "b"))
                .isEqualTo(1);
        assertThat(err()).contains("GET overview: no answer from http://127.0.0.1:" + port);
    }

    @Test
    void clusterStartNamesABadOption() {
        assertThat(PiperCli.execute("cluster", "start", "--dir", tmp.toString(), "--port", "0"))
                .isEqualTo(2);
        assertThat(err()).contains("ports must be between 1 and 65535, not 0");
        err.reset();
        assertThat(
                        PiperCli.execute(
                                "cluster",
                                "start",
                                "--dir",
                                tmp.toString(),
                                "--taskmanager-memory",
                                "lots"))
                .isEqualTo(2);
        assertThat(err()).contains("--taskmanager-memory: expected a size like 1536m, not 'lots'");
        err.reset();
        assertThat(
                        PiperCli.execute(
                                "cluster", "start", "--dir", tmp.toString(), "--rpc-port", "8081"))
                .isEqualTo(2);
        assertThat(err()).contains("--rpc-port must differ from --port");
    }

    @Test
    void streamOnTheCommandLineNeedsBootstrapServersFromAnOptionOrAPropertiesFile()
            throws Exception {
        String[] stream = {
            "stream",
            "--input-topic",
            "t",
            "--output-topic",
            "o",
            "--checkpoint-dir",
            tmp.resolve("ck").toString()
        };
        assertThat(PiperCli.execute(stream)).isEqualTo(2);
        assertThat(err())
                .contains(
                        "Missing required option: '--bootstrap-servers=B' (or bootstrap.servers in --kafka-properties)");
    }

    /**
     * Every command that talks to Kafka, with no broker at the address: exit 1 well within 10
     * seconds, one line naming the address and the cause (produce waited 61 s, consume 31 s).
     */
    @ParameterizedTest
    @ValueSource(strings = {"produce", "consume", "spec publish", "stream"})
    void aKafkaCommandWithNoBrokerFailsAtOnceNamingTheAddress(String command) throws Exception {
        int port;
        try (java.net.ServerSocket s =
                new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // released: nothing listens there
        }
        String address = "127.0.0.1:" + port;
        Path input = Files.writeString(tmp.resolve("in.tsv"), "0\t1\n");
        Path spec = tmp.resolve("spec.json");
        assertThat(PiperCli.execute("spec", "show", "--json")).isZero();
        Files.writeString(spec, out.toString(StandardCharsets.UTF_8));
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.addAll(List.of("--bootstrap-servers", address));
        switch (command) {
            case "produce" -> args.addAll(List.of("--topic", "t", "--input", input.toString()));
            case "consume" ->
                    args.addAll(List.of("--topic", "t", "--output", tmp.resolve("o").toString()));
            case "spec publish" -> args.addAll(List.of("--topic", "ctl", spec.toString()));
            default ->
                    args.addAll(
                            List.of(
                                    "--input-topic",
                                    "t",
                                    "--output-topic",
                                    "o",
                                    "--checkpoint-dir",
                                    tmp.resolve("ck").toString()));
        }
        long start = System.nanoTime();
        assertThat(PiperCli.execute(args.toArray(new String[0]))).isEqualTo(1);
        assertThat((System.nanoTime() - start) / 1e9).isLessThan(10.0);
        assertThat(err())
                .contains(": error: no Kafka broker at " + address + " (" + address + ": ")
                .contains("connection refused");
    }

    private static String[] concat(String[] a, String[] b) {
        return java.util.stream.Stream.concat(
                        java.util.Arrays.stream(a), java.util.Arrays.stream(b))
                .toArray(String[]::new);
    }
}
