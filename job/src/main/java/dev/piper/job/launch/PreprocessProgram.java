package dev.piper.job.launch;

import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.JobNames;
import dev.piper.job.LabelJoinInput;
import dev.piper.job.PiperOptions;
import dev.piper.job.Preprocess;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobArgumentException;
import dev.piper.job.args.JobOption;
import dev.piper.output.RowsFormat;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;

/**
 * The {@code preprocess} job's program: its options, their checks and the job they configure, the
 * same for {@code piper preprocess} (which runs it on an embedded cluster) and for the job jar on a
 * Flink cluster ({@link JobMain}, which submits it there).
 */
public final class PreprocessProgram {

    /** The job's name among the job jar's programs. */
    public static final String NAME = "preprocess";

    static final String REPORT = "--report";
    static final String INPUT = "--input";
    static final String INPUT_FORMAT = "--input-format";
    static final String OUTPUT_FORMAT = "--output-format";
    static final String BLOCK_ROWS = "--block-rows";
    static final String BLOCK_BYTES = "--block-bytes";
    static final String SHARD_BLOCKS = "--shard-blocks";
    static final String ACTIONS = "--actions";

    private static final List<JobOption> OWN =
            List.of(
                    JobOption.flag(
                            REPORT,
                            "Measure each column's work and write the hardware cost report into"
                                    + " the output directory: report.json (the whole run),"
                                    + " reports.jsonl (every interval, then the run) and"
                                    + " report.html (docs/HARDWARE_MODEL.md)."),
                    JobOption.required(
                            INPUT,
                            "PATH",
                            "Criteo text file: label, I1..I13, C1..C26, tab-separated; a .gz"
                                    + " file is decompressed on the fly. Or a Parquet file of"
                                    + " those columns (piper convert writes one; see"
                                    + " --input-format), or of the events a spec of named fields"
                                    + " reads."),
                    JobOption.value(
                            ACTIONS,
                            "NAME=PATH,...",
                            "For a spec with a labels section: each action stream's file of JSON"
                                    + " lines (click=clicks.jsonl,conversion=conversions.jsonl);"
                                    + " --input then holds the impressions, which the run joins"
                                    + " with them in event time before preprocessing"
                                    + " (docs/SPECS.md, \"Labels that arrive later\")."),
                    JobOption.value(
                            INPUT_FORMAT,
                            "F",
                            "tsv or parquet (default: parquet for a name ending in .parquet, tsv"
                                    + " otherwise). Parquet columns are found by field name, or as"
                                    + " the spec's input.parquet_columns names them; a spec of"
                                    + " named fields (json, avro, protobuf, csv) finds them by its"
                                    + " input.fields paths."),
                    JobOption.value(
                            OUTPUT_FORMAT,
                            "F",
                            RowsFormat.DLRM_ROWS.id(),
                            "How the rows are written: "
                                    + RowsFormat.described()
                                    + " (default: ${DEFAULT-VALUE})."),
                    JobOption.value(
                            BLOCK_ROWS,
                            "N",
                            "4096",
                            "Rows per block of a Parquet input; does not change the output"
                                    + " (default: ${DEFAULT-VALUE})."),
                    JobOption.value(
                            ClusterArgs.PARALLELISM,
                            "N",
                            "2",
                            "Parallelism of decoding, vocabularies and concatenation (default:"
                                    + " ${DEFAULT-VALUE}; on a cluster: the submission's)."),
                    JobOption.value(
                            BLOCK_BYTES,
                            "B",
                            "1048576",
                            "Input bytes per block (about 4,000 Criteo lines at the default): at"
                                    + " least 64 KiB, at most 100,000 blocks of the file; does not"
                                    + " change the output (default: ${DEFAULT-VALUE})."),
                    JobOption.value(
                            SHARD_BLOCKS,
                            "N",
                            "0",
                            "0: the rows are one rows.bin, written by one task (default). N > 0:"
                                    + " a sharded output for clusters: the rows of every N"
                                    + " consecutive blocks are a file of their own"
                                    + " (rows/part-000000.bin, ...), written in parallel, listed in"
                                    + " row order by rows/manifest.json; concatenated in that"
                                    + " order they are rows.bin. dlrm-rows only, without Hotline's"
                                    + " split."));

    /** Every option of the job, its own and those of the groups it takes. */
    public static final List<JobOption> OPTIONS =
            Stream.of(
                            OWN,
                            PipelineArgs.OPTIONS,
                            OutputArgs.OPTIONS,
                            ClusterArgs.OPTIONS,
                            ReportArgs.OPTIONS,
                            HotlineArgs.OPTIONS)
                    .flatMap(List::stream)
                    .toList();

    /**
     * A checked run: what to read, with how many tasks, and the job's configuration.
     *
     * @param program the spec's compiled program, compiled once here
     */
    public record Run(
            Path input,
            int parallelism,
            StateBackend stateBackend,
            boolean report,
            Configuration conf,
            ColumnProgram program) {}

    private PreprocessProgram() {}

    /**
     * Checks the arguments (all but the output directory, which its writer prepares where it runs)
     * and builds the job's configuration; notes go to {@code err}.
     *
     * @throws JobArgumentException naming the first bad argument
     */
    public static Run check(JobArgs args, PrintStream err) throws IOException {
        // values that are wrong on their own first, as a parser that knew their types would
        int parallelism = LaunchChecks.parallelism(args.integer(ClusterArgs.PARALLELISM));
        int blockBytes = args.integer(BLOCK_BYTES);
        int blockRows = args.integer(BLOCK_ROWS);
        int shardBlocks = args.integer(SHARD_BLOCKS);
        Path input = args.path(INPUT);
        LaunchChecks.inputFile(input);
        if (!input.toString().endsWith(".gz")) {
            PiperOptions.blockBytesProblem(Files.size(input), blockBytes)
                    .ifPresent(
                            why -> {
                                throw JobArgumentException.of(BLOCK_BYTES, why);
                            });
        }
        if (blockRows < 1 || blockRows > PiperOptions.MAX_BLOCK_ROWS) {
            throw JobArgumentException.of(
                    BLOCK_ROWS,
                    "must be between 1 and " + PiperOptions.MAX_BLOCK_ROWS + ", not " + blockRows);
        }
        RowsFormat outputFormat;
        try {
            outputFormat = RowsFormat.of(args.string(OUTPUT_FORMAT));
        } catch (IllegalArgumentException e) {
            throw JobArgumentException.of(OUTPUT_FORMAT, e.getMessage());
        }
        if (shardBlocks < 0) {
            throw JobArgumentException.of(
                    SHARD_BLOCKS, "must be 0 (one rows.bin) or positive, not " + shardBlocks);
        }
        Configuration conf = ClusterArgs.flinkConf(args);
        conf.set(PiperOptions.BLOCK_BYTES, blockBytes);
        conf.set(PiperOptions.SHARD_BLOCKS, shardBlocks);
        conf.set(PiperOptions.BLOCK_ROWS, blockRows);
        conf.set(PiperOptions.OUTPUT_FORMAT, outputFormat.id());
        String inputFormat = args.string(INPUT_FORMAT);
        if (inputFormat != null) {
            conf.set(PiperOptions.INPUT_FORMAT, inputFormat);
        }
        boolean parquet;
        try {
            parquet = PiperOptions.parquetInput(conf, input.toString());
        } catch (IllegalArgumentException e) {
            throw JobArgumentException.of(
                    INPUT_FORMAT, "unknown format \"" + inputFormat + "\" (known: tsv, parquet)");
        }
        PipelineArgs.apply(args, conf);
        HotlineArgs.apply(args, conf);
        var spec = PiperOptions.spec(conf);
        ColumnProgram program = SpecCompiler.program(spec);
        labelActions(args, spec, parquet, conf);
        boolean report = args.flag(REPORT);
        if (report) {
            Preprocess.reportRefusal(program, parquet)
                    .ifPresent(
                            why -> {
                                throw JobArgumentException.of(REPORT, why);
                            });
            ReportArgs.apply(args, conf);
        }
        if (parquet) {
            LaunchChecks.parquetInput(input, spec, NAME, err);
        }
        return new Run(input, parallelism, ClusterArgs.stateBackend(args), report, conf, program);
    }

    /**
     * {@code --actions}: required with a spec's labels section, refused without one; each stream's
     * file must be there.
     */
    private static void labelActions(
            JobArgs args, PipelineSpec spec, boolean parquet, Configuration conf) {
        String actions = args.string(ACTIONS);
        if (spec.labels() == null) {
            if (actions != null) {
                throw JobArgumentException.of(
                        ACTIONS, "the spec has no labels section to join actions with");
            }
            return;
        }
        if (parquet) {
            throw JobArgumentException.of(
                    INPUT, "a spec with labels joins JSON lines of impressions, not Parquet");
        }
        if (actions == null) {
            throw JobArgumentException.of(
                    ACTIONS,
                    "missing: the spec's labels join the impressions with "
                            + String.join(", ", spec.labels().streamNames())
                            + " (give NAME=PATH for each)");
        }
        try {
            LabelJoinInput.actions(actions, spec.labels());
        } catch (IllegalArgumentException e) {
            throw JobArgumentException.of(ACTIONS, e.getMessage());
        }
        conf.set(PiperOptions.LABEL_ACTIONS, actions);
    }

    /**
     * Submits the run to the cluster this program runs on (the job jar's), after preparing the
     * output directory there; says so on {@code out} and returns the job's id without waiting.
     */
    public static JobID submit(JobArgs args, Run run, PrintStream out) throws Exception {
        Path output = OutputArgs.prepare(args, run.input());
        Configuration job = ClusterArgs.jobConfiguration(args);
        job.addAll(run.conf());
        JobID id =
                OnCluster.submit(
                        Preprocess.job(run.input(), output, job)::build,
                        job,
                        JobNames.preprocess(job, run.input()));
        out.printf(
                "preprocess: job %s submitted: %s -> %s%n",
                id, run.input().toAbsolutePath(), output.toAbsolutePath());
        return id;
    }
}
