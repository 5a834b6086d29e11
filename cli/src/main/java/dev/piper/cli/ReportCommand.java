package dev.piper.cli;

import dev.piper.connectors.report.ReportFiles;
import dev.piper.job.PiperOptions;
import dev.piper.job.Preprocess;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
final class ReportCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin PipelineOptions pipeline;

    @Mixin ClusterOptions cluster;

    @Mixin ReportCliOptions reportOptions;

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
            names = "--target-rows-per-second",
            paramLabel = "T",
            defaultValue = "0",
            description =
                    "Size the fleet for this throughput: devices = ceil(T / one device's rows/s).")
    double target;

    @Option(
            names = "--cpu-watts",
            paramLabel = "W",
            defaultValue = "0",
            description =
                    "Power of this machine's CPU package (all its cores); adds energy per million"
                            + " rows, the CPU's pro-rated to the core-seconds measured.")
    double cpuWatts;

    @Override
    public Integer call() throws Exception {
        CliChecks.inputFile(spec.commandLine(), input);
        CliChecks.parallelism(spec.commandLine(), parallelism);
        if (target < 0 || Double.isNaN(target)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--target-rows-per-second: must not be negative, not " + target);
        }
        if (cpuWatts < 0 || Double.isNaN(cpuWatts)) {
            throw new ParameterException(
                    spec.commandLine(), "--cpu-watts: must not be negative, not " + cpuWatts);
        }
        if (Files.exists(reportDir) && !Files.isDirectory(reportDir)) {
            throw new ParameterException(
                    spec.commandLine(), "--report-dir: " + reportDir + " is not a directory");
        }
        Configuration conf = Configuration.fromMap(cluster.flinkConf);
        conf.set(PiperOptions.BLOCK_BYTES, PiperOptions.BLOCK_BYTES.defaultValue());
        pipeline.apply(spec.commandLine(), conf);
        reportOptions.apply(spec.commandLine(), conf);
        Path work = Files.createTempDirectory("piper-report");
        try {
            Path output = work.resolve("output");
            Preprocess.prepareOutput(output, false);
            Preprocess.Summary s =
                    Preprocess.run(
                            input, output, parallelism, cluster.stateBackend, conf, System.err);
            Files.createDirectories(reportDir);
            // each file copied beside its place and renamed into it, report.json last: a reader
            // never sees half a file, nor a report.json older than the files beside it
            for (String name :
                    new String[] {ReportFiles.INTERVALS, ReportFiles.HTML, ReportFiles.REPORT}) {
                Path partial = reportDir.resolve("." + name + ".partial");
                Files.copy(output.resolve(name), partial, StandardCopyOption.REPLACE_EXISTING);
                Files.move(
                        partial,
                        reportDir.resolve(name),
                        StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
            }
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
            ReportTable.print(ReportTable.read(reportDir), target, cpuWatts, out);
            out.printf(
                    "%nwritten: %s, %s, %s%n",
                    reportDir.resolve(ReportFiles.REPORT),
                    reportDir.resolve(ReportFiles.INTERVALS),
                    reportDir.resolve(ReportFiles.HTML));
            out.flush();
            return 0;
        } finally {
            Preprocess.deleteRecursively(work);
        }
    }
}
