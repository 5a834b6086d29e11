package dev.piper.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.connectors.text.TextFiles;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.PiperOptions;
import dev.piper.job.Preprocess;
import dev.piper.job.ReportOptions;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobOption;
import dev.piper.job.launch.ClusterArgs;
import dev.piper.job.launch.LaunchChecks;
import dev.piper.job.launch.PipelineArgs;
import dev.piper.job.launch.ReportArgs;
import dev.piper.output.OutputLayout;
import dev.piper.output.report.ReportFiles;
import dev.piper.output.report.ReportHtml;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code piper report}: preprocesses a file with the cost model on and prints, per column, what an
 * FPGA (PIPER) or a SmartSSD (PreSto) would give over the CPU work measured, with the device sizing
 * for a target throughput.
 */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        description = {
            "Preprocess a Criteo text file with every column's work measured, and print the"
                    + " hardware cost report: per column the CPU core-seconds, the FPGA (PIPER)"
                    + " and SmartSSD (PreSto) time and speedup, the vocabulary tier; the device"
                    + " times with their binding resource; and how many devices sustain"
                    + " --target-rows-per-second. See docs/HARDWARE_MODEL.md.",
            "The preprocessed output goes to a temporary directory that is removed; report.json,"
                    + " reports.jsonl and report.html are kept in --report-dir."
        })
final class ReportCommand implements Callable<Integer>, JobOptionsCli.Taking {

    @Spec CommandSpec spec;

    @Override
    public List<JobOption> jobOptions() {
        return Stream.of(PipelineArgs.OPTIONS, ClusterArgs.OPTIONS, ReportArgs.OPTIONS)
                .flatMap(List::stream)
                .toList();
    }

    /** Where the vocabularies live ({@code --state-backend}). */
    private StateBackend stateBackend;

    @Option(
            names = "--input",
            required = true,
            paramLabel = "PATH",
            description = "Criteo text file (.gz is decompressed on the fly).")
    Path input;

    @Option(
            names = "--report-dir",
            paramLabel = "DIR",
            defaultValue = "piper-report",
            description =
                    "Where report.json, reports.jsonl and report.html go (default:"
                            + " ${DEFAULT-VALUE}); files of an earlier report there are replaced.")
    Path reportDir;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "2",
            description = "Parallelism of the preprocess (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(
            names = "--repeat",
            paramLabel = "N",
            defaultValue = "3",
            description =
                    "Measure N runs and report the one with the median task CPU time whole, with"
                            + " every run's CPU time and each column's lowest and highest speedup"
                            + " beside it (default: ${DEFAULT-VALUE}).")
    int repeat;

    @Option(
            names = "--warmup-lines",
            paramLabel = "N",
            defaultValue = "1000000",
            description =
                    "First preprocess the input's first N lines once in this JVM and discard the"
                            + " result, so the measured run's figures are those of compiled code,"
                            + " not of the JIT's warm-up; 0: measure a cold run (default:"
                            + " ${DEFAULT-VALUE}).")
    long warmupLines;

    /**
     * Runs the job once over the input's first {@link #warmupLines} lines (the whole input if it is
     * shorter) and discards everything it wrote: the JIT compiles the job's code, which the
     * measured run, in the same JVM, then runs compiled. Returns the lines it ran.
     */
    private long warmUp(Path work, Configuration conf) throws Exception {
        Path prefix = work.resolve("warmup.tsv");
        long lines = copyLines(input, prefix, warmupLines);
        System.err.printf(
                Locale.ROOT,
                "report: warming up on the first %,d lines (the figures are discarded) ...%n",
                lines);
        Path output = work.resolve("warmup");
        Preprocess.prepareOutput(output, false);
        Preprocess.Summary s =
                Preprocess.run(
                        prefix,
                        output,
                        parallelism,
                        stateBackend,
                        conf,
                        new PrintStream(OutputStream.nullOutputStream()));
        System.err.printf(
                Locale.ROOT, "report: warm-up done in %.1f s; measuring%n", s.jobSeconds());
        Preprocess.deleteRecursively(output);
        Files.delete(prefix);
        return lines;
    }

    /**
     * Copies the first {@code max} lines of {@code from} (decompressed) to {@code to}; returns how
     * many it copied, a last line without a line break counted.
     */
    static long copyLines(Path from, Path to, long max) throws IOException {
        long lines = 0;
        boolean open = false; // the last byte copied ends no line
        try (InputStream in = TextFiles.open(from.toString(), 0);
                OutputStream out = Files.newOutputStream(to)) {
            byte[] buf = new byte[1 << 20];
            int n;
            while (lines < max && (n = in.read(buf)) > 0) {
                int end = n;
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n' && ++lines == max) {
                        end = i + 1;
                        break;
                    }
                }
                out.write(buf, 0, end);
                open = buf[end - 1] != '\n';
            }
        }
        return open ? lines + 1 : lines;
    }

    /** One measured run: its summary, its whole-run report and its reports.jsonl lines. */
    record Run(Preprocess.Summary summary, ObjectNode report, List<String> intervals) {}

    /** The run with the median task CPU time (the lower middle one of an even number). */
    static Run median(List<Run> runs) {
        List<Run> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(r -> r.summary().taskCpuSeconds()));
        return sorted.get((sorted.size() - 1) / 2);
    }

    /**
     * Adds to {@code report} (run {@code chosen} of {@code runs}) what the repeated runs measured:
     * each run's task CPU, and per column the lowest and highest speedup any run gave.
     */
    static void repeats(ObjectNode report, List<Run> runs, int chosen) {
        ObjectNode rep = report.putObject("repeats");
        rep.put("runs", runs.size());
        rep.put("chosen", chosen);
        rep.put("basis", "the run with the median task CPU time is reported whole");
        ArrayNode cpu = rep.putArray("task_cpu_seconds");
        runs.forEach(r -> cpu.add(r.summary().taskCpuSeconds()));
        ArrayNode columns = rep.putArray("columns");
        JsonNode own = report.get("columns");
        double widest = 0;
        String widestColumn = "";
        for (int i = 0; i < own.size(); i++) {
            ObjectNode c = columns.addObject();
            c.put("column", own.get(i).get("column").asText());
            for (String device : new String[] {"fpga", "smartssd"}) {
                double lo = Double.MAX_VALUE;
                double hi = 0;
                for (Run r : runs) {
                    double v = r.report().get("columns").get(i).get(device + "_speedup").asDouble();
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
                c.put(device + "_speedup_min", lo);
                c.put(device + "_speedup_max", hi);
                if (device.equals("fpga") && lo > 0 && hi / lo - 1 > widest) {
                    widest = hi / lo - 1;
                    widestColumn = c.get("column").asText();
                }
            }
        }
        ObjectNode w = rep.putObject("widest");
        w.put("column", widestColumn);
        w.put("fpga_speedup_spread", widest);
    }

    /**
     * Writes the report's three files into {@link #reportDir}, each beside its place and renamed
     * into it, report.json last: a reader never sees half a file, nor a report.json older than the
     * files beside it. The last line of reports.jsonl is the report as written.
     */
    private void write(ObjectNode report, List<String> intervals) throws IOException {
        Files.createDirectories(reportDir);
        ObjectMapper json = new ObjectMapper();
        List<String> lines = new ArrayList<>(intervals.subList(0, intervals.size() - 1));
        List<JsonNode> history = new ArrayList<>();
        for (String line : lines) {
            history.add(json.readTree(line));
        }
        lines.add(json.writeValueAsString(report));
        replace(OutputLayout.REPORT_INTERVALS, String.join("\n", lines) + "\n");
        replace(OutputLayout.REPORT_HTML, ReportHtml.render(report, history));
        replace(
                OutputLayout.REPORT,
                json.writerWithDefaultPrettyPrinter().writeValueAsString(report));
    }

    private void replace(String name, String text) throws IOException {
        ReportFiles.replace(reportDir, name, text);
    }

    @Override
    public Integer call() throws Exception {
        JobArgs args = JobOptionsCli.args(spec);
        LaunchChecks.inputFile(input);
        LaunchChecks.parallelism(parallelism);
        stateBackend = ClusterArgs.stateBackend(args);
        if (repeat < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--repeat: must be at least 1, not " + repeat);
        }
        if (warmupLines < 0) {
            throw new ParameterException(
                    spec.commandLine(), "--warmup-lines: must not be negative, not " + warmupLines);
        }
        if (Files.exists(reportDir) && !Files.isDirectory(reportDir)) {
            throw new ParameterException(
                    spec.commandLine(), "--report-dir: " + reportDir + " is not a directory");
        }
        Configuration conf = ClusterArgs.flinkConf(args);
        conf.set(PiperOptions.BLOCK_BYTES, PiperOptions.BLOCK_BYTES.defaultValue());
        PipelineArgs.apply(args, conf);
        ReportArgs.apply(args, conf);
        conf.set(ReportOptions.WARMUP_LINES, warmupLines);
        Path work = Files.createTempDirectory("piper-report");
        try {
            if (warmupLines > 0) {
                // the report states the lines the warm-up actually ran (the input may be shorter)
                conf.set(ReportOptions.WARMUP_LINES, warmUp(work, conf));
            }
            List<Run> runs = new ArrayList<>();
            for (int i = 0; i < repeat; i++) {
                if (repeat > 1) {
                    System.err.printf(
                            Locale.ROOT, "report: measured run %d of %d%n", i + 1, repeat);
                }
                Path output = work.resolve("output-" + i);
                Preprocess.prepareOutput(output, false);
                Preprocess.Summary summary =
                        Preprocess.run(input, output, parallelism, stateBackend, conf, System.err);
                runs.add(
                        new Run(
                                summary,
                                (ObjectNode) ReportTable.read(output),
                                Files.readAllLines(
                                        output.resolve(OutputLayout.REPORT_INTERVALS),
                                        StandardCharsets.UTF_8)));
                Preprocess.deleteRecursively(output); // its rows: up to gigabytes, not needed
            }
            Run chosen = median(runs);
            Preprocess.Summary s = chosen.summary();
            ObjectNode report = chosen.report();
            if (runs.size() > 1) {
                repeats(report, runs, runs.indexOf(chosen));
            }
            write(report, chosen.intervals());
            PrintWriter out = spec.commandLine().getOut();
            out.printf(
                    "report: %,d lines, %,d rows, %,d dead letters; job %.1f s at parallelism %d;"
                            + " task CPU %.2f s%n%n",
                    s.linesRead(),
                    s.rowsWritten(),
                    s.deadLetters(),
                    s.jobSeconds(),
                    parallelism,
                    s.taskCpuSeconds());
            ReportTable.print(ReportTable.read(reportDir), out);
            out.printf(
                    "%nwritten: %s, %s, %s%n",
                    reportDir.resolve(OutputLayout.REPORT),
                    reportDir.resolve(OutputLayout.REPORT_INTERVALS),
                    reportDir.resolve(OutputLayout.REPORT_HTML));
            out.flush();
            return 0;
        } finally {
            Preprocess.deleteRecursively(work);
        }
    }
}
