package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code piper bench} end to end on a tiny input: it runs every stage, verifies every job output
 * against the single-thread loop's sha256, and writes its table and JSON. It asserts what was
 * measured and checked, never how fast: speed is for the bench itself to report.
 */
class BenchCommandITCase {

    @TempDir Path tmp;

    /** Runs {@code piper bench args}, its table into {@code out}, its progress discarded. */
    private static int bench(ByteArrayOutputStream out, String... args) {
        PrintStream saved = System.out;
        PrintStream savedErr = System.err;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(
                    new PrintStream(
                            java.io.OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
            String[] command = new String[args.length + 1];
            command[0] = "bench";
            System.arraycopy(args, 0, command, 1, args.length);
            return PiperCli.execute(command);
        } finally {
            System.setOut(saved);
            System.setErr(savedErr);
        }
    }

    @Test
    void measuresEveryStageAndVerifiesTheJobOutput() throws Exception {
        Path json = tmp.resolve("bench.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code =
                bench(
                        out,
                        "--rows",
                        "4000",
                        "--regimes",
                        "small",
                        "--parallelism",
                        "1,2",
                        "--repeat",
                        "1",
                        "--fusion",
                        "--parquet",
                        "--data-dir",
                        tmp.resolve("data").toString(),
                        "--json",
                        json.toString());
        assertThat(code).isZero();
        String table = out.toString(StandardCharsets.UTF_8);
        assertThat(table)
                .contains("decode, 1 thread, no Flink")
                .contains("decode + RAP column ops fused, 1 thread")
                .contains("decode + RAP column ops, a pass per column")
                .contains("Flink job")
                .contains("Parquet read + column ops, no Flink")
                .contains("Flink job, Parquet input")
                .contains("Method: marginal");

        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.get("rows").asLong()).isEqualTo(4000);
        assertThat(root.get("machine").get("cores").asInt()).isPositive();
        JsonNode results = root.get("results");
        // decode, fused and unfused passes, fused work, Parquet read at p 1 and 2, for p 1 and 2
        // the job on text and on Parquet
        assertThat(results).hasSize(10);
        for (JsonNode r : results) {
            assertThat(r.get("regime").asText()).isEqualTo("small");
            assertThat(r.get("outputVerified").asBoolean()).isTrue();
            assertThat(r.get("inputBytes").asLong()).isPositive();
        }
        assertThat(results.get(9).get("stage").asText()).isEqualTo("Flink job, Parquet input");
        assertThat(results.get(9).get("parallelism").asInt()).isEqualTo(2);
        String svg = Files.readString(tmp.resolve("bench.svg"));
        assertThat(svg)
                .startsWith("<svg")
                .contains("Flink job, p = 2")
                .contains("small (scale 0.0005)");
        assertThat(svg.split("<rect ", -1))
                .hasSize(1 + 1 + 10 + 10); // background, 10 bars, 10 legend keys
        // the generated inputs are cached for the next run
        try (var files = Files.list(tmp.resolve("data"))) {
            assertThat(
                            files.filter(
                                            f ->
                                                    f.getFileName()
                                                            .toString()
                                                            .startsWith("criteo-seed1-scale0.0005"))
                                    .count())
                    .isEqualTo(4); // text and Parquet, N and N/2 lines
        }
    }

    /**
     * {@code --preset rm3}: inputs of PreSto's RM3 layout, every stage under its spec, and each
     * job's output (rows.bin and the 84 list files) verified against the single-thread loop's,
     * whole process included ({@code --cold}).
     */
    @Test
    void aPresetRunsItsSpecOnItsLayoutAndVerifiesRowsAndLists() throws Exception {
        Path json = tmp.resolve("rm3.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code =
                bench(
                        out,
                        "--preset",
                        "rm3",
                        "--rows",
                        "400",
                        "--regimes",
                        "small",
                        "--parallelism",
                        "2",
                        "--repeat",
                        "1",
                        "--cold",
                        "--data-dir",
                        tmp.resolve("data").toString(),
                        "--json",
                        json.toString());
        assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isZero();
        JsonNode results = new ObjectMapper().readTree(json.toFile()).get("results");
        assertThat(results).hasSize(4); // decode, fused work, the job at p 2, the cold process
        for (JsonNode r : results) {
            assertThat(r.get("regime").asText()).isEqualTo("rm3/small");
            assertThat(r.get("outputVerified").asBoolean()).isTrue();
        }
        try (var files = Files.list(tmp.resolve("data"))) {
            assertThat(
                            files.filter(
                                            f ->
                                                    f.getFileName()
                                                            .toString()
                                                            .startsWith("rm3-seed1-scale0.0005"))
                                    .count())
                    .isEqualTo(2);
        }
        Path header = tmp.resolve("data").resolve("rm3-seed1-scale0.0005-rows400.tsv");
        assertThat(Files.readAllLines(header).get(0).split("\t", -1)).hasSize(1 + 504 + 42);
        try (var lists = Files.list(tmp.resolve("data").resolve("cold-output").resolve("lists"))) {
            assertThat(lists.count()).isEqualTo(84);
        }
    }

    @Test
    void aPresetIsRefusedWithTheBuiltInSpecsMeasurementsAndAnUnknownOneIsNamed() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream savedErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(PiperCli.execute("bench", "--preset", "rm3", "--parquet")).isEqualTo(2);
            assertThat(PiperCli.execute("bench", "--preset", "rm9")).isEqualTo(2);
        } finally {
            System.setErr(savedErr);
        }
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains(
                        "--parquet measures the built-in spec; it cannot be combined with --preset")
                .contains(
                        "--preset: unknown preset \"rm9\" (known: "
                                + dev.piper.pipeline.spec.Presets.ALL.stream()
                                        .map(dev.piper.pipeline.spec.Presets.Preset::name)
                                        .collect(java.util.stream.Collectors.joining(", "))
                                + ")");
        assertThat(out.size()).isZero();
    }

    /** The yardstick's source, in the shared directory beside the checkout (as CI has it). */
    private static final Path YARDSTICK =
            Path.of("..", "..", "shared", "yardstick", "criteo_native.c").toAbsolutePath();

    /** A yardstick that is not there, or without --cold: said, not measured. */
    @Test
    void aMissingYardstickIsANoteAndOneWithoutColdIsRefused() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code =
                bench(
                        out,
                        "--rows",
                        "400",
                        "--regimes",
                        "small",
                        "--parallelism",
                        "2",
                        "--repeat",
                        "1",
                        "--cold",
                        "--yardstick",
                        tmp.resolve("none.c").toString(),
                        "--data-dir",
                        tmp.resolve("data").toString(),
                        "--json",
                        tmp.resolve("none.json").toString());
        assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("yardstick: no ratio: no yardstick source at " + tmp.resolve("none.c"));
        assertThat(
                        bench(
                                new ByteArrayOutputStream(),
                                "--yardstick",
                                YARDSTICK.toString(),
                                "--rows",
                                "400"))
                .isEqualTo(2);
    }

    /**
     * {@code --cold}: each input preprocessed by a new process started as this one was; its rate is
     * N over the whole process's wall time, and its rows must hash as the single-thread loop's;
     * with the yardstick, the native C program runs after each cold process on the same input, its
     * rows the same, and the ratio of their wall times is printed first.
     */
    @Test
    void coldRunsAWholeProcessPerInputAndVerifiesItsOutput() throws Exception {
        Path json = tmp.resolve("cold.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code =
                bench(
                        out,
                        "--rows",
                        "3000",
                        "--regimes",
                        "small",
                        "--parallelism",
                        "2",
                        "--repeat",
                        "1",
                        "--cold",
                        "--yardstick",
                        YARDSTICK.toString(),
                        "--data-dir",
                        tmp.resolve("data").toString(),
                        "--json",
                        json.toString());
        assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("cold process (rows / wall time)")
                .contains("is N / the wall time of a whole process");
        // the yardstick: compiled with the machine's cc, its rows the same, the ratio first
        JsonNode ratio = new ObjectMapper().readTree(json.toFile()).get("yardstick").get(0);
        assertThat(ratio.get("regime").asText()).isEqualTo("small");
        assertThat(ratio.get("parallelism").asInt()).isEqualTo(2);
        assertThat(ratio.get("piper_seconds")).hasSize(1);
        double r =
                ratio.get("native_seconds").get(0).asDouble()
                        / ratio.get("piper_seconds").get(0).asDouble();
        assertThat(ratio.get("median_native_over_piper").asDouble()).isCloseTo(r, within(1e-9));
        assertThat(out.toString(StandardCharsets.UTF_8))
                .startsWith(String.format("yardstick small: median ratio native/piper %.3f", r));
        JsonNode results = new ObjectMapper().readTree(json.toFile()).get("results");
        JsonNode cold = results.get(results.size() - 1);
        assertThat(cold.get("stage").asText()).isEqualTo("cold process (rows / wall time)");
        assertThat(cold.get("parallelism").asInt()).isEqualTo(2);
        assertThat(cold.get("outputVerified").asBoolean()).isTrue();
        double seconds = cold.get("secondsFull").asDouble();
        assertThat(cold.get("rowsPerSecond").asDouble()).isCloseTo(3000 / seconds, within(1e-6));
        // the process's own summary, in the log the bench keeps of its last run
        assertThat(Files.readString(tmp.resolve("data").resolve("cold-run.log")))
                .contains("1,500 rows written");
    }
}
