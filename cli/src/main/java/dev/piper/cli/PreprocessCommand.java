package dev.piper.cli;

import dev.piper.cli.cluster.OnCluster;
import dev.piper.connectors.output.DirectoryLock;
import dev.piper.connectors.output.RowsFormat;
import dev.piper.job.JobNames;
import dev.piper.job.PiperOptions;
import dev.piper.job.Preprocess;
import dev.piper.pipeline.spec.SpecCompiler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code piper preprocess}: the batch contract of docs/SEMANTICS.md on an embedded cluster. */
@Command(
        name = "preprocess",
        mixinStandardHelpOptions = true,
        description = {
            "Preprocess a Criteo text or Parquet file into a DLRM output directory:",
            "rows.bin (or rows.parquet), vocab/C1.tsv..C26.tsv, dead-letters.jsonl,"
                    + " metadata.json.",
            "Runs on an embedded Flink MiniCluster, or on a Flink cluster through the job jar"
                    + " (piper submit -- preprocess ...)."
        })
final class PreprocessCommand implements Callable<Integer> {

    /** The job's name on the cluster. */
    static final String NAME = "preprocess";

    @Spec CommandSpec spec;

    /** {@link PiperCli} on the command line, {@link ClusterJob} in the job jar on a cluster. */
    @ParentCommand Object parent;

    @Mixin PipelineOptions pipeline;

    @Mixin OutputDirOptions out;

    @Mixin ClusterOptions cluster;

    @Mixin ReportCliOptions reportOptions;

    @Mixin HotlineCliOptions hotline;

    @Option(
            names = "--report",
            description =
                    "Measure each column's work and write the hardware cost report into the"
                            + " output directory: report.json (the whole run), reports.jsonl"
                            + " (every interval, then the run) and report.html"
                            + " (docs/HARDWARE_MODEL.md).")
    boolean report;

    @Option(
            names = "--input",
            required = true,
            paramLabel = "PATH",
            description =
                    "Criteo text file: label, I1..I13, C1..C26, tab-separated; a .gz file is"
                            + " decompressed on the fly. Or a Parquet file of those columns"
                            + " (piper convert writes one; see --input-format).")
    Path input;

    @Option(
            names = "--input-format",
            paramLabel = "F",
            description =
                    "tsv or parquet (default: parquet for a name ending in .parquet, tsv"
                            + " otherwise). Parquet columns are found by field name, or as the"
                            + " spec's input.parquet_columns names them.")
    String inputFormat;

    @Option(
            names = "--output-format",
            paramLabel = "F",
            defaultValue = "dlrm-rows",
            description =
                    "How the rows are written: dlrm-rows (rows.bin: 40 little-endian int32 per"
                            + " row, DLRM's layout) or parquet (rows.parquet: a column per field;"
                            + " float32 columns as FLOAT) (default: ${DEFAULT-VALUE}).")
    String outputFormat;

    @Option(
            names = "--block-rows",
            paramLabel = "N",
            defaultValue = "4096",
            description =
                    "Rows per block of a Parquet input; does not change the output (default:"
                            + " ${DEFAULT-VALUE}).")
    int blockRows;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "2",
            description =
                    "Parallelism of decoding, vocabularies and concatenation (default:"
                            + " ${DEFAULT-VALUE}; on a cluster: the submission's).")
    int parallelism;

    @Option(
            names = "--block-bytes",
            paramLabel = "B",
            defaultValue = "1048576",
            description =
                    "Input bytes per block (about 4,000 Criteo lines at the default): at least"
                            + " 64 KiB, at most 100,000 blocks of the file; does not change the"
                            + " output (default: ${DEFAULT-VALUE}).")
    int blockBytes;

    @Option(
            names = "--shard-blocks",
            paramLabel = "N",
            defaultValue = "0",
            description =
                    "0: the rows are one rows.bin, written by one task (default). N > 0: a"
                            + " sharded output for clusters: the rows of every N consecutive"
                            + " blocks are a file of their own (rows/part-000000.bin, ...),"
                            + " written in parallel, listed in row order by rows/manifest.json;"
                            + " concatenated in that order they are rows.bin. dlrm-rows only,"
                            + " without Hotline's split.")
    int shardBlocks;

    @Override
    public Integer call() throws Exception {
        CliChecks.inputFile(spec.commandLine(), input);
        CliChecks.parallelism(spec.commandLine(), parallelism);
        if (!input.toString().endsWith(".gz")) {
            PiperOptions.blockBytesProblem(Files.size(input), blockBytes)
                    .ifPresent(
                            why -> {
                                throw new ParameterException(
                                        spec.commandLine(), "--block-bytes: " + why);
                            });
        }
        if (blockRows < 1 || blockRows > PiperOptions.MAX_BLOCK_ROWS) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--block-rows: must be between 1 and "
                            + PiperOptions.MAX_BLOCK_ROWS
                            + ", not "
                            + blockRows);
        }
        try {
            RowsFormat.of(outputFormat);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--output-format: " + e.getMessage());
        }
        Configuration conf = Configuration.fromMap(cluster.flinkConf);
        conf.set(PiperOptions.BLOCK_BYTES, blockBytes);
        if (shardBlocks < 0) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--shard-blocks: must be 0 (one rows.bin) or positive, not " + shardBlocks);
        }
        conf.set(PiperOptions.SHARD_BLOCKS, shardBlocks);
        conf.set(PiperOptions.BLOCK_ROWS, blockRows);
        conf.set(PiperOptions.OUTPUT_FORMAT, RowsFormat.of(outputFormat).id());
        if (inputFormat != null) {
            conf.set(PiperOptions.INPUT_FORMAT, inputFormat);
        }
        boolean parquet;
        try {
            parquet = PiperOptions.parquetInput(conf, input.toString());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--input-format: unknown format \"" + inputFormat + "\" (known: tsv, parquet)");
        }
        pipeline.apply(spec.commandLine(), conf);
        hotline.apply(spec.commandLine(), conf);
        if (report) {
            Optional<String> refusal =
                    Preprocess.reportRefusal(
                            SpecCompiler.program(PiperOptions.spec(conf)), parquet);
            if (refusal.isPresent()) {
                throw new ParameterException(spec.commandLine(), "--report: " + refusal.get());
            }
            reportOptions.apply(spec.commandLine(), conf);
        }
        if (parquet) {
            CliChecks.parquetInput(spec.commandLine(), input, PiperOptions.spec(conf).input());
        }
        if (parent instanceof ClusterJob) {
            Path output = out.prepare(spec.commandLine(), input);
            Configuration job = cluster.jobConfiguration(spec, parallelism);
            job.addAll(conf);
            JobID id =
                    OnCluster.submit(
                            Preprocess.job(input, output, job)::build,
                            job,
                            JobNames.preprocess(job, input));
            spec.commandLine()
                    .getOut()
                    .printf(
                            "preprocess: job %s submitted: %s -> %s%n",
                            id, input.toAbsolutePath(), output.toAbsolutePath());
            return 0;
        }
        // The run holds its output directory from its check to its publication (OutputCommit); on
        // a cluster, the job's writer takes the lock where it runs.
        try (DirectoryLock lock = Preprocess.lockOutput(out.dir)) {
            return runHere(input, out.prepare(spec.commandLine(), input), conf);
        }
    }

    private int runHere(Path input, Path output, Configuration conf) throws Exception {
        CliChecks.resources(
                spec.commandLine(),
                "--spec",
                SpecCompiler.program(PiperOptions.spec(conf)),
                parallelism);
        Preprocess.Summary s =
                Preprocess.run(input, output, parallelism, cluster.stateBackend, conf, System.err);
        spec.commandLine()
                .getOut()
                .printf(
                        "preprocess: %,d lines read, %,d rows written, %,d dead letters in %.1f s"
                                + " (job %.1f s, %,.0f lines/s) -> %s%n",
                        s.linesRead(),
                        s.rowsWritten(),
                        s.deadLetters(),
                        s.seconds(),
                        s.jobSeconds(),
                        s.rowsPerSecond(),
                        output);
        if (report) {
            spec.commandLine().getOut().println(ReportTable.summary(output, s.taskCpuSeconds()));
        }
        return 0;
    }
}
