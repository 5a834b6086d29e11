package dev.piper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.job.HotlineOptions;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobOption;
import dev.piper.job.launch.HotlineArgs;
import dev.piper.output.HotlineFiles;
import dev.piper.output.HotlineReplay;
import dev.piper.output.OutputLayout;
import dev.piper.output.report.HotlineChart;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.hotline.Split;
import dev.piper.pipeline.spec.Sizes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code piper hotline}: Hotline's split over a finished output, as the paper characterizes it: the
 * popular share of rows against the budget, online (the job's tracker, replayed) and for the static
 * oracle; per window, how the online share follows drifting popularity. With {@code --verify},
 * checks that an output's {@code hotline/} files are what its settings give.
 */
@Command(
        name = "hotline",
        mixinStandardHelpOptions = true,
        description = {
            "Characterize Hotline's popular / non-popular split on a preprocessed output"
                    + " (rows.bin, lists/): for each budget in --budgets, the share of popular"
                    + " rows online (the job's tracker replayed over the rows, in order) and for"
                    + " the static oracle (one global top set from exact counts over all rows),"
                    + " per window too. Writes PREFIX.json and PREFIX.svg (--out). See"
                    + " docs/HOTLINE.md.",
            "With --verify: replays the output's own settings (metadata.json hotline) and checks"
                    + " that hotline/popular.bin and hotline/hot-sets.jsonl are what they give."
        })
final class HotlineCommand implements Callable<Integer>, JobOptionsCli.Taking {

    @Spec CommandSpec spec;

    @Override
    public List<JobOption> jobOptions() {
        return HotlineArgs.OPTIONS;
    }

    @Option(
            names = "--output-dir",
            required = true,
            paramLabel = "DIR",
            description = "A preprocess or consume output directory (rows.bin).")
    Path dir;

    @Option(
            names = "--budgets",
            paramLabel = "LIST",
            defaultValue = "64k,256k,1m,4m,16m,64m",
            split = ",",
            description =
                    "Hot set budgets to study, comma-separated, bytes or binary units (default:"
                            + " ${DEFAULT-VALUE}).")
    List<String> budgets;

    @Option(
            names = "--out",
            paramLabel = "PREFIX",
            defaultValue = "hotline-study",
            description =
                    "Where the study goes: PREFIX.json and PREFIX.svg (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(
            names = "--verify",
            description = "Check the output's hotline/ files against a replay of its settings.")
    boolean verify;

    @Override
    public Integer call() throws Exception {
        HotlineReplay replay;
        try {
            replay = new HotlineReplay(dir);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--output-dir: " + e.getMessage());
        }
        if (verify) {
            return verify(replay);
        }
        long[] bytes = budgetBytes();
        List<HotlineSettings> settings = settings(bytes);
        PrintWriter err = spec.commandLine().getErr();
        int[] entries = settings.stream().mapToInt(HotlineSettings::entries).toArray();
        long windowRows = settings.get(0).windowRows();
        long start = System.nanoTime();
        HotlineReplay.Oracle oracle = replay.oracle(entries, windowRows);
        err.printf(
                Locale.ROOT,
                "hotline: oracle over %,d rows (%,d distinct entries) in %.1f s%n",
                replay.rows(),
                oracle.distinct(),
                (System.nanoTime() - start) / 1e9);
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = json.createObjectNode();
        root.put("output_dir", dir.toAbsolutePath().toString());
        root.put("rows", replay.rows());
        root.put("distinct_entries", oracle.distinct());
        root.put("window_rows", windowRows);
        ArrayNode results = root.putArray("budgets");
        PrintWriter o = spec.commandLine().getOut();
        o.printf(
                Locale.ROOT,
                "%12s %10s %9s %12s %9s %8s %9s%n",
                "budget",
                "entries",
                "online",
                "online w>=1",
                "oracle",
                "ratio",
                "capture");
        double[] online = new double[bytes.length];
        double[] lastWindows = null;
        for (int i = 0; i < bytes.length; i++) {
            long t = System.nanoTime();
            Study s = study(replay, settings.get(i));
            online[i] = replay.rows() == 0 ? 0 : (double) s.popular / replay.rows();
            lastWindows = report(s, i, bytes[i], entries[i], replay, oracle, results.addObject());
            err.printf(
                    Locale.ROOT,
                    "hotline: budget %s replayed in %.1f s%n",
                    HotlineChart.bytes(bytes[i]),
                    (System.nanoTime() - t) / 1e9);
        }
        json.writeValue(Path.of(out + ".json").toFile(), root);
        chart(bytes, online, lastWindows, replay, oracle);
        err.printf("hotline: wrote %s.json and %s.svg%n", out, out);
        return 0;
    }

    /** The budgets of {@code --budgets}, in bytes. */
    private long[] budgetBytes() {
        long[] bytes = new long[budgets.size()];
        for (int i = 0; i < bytes.length; i++) {
            try {
                bytes[i] = Sizes.bytes(budgets.get(i));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--budgets: \"" + budgets.get(i) + "\" is not a size in bytes (e.g. 4m)");
            }
        }
        return bytes;
    }

    /** The split's settings for each budget: the --hotline-* options but for the budget. */
    private List<HotlineSettings> settings(long[] bytes) {
        JobArgs args = JobOptionsCli.args(spec);
        if (HotlineArgs.enabled(args)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--hotline-budget: the study takes its budgets from --budgets");
        }
        List<HotlineSettings> settings = new ArrayList<>();
        for (long b : bytes) {
            Configuration conf = new Configuration();
            HotlineArgs.apply(args, b, conf);
            settings.add(HotlineOptions.settings(conf));
        }
        return settings;
    }

    /**
     * Prints budget {@code i}'s line of the table and fills its JSON object {@code r}; returns its
     * popular share per window.
     */
    private double[] report(
            Study s,
            int i,
            long bytes,
            int entries,
            HotlineReplay replay,
            HotlineReplay.Oracle oracle,
            ObjectNode r) {
        double after = s.rowsAfterFirst == 0 ? 0 : (double) s.popularAfterFirst / s.rowsAfterFirst;
        double all = replay.rows() == 0 ? 0 : (double) s.popular / replay.rows();
        double ratio = oracle.fraction(i) == 0 ? Double.NaN : all / oracle.fraction(i);
        PrintWriter o = spec.commandLine().getOut();
        o.printf(
                Locale.ROOT,
                "%12s %,10d %8.2f%% %11.2f%% %8.2f%% %8.3f %9s%n",
                HotlineChart.bytes(bytes),
                entries,
                100 * all,
                100 * after,
                100 * oracle.fraction(i),
                ratio,
                s.capture.isEmpty() ? "-" : String.format(Locale.ROOT, "%.3f", mean(s.capture)));
        o.flush();
        r.put("budget_bytes", bytes);
        r.put("entries", entries);
        r.put("online_popular_fraction", all);
        r.put("online_popular_fraction_after_window_0", after);
        r.put("oracle_popular_fraction", oracle.fraction(i));
        r.put("online_over_oracle", ratio);
        r.put("tracker_capture_mean", s.capture.isEmpty() ? Double.NaN : mean(s.capture));
        ArrayNode windows = r.putArray("windows");
        double[] shares = new double[s.windowRows.size()];
        for (int w = 0; w < s.windowRows.size(); w++) {
            ObjectNode win = windows.addObject();
            win.put("window", w);
            win.put("rows", s.windowRows.get(w));
            win.put(
                    "online_popular_fraction",
                    (double) s.windowPopular.get(w) / s.windowRows.get(w));
            win.put("oracle_popular_fraction", oracle.fraction(i, w));
            shares[w] = (double) s.windowPopular.get(w) / s.windowRows.get(w);
        }
        return shares;
    }

    /**
     * The study's chart: the popular share of each budget, online and the static oracle's, and per
     * window for the largest budget ({@code lastWindows}, online).
     */
    private void chart(
            long[] bytes,
            double[] online,
            double[] lastWindows,
            HotlineReplay replay,
            HotlineReplay.Oracle oracle)
            throws IOException {
        int last = bytes.length - 1;
        double[] x = new double[bytes.length];
        double[] oracleShare = new double[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            x[i] = bytes[i];
            oracleShare[i] = oracle.fraction(i);
        }
        double[] windowsX = new double[lastWindows.length];
        double[] oracleWindows = new double[windowsX.length];
        for (int w = 0; w < windowsX.length; w++) {
            windowsX[w] = w;
            oracleWindows[w] = oracle.fraction(last, w);
        }
        HotlineChart.write(
                "Hotline on "
                        + dir.getFileName()
                        + String.format(Locale.ROOT, " (%,d rows)", replay.rows()),
                List.of(
                        new HotlineChart.Series("online (all rows)", "#1f77b4", false, x, online),
                        new HotlineChart.Series("static oracle", "#d62728", true, x, oracleShare)),
                List.of(
                        new HotlineChart.Series(
                                "online, " + HotlineChart.bytes(bytes[last]),
                                "#1f77b4",
                                false,
                                windowsX,
                                lastWindows),
                        new HotlineChart.Series(
                                "static oracle, " + HotlineChart.bytes(bytes[last]),
                                "#d62728",
                                true,
                                windowsX,
                                oracleWindows)),
                Path.of(out + ".svg"));
    }

    /** One budget's online split, summed. */
    private static final class Study {
        long popular;
        long popularAfterFirst;
        long rowsAfterFirst;
        final List<Long> windowRows = new ArrayList<>();
        final List<Long> windowPopular = new ArrayList<>();
        final List<Double> capture = new ArrayList<>();
    }

    private static Study study(HotlineReplay replay, HotlineSettings settings) throws IOException {
        Study s = new Study();
        replay.online(
                settings,
                split -> {
                    for (int r = 0; r < split.rows(); r++) {
                        long row = split.firstRow() + r;
                        int w = (int) (row / settings.windowRows());
                        while (s.windowRows.size() <= w) {
                            s.windowRows.add(0L);
                            s.windowPopular.add(0L);
                        }
                        s.windowRows.set(w, s.windowRows.get(w) + 1);
                        s.windowPopular.set(w, s.windowPopular.get(w) + split.popular()[r]);
                        s.popular += split.popular()[r];
                        if (w > 0) {
                            s.rowsAfterFirst++;
                            s.popularAfterFirst += split.popular()[r];
                        }
                    }
                    for (Split.Window w : split.windows()) {
                        if (!Double.isNaN(w.capture())) {
                            s.capture.add(w.capture());
                        }
                    }
                });
        return s;
    }

    private static double mean(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    /** Replays the output's own settings and compares its hotline/ files, byte for byte. */
    private int verify(HotlineReplay replay) throws IOException {
        JsonNode meta = new ObjectMapper().readTree(dir.resolve(OutputLayout.METADATA).toFile());
        JsonNode h = meta.get("hotline");
        if (h == null) {
            throw new ParameterException(
                    spec.commandLine(), "--output-dir: " + dir + " was written without a split");
        }
        HotlineSettings settings =
                new HotlineSettings(
                        h.get("budget_bytes").asLong(),
                        h.get("dim").asInt(),
                        h.get("window_rows").asLong(),
                        h.path("window_ms").asLong(0),
                        h.get("sample_rate").asDouble(),
                        h.get("sample_rows").asInt(),
                        HotlineSettings.Tracker.of(h.get("tracker").asText()).orElseThrow(),
                        h.get("tracker_entries").asInt(),
                        h.get("decay").asDouble());
        ByteArrayOutputStream flags = new ByteArrayOutputStream();
        StringBuilder lines = new StringBuilder();
        List<Split.Window> windows = new ArrayList<>();
        replay.online(
                settings,
                split -> {
                    flags.writeBytes(split.popular());
                    windows.addAll(split.windows());
                });
        for (int w = 0; w < windows.size(); w++) {
            long end = w + 1 < windows.size() ? windows.get(w + 1).firstRow() : replay.rows();
            lines.append(HotlineFiles.line(windows.get(w), end - windows.get(w).firstRow()))
                    .append('\n');
        }
        byte[] popular = Files.readAllBytes(dir.resolve(OutputLayout.HOTLINE_POPULAR));
        String hotSets = Files.readString(dir.resolve(OutputLayout.HOTLINE_HOT_SETS));
        long mismatch = Arrays.mismatch(popular, flags.toByteArray());
        PrintWriter o = spec.commandLine().getOut();
        if (mismatch >= 0 || !hotSets.equals(lines.toString())) {
            o.printf(
                    "hotline: %s differs from a replay of its settings: %s%n",
                    dir,
                    mismatch >= 0
                            ? "popular.bin first differs at row " + mismatch
                            : "hot-sets.jsonl differs");
            return 1;
        }
        o.printf(
                Locale.ROOT,
                "hotline: %s verified: %,d rows, %,d windows, %,d popular rows%n",
                dir,
                replay.rows(),
                windows.size(),
                countOnes(popular));
        return 0;
    }

    private static long countOnes(byte[] b) {
        long n = 0;
        for (byte v : b) {
            n += v;
        }
        return n;
    }
}
