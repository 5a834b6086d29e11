package dev.piper.benchmarks.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.benchmarks.bench.Bench.Result;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The bench's results as a table, and as the JSON file a later run charts them from. */
public final class BenchResults {

    private BenchResults() {}

    /** A scale as written: 0.01, not 1.0E-2. */
    static String plain(double scale) {
        return java.math.BigDecimal.valueOf(scale).stripTrailingZeros().toPlainString();
    }

    /** Prints the results as a table. */
    public static void printTable(List<Result> results, PrintWriter out) {
        out.printf(
                "%-7s %-7s %-40s %5s %12s %9s%n",
                "regime", "scale", "stage", "p", "rows/s", "MB/s");
        for (Result r : results) {
            out.printf(
                    "%-7s %-7s %-40s %5d %,12.0f %9.1f%n",
                    r.regime(),
                    plain(r.scale()),
                    r.stage(),
                    r.parallelism(),
                    r.rowsPerSecond(),
                    r.mbPerSecond());
        }
    }

    /** Reads the results of an earlier run from its JSON file. */
    public static List<Result> readJson(Path file) throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode root = json.readTree(file.toFile());
        List<Result> results = new ArrayList<>();
        for (JsonNode r : root.get("results")) {
            results.add(json.treeToValue(r, Result.class));
        }
        return results;
    }

    /** Writes the results and the yardstick's ratios ({@code yardstick}: one entry each). */
    public static void writeJson(
            List<Result> results,
            List<Bench.Ratio> ratios,
            Path file,
            long rows,
            long seed,
            int blockBytes)
            throws IOException {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = json.createObjectNode();
        ObjectNode machine = root.putObject("machine");
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
        machine.put(
                "java",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        machine.put(
                "os",
                System.getProperty("os.name")
                        + " "
                        + System.getProperty("os.version")
                        + " "
                        + System.getProperty("os.arch"));
        root.put(
                "method",
                "marginal: (N - N/2) / (t(N) - t(N/2)) over inputs of N and N/2 generated lines;"
                        + " single-thread loops: best of the repeats after one warm-up pass; job:"
                        + " best of the repeats of Flink's net job run time (cluster start-up"
                        + " excluded); '"
                        + Bench.COLD_STAGE
                        + "': not marginal but N / the wall time of a whole preprocess process"
                        + " (best of the repeats; JVM and cluster start, JIT warm-up included);"
                        + " every job run's rows.bin matches the single-thread loop's sha256");
        root.put("rows", rows);
        root.put("seed", seed);
        root.put("block_bytes", blockBytes);
        ArrayNode list = root.putArray("results");
        for (Result r : results) {
            list.addPOJO(r);
        }
        ArrayNode yardstick = root.putArray("yardstick");
        for (Bench.Ratio r : ratios) {
            ObjectNode n = yardstick.addObject();
            n.put("regime", r.regime());
            n.put("parallelism", r.parallelism());
            n.put("median_native_over_piper", r.median());
            ArrayNode p = n.putArray("piper_seconds");
            r.piperSeconds().forEach(p::add);
            ArrayNode c = n.putArray("native_seconds");
            r.nativeSeconds().forEach(c::add);
        }
        Files.write(file, json.writeValueAsBytes(root));
    }
}
