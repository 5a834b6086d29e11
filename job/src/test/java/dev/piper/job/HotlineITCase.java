package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.output.HotlineReplay;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.spec.SpecParser;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hotline's split in the batch job on a MiniCluster (2 task managers x 2 slots): every row's flag
 * is what the window's hot set says, no hot set exceeds the budget, the windows cover every row,
 * and the output is the same at every parallelism, block size and state backend.
 */
class HotlineITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    private static final int ROWS = 200_000;
    private static final int WINDOW = 30_000;
    private static final int ENTRIES = 20_000;

    @TempDir static Path shared;
    @TempDir Path tmp;

    private static Path input;

    @BeforeAll
    static void generate() throws IOException {
        input = shared.resolve("generated.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            // ids at a hundredth of Criteo's cardinality: a skew a 20,000-entry budget can serve
            new CriteoGenerator(20261124, 0.01, 0.01).write(out, ROWS);
        }
    }

    private static Configuration hotline() {
        Configuration conf = new Configuration();
        conf.set(HotlineOptions.BUDGET, (long) ENTRIES * 16 * Float.BYTES);
        conf.set(HotlineOptions.WINDOW, (long) WINDOW);
        conf.set(HotlineOptions.TRACKER_ENTRIES, 1 << 16);
        return conf;
    }

    private Path preprocess(int parallelism, Configuration conf, StateBackend backend)
            throws Exception {
        Path out = Files.createTempDirectory(tmp, "out-");
        Preprocess.prepareOutput(out, false);
        Preprocess.run(input, out, parallelism, backend, conf, TestClusters.QUIET);
        return out;
    }

    @Test
    void theSplitIsTheHotSetsAndTheSameAtEveryParallelismBlockSizeAndBackend() throws Exception {
        Path p1 = preprocess(1, hotline(), StateBackend.hashmap);
        Map<String, String> files = SameOutput.sha256OfEveryFile(p1);
        assertThat(files).containsKeys(OutputLayout.HOTLINE_POPULAR, OutputLayout.HOTLINE_HOT_SETS);
        Configuration rocks = hotline();
        rocks.setString("state.backend.rocksdb.localdir", tmp.resolve("rocks").toString());
        assertThat(SameOutput.sha256OfEveryFile(preprocess(2, rocks, StateBackend.rocksdb)))
                .isEqualTo(files);
        Configuration small = hotline();
        small.set(PiperOptions.BLOCK_BYTES, 65_537); // ~250 lines, ranges ending mid-line
        assertThat(SameOutput.sha256OfEveryFile(preprocess(4, small, StateBackend.hashmap)))
                .isEqualTo(files);

        // every row's flag, from rows.bin and hot-sets.jsonl alone
        JsonNode meta = new ObjectMapper().readTree(p1.resolve(OutputLayout.METADATA).toFile());
        long rows = meta.get("rows_written").asLong();
        byte[] flags = Files.readAllBytes(p1.resolve(OutputLayout.HOTLINE_POPULAR));
        assertThat(flags).hasSize((int) rows);
        List<JsonNode> windows = new ArrayList<>();
        for (String line : Files.readAllLines(p1.resolve(OutputLayout.HOTLINE_HOT_SETS))) {
            windows.add(new ObjectMapper().readTree(line));
        }
        long covered = 0;
        for (int w = 0; w < windows.size(); w++) {
            JsonNode win = windows.get(w);
            assertThat(win.get("window").asInt()).isEqualTo(w);
            assertThat(win.get("first_row").asLong()).isEqualTo(covered);
            assertThat(win.get("first_row").asLong()).isEqualTo((long) w * WINDOW);
            assertThat(win.get("entries").asInt()).isLessThanOrEqualTo(ENTRIES);
            covered += win.get("rows").asLong();
        }
        assertThat(covered).isEqualTo(rows);
        ByteBuffer r = ByteBuffer.wrap(Files.readAllBytes(p1.resolve(OutputLayout.ROWS)));
        r.order(ByteOrder.LITTLE_ENDIAN);
        long popular = 0;
        for (int w = 0; w < windows.size(); w++) {
            int[][] hot = new int[26][];
            for (int c = 0; c < 26; c++) {
                hot[c] = intArray(windows.get(w).get("hot").get("C" + (c + 1)));
            }
            long first = windows.get(w).get("first_row").asLong();
            long end = first + windows.get(w).get("rows").asLong();
            for (long row = first; row < end; row++) {
                boolean all = true;
                for (int c = 0; c < 26 && all; c++) {
                    int index = r.getInt((int) (row * 40 + 14 + c) * Integer.BYTES);
                    all = Arrays.binarySearch(hot[c], index) >= 0;
                }
                assertThat(flags[(int) row]).as("row %d", row).isEqualTo((byte) (all ? 1 : 0));
                popular += flags[(int) row];
            }
        }
        JsonNode h = meta.get("hotline");
        assertThat(h.get("popular_rows").asLong()).isEqualTo(popular);
        assertThat(h.get("windows").asInt()).isEqualTo(windows.size()).isEqualTo(7);
        assertThat(h.get("budget_entries").asInt()).isEqualTo(ENTRIES);
        assertThat(h.get("tracker_capture").asDouble()).isBetween(0.0, 1.0);
        // window 0 learns: none of its rows is popular; later ones are (4.3% of all rows on this
        // seed: a row is popular only when all 26 of its indices are hot)
        for (int row = 0; row < WINDOW; row++) {
            assertThat(flags[row]).isZero();
        }
        assertThat(popular).isGreaterThan(rows / 50);
    }

    /** A spec's hotline section gives the split its options give. */
    @Test
    void aSpecsHotlineSectionSplitsAsTheOptionsDo() throws Exception {
        String builtin;
        try (var in = getClass().getResourceAsStream(SpecParser.BUILTIN_RESOURCE)) {
            builtin = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        String spec =
                builtin.substring(0, builtin.lastIndexOf('}'))
                        + ", \"hotline\": {\"budget\": "
                        + (long) ENTRIES * 16 * Float.BYTES
                        + ", \"window\": "
                        + WINDOW
                        + ", \"tracker_entries\": 65536}}";
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        Path fromSpec = preprocess(2, conf, StateBackend.hashmap);
        Path fromOptions = preprocess(2, hotline(), StateBackend.hashmap);
        for (String f : List.of(OutputLayout.HOTLINE_POPULAR, OutputLayout.HOTLINE_HOT_SETS)) {
            assertThat(Files.mismatch(fromSpec.resolve(f), fromOptions.resolve(f)))
                    .as(f)
                    .isEqualTo(-1);
        }
    }

    /**
     * Windows in event time: JSON click events with their times, windows of 2 minutes. Each window
     * starts at a multiple of 2 minutes, at the first row whose time reaches it (the generator's
     * times rise); the output is the same at parallelism 1 and 2 with small blocks, and a replay of
     * the output's own settings over its rows and {@code event_times.bin} gives its files.
     */
    @Test
    void windowsInEventTimeStartWhereTheRowsTimeReachesThem() throws Exception {
        Path events = ClickEventFiles.json(tmp.resolve("clicks.jsonl"), 9, 60_000);
        String preset = ClickEventFiles.preset();
        long windowMs = 120_000;
        String spec =
                preset.substring(0, preset.lastIndexOf('}'))
                        + ", \"hotline\": {\"budget\": 16384, \"window\": \"2m\", \"sample\": 0.2}}";
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        Path p1 = Files.createTempDirectory(tmp, "timed-");
        Preprocess.prepareOutput(p1, false);
        Preprocess.run(events, p1, 1, StateBackend.hashmap, conf, TestClusters.QUIET);
        Configuration small = conf.clone();
        small.set(PiperOptions.BLOCK_BYTES, 65_537);
        Path p2 = Files.createTempDirectory(tmp, "timed-");
        Preprocess.prepareOutput(p2, false);
        Preprocess.run(events, p2, 2, StateBackend.hashmap, small, TestClusters.QUIET);
        Map<String, String> files = SameOutput.sha256OfEveryFile(p1);
        assertThat(SameOutput.sha256OfEveryFile(p2)).isEqualTo(files);

        ByteBuffer t = ByteBuffer.wrap(Files.readAllBytes(p1.resolve(OutputLayout.EVENT_TIMES)));
        long[] times = new long[t.capacity() / Long.BYTES];
        t.order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(times);
        List<JsonNode> windows = new ArrayList<>();
        for (String line : Files.readAllLines(p1.resolve(OutputLayout.HOTLINE_HOT_SETS))) {
            windows.add(new ObjectMapper().readTree(line));
        }
        // 60,000 events 10 ms apart on average: about 10 minutes, 5 or 6 windows
        assertThat(windows).hasSizeBetween(5, 7);
        long covered = 0;
        for (int w = 0; w < windows.size(); w++) {
            JsonNode win = windows.get(w);
            long first = win.get("first_row").asLong();
            long start = win.get("start_ms").asLong();
            assertThat(first).isEqualTo(covered);
            assertThat(start % windowMs).isZero();
            assertThat(times[(int) first]).isBetween(start, start + windowMs - 1);
            if (first > 0) {
                assertThat(times[(int) first - 1]).isLessThan(start);
            }
            covered += win.get("rows").asLong();
        }
        assertThat(covered).isEqualTo(times.length);
        JsonNode h = new ObjectMapper().readTree(p1.resolve(OutputLayout.METADATA).toFile());
        assertThat(h.get("hotline").get("window_ms").asLong()).isEqualTo(windowMs);

        ByteArrayOutputStream flags = new ByteArrayOutputStream();
        new HotlineReplay(p1)
                .online(
                        SpecParser.parse(
                                        spec.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                        "spec")
                                .hotline(),
                        split -> flags.writeBytes(split.popular()));
        assertThat(flags.toByteArray())
                .isEqualTo(Files.readAllBytes(p1.resolve(OutputLayout.HOTLINE_POPULAR)))
                .contains((byte) 1);
    }

    private static int[] intArray(JsonNode a) {
        int[] v = new int[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asInt();
        }
        return v;
    }
}
