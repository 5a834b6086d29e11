package dev.piper.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.connectors.output.DlrmFileSink;
import dev.piper.connectors.output.ShardWriterOperator;
import dev.piper.connectors.parquet.source.ParquetFileSource;
import dev.piper.connectors.report.ReportFileSink;
import dev.piper.connectors.text.source.CriteoFileSource;
import dev.piper.core.chunk.AvroBlockChunker;
import dev.piper.core.cost.ReportSettings;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.operators.cost.CostModelOperator;
import dev.piper.operators.cost.CostSamples;
import dev.piper.output.DirectoryLock;
import dev.piper.output.DlrmOutputWriter;
import dev.piper.output.OutputCommit;
import dev.piper.output.OutputLayout;
import dev.piper.output.RowsFormat;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.input.CsvOptions;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;

/**
 * The batch preprocess: one Criteo text file to a DLRM output directory, on an embedded MiniCluster
 * ({@link #run}) or, as its graph ({@link #job}), on a Flink cluster. Shared by {@code piper
 * preprocess}, {@code piper demo} and the job jar.
 */
public final class Preprocess {

    /**
     * What a finished run wrote, read back from {@code metadata.json}; {@code seconds} is the wall
     * time including the embedded cluster's start, {@code jobSeconds} the job's own run time; with
     * {@code --report}, {@code taskCpuSeconds} is the CPU time of the measured tasks' threads
     * (decoding, vocabularies, concatenation and output) from their start to their end, otherwise
     * 0.
     */
    public record Summary(
            long linesRead,
            long rowsWritten,
            long deadLetters,
            Map<String, Long> deadLettersByReason,
            Map<String, Integer> vocabSizes,
            double seconds,
            double jobSeconds,
            double taskCpuSeconds) {

        /** Lines per second of the job's own run time. */
        public double rowsPerSecond() {
            return jobSeconds > 0 ? linesRead / jobSeconds : 0;
        }
    }

    private Preprocess() {}

    /**
     * Checks that {@code output} can take a run's output: absent, or an empty directory, or with
     * {@code overwrite} a previous run's output (which stays whole until the new run publishes,
     * {@link OutputCommit}); refuses a directory holding anything else.
     *
     * @throws IllegalArgumentException naming the problem, if the directory cannot be used
     */
    public static void prepareOutput(Path output, boolean overwrite) throws IOException {
        prepareOutput(output, overwrite, List.of());
    }

    /**
     * As {@link #prepareOutput(Path, boolean)}, refusing first an output directory that holds one
     * of {@code inputs}, or lies inside an input directory: a run must never delete or read back
     * what it writes.
     *
     * @throws IllegalArgumentException naming the input and the directory
     */
    public static void prepareOutput(Path output, boolean overwrite, List<Path> inputs)
            throws IOException {
        Path out = OutputCommit.realPath(output);
        for (Path input : inputs) {
            Path in = OutputCommit.realPath(input);
            if (in.startsWith(out)) {
                throw new IllegalArgumentException(
                        "the input "
                                + input
                                + " lies inside the output directory "
                                + output
                                + "; write the output elsewhere (nothing was removed)");
            }
            if (Files.isDirectory(in) && out.startsWith(in)) {
                throw new IllegalArgumentException(
                        "the output directory "
                                + output
                                + " lies inside the input directory "
                                + input
                                + ", whose files the run reads; write the output elsewhere");
            }
        }
        if (Files.exists(output) && !Files.isDirectory(output)) {
            throw new IllegalArgumentException(output + " exists and is not a directory");
        }
        if (Files.isDirectory(output)) {
            try (Stream<Path> entries = Files.list(output)) {
                var present = entries.map(p -> p.getFileName().toString()).sorted().toList();
                if (!present.isEmpty() && !overwrite) {
                    throw new IllegalArgumentException(
                            output + " is not empty (use --overwrite to replace a previous run)");
                }
                Optional<String> foreign = OutputLayout.firstForeignEntry(output);
                if (foreign.isPresent()) {
                    throw new IllegalArgumentException(
                            output
                                    + " holds "
                                    + foreign.get()
                                    + ", which is not a piper output file; refusing to"
                                    + " overwrite");
                }
            }
        }
    }

    /**
     * Locks output directory {@code output} for this run before it is checked ({@link
     * OutputCommit#lock}): the lock file sits beside it ({@code .NAME.lock}), so the directory
     * holds only the output.
     *
     * @throws IllegalStateException naming the holder if another run writes there
     */
    public static DirectoryLock lockOutput(Path output) throws IOException {
        return OutputCommit.lock(output);
    }

    /** Deletes {@code path} and everything below it ({@link OutputCommit#deleteRecursively}). */
    public static void deleteRecursively(Path path) throws IOException {
        OutputCommit.deleteRecursively(path);
    }

    /**
     * Preprocesses {@code input} into {@code output} (which {@link #prepareOutput} has prepared),
     * with the piper options in {@code conf}, on the embedded cluster.
     */
    public static Summary run(
            Path input,
            Path output,
            int parallelism,
            StateBackend backend,
            Configuration extra,
            PrintStream progress)
            throws Exception {
        Configuration conf = EmbeddedRunner.configuration(parallelism, backend);
        conf.addAll(extra);
        long start = System.nanoTime();
        PreprocessJob job = job(input, output, conf, progress);
        JobExecutionResult result;
        try {
            result =
                    EmbeddedRunner.run(
                            job,
                            conf,
                            JobNames.preprocess(conf, input),
                            () -> DlrmOutputWriter.rowsWrittenSoFar(output),
                            progress);
        } finally {
            if (job.scratch() != null) {
                OutputCommit.deleteRecursively(job.scratch());
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Object taskCpu = result.getAccumulatorResult(CostSamples.TASK_CPU_ACCUMULATOR);
        return readSummary(
                output,
                seconds,
                result.getNetRuntime() / 1e3,
                taskCpu instanceof Long nanos ? nanos / 1e9 : 0);
    }

    /**
     * The options reading {@code input}, an Avro container file, with its writer schema (from its
     * header); every input column's path must lead to a value in its records, since a column of a
     * path the file lacks would read nothing but fills.
     */
    private static DecodeOptions withContainerSchema(Path input, DecodeOptions options) {
        String schema;
        try {
            schema = AvroBlockChunker.writerSchema(Files.newInputStream(input));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException(
                    input + " is not an Avro container file (input.format avro): " + e.getMessage(),
                    e);
        }
        EventFields events = options.events();
        String why = events.avroProblem(schema);
        if (why != null) {
            throw new IllegalArgumentException(
                    input + ": " + why + " (input.fields names where each column is read)");
        }
        return options.withEvents(events.withAvro(events.avro().withSchema(schema)));
    }

    /**
     * A CSV input whose spec says it has a header ({@code input.header}) must start with the
     * columns the spec names, in order: a file of other columns would be read into the wrong ones.
     */
    private static void checkCsvHeader(Path input, DecodeOptions options) {
        CsvOptions csv = options.events().csv();
        if (!csv.header()) {
            return;
        }
        String line;
        try (BufferedReader in = Files.newBufferedReader(input, StandardCharsets.UTF_8)) {
            line = in.readLine();
        } catch (IOException | UncheckedIOException e) {
            throw new IllegalArgumentException(
                    input + ": cannot read its CSV header line: " + e.getMessage(), e);
        }
        if (line == null) {
            return; // an empty file: no header, and no line
        }
        try {
            csv.checkHeader(line); // readLine drops the line's \n or \r\n
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    input + " is not the CSV the spec describes: " + e.getMessage(), e);
        }
    }

    /**
     * The preprocess job of {@code input} into {@code output} with the piper options in {@code
     * conf} ({@link PiperOptions}, {@link ReportOptions}).
     */
    public static PreprocessJob job(Path input, Path output, Configuration conf) {
        return job(input, output, conf, System.err);
    }

    /**
     * As {@link #job(Path, Path, Configuration)}; for a spec with {@code labels}, the label join of
     * {@code input}'s impressions with the actions of {@link PiperOptions#LABEL_ACTIONS} runs first
     * (saying so on {@code progress}), and the job reads its rows ({@link LabelJoinInput}).
     */
    public static PreprocessJob job(
            Path input, Path output, Configuration conf, PrintStream progress) {
        DecodeOptions options = PiperOptions.decodeOptions(conf);
        String path = input.toAbsolutePath().toString();
        boolean avro = options.events() != null && options.events().format() == InputFormat.AVRO;
        if (avro && !PiperOptions.parquetInput(conf, path)) {
            options = withContainerSchema(input, options);
        }
        ReportSettings report = ReportOptions.settings(conf);
        OutputCommit commit =
                report == null
                        ? OutputCommit.start(output, DlrmFileSink.PART)
                        : OutputCommit.start(output, DlrmFileSink.PART, ReportFileSink.PART);
        // --hotline-budget replaces the spec's hotline section
        HotlineSettings hotline = HotlineOptions.settings(conf);
        if (hotline == null) {
            hotline = PiperOptions.spec(conf).hotline();
        }
        RowsFormat format = RowsFormat.of(conf.get(PiperOptions.OUTPUT_FORMAT));
        DlrmFileSink sink = new DlrmFileSink(commit, options, format, hotline);
        LabelJoinInput.Joined joined = labelJoin(input, conf, options, commit, progress);
        if (joined != null) {
            sink.joined(joined.input());
            input = joined.rows();
            path = input.toAbsolutePath().toString();
        }
        int shardBlocks = conf.get(PiperOptions.SHARD_BLOCKS);
        ShardWriterOperator shardWriter = null;
        if (shardBlocks != 0) {
            checkShards(shardBlocks, format, hotline);
            sink = sink.sharded(shardBlocks);
            shardWriter =
                    new ShardWriterOperator(commit, shardBlocks, options.program().rowBytes());
        }
        boolean parquet = PiperOptions.parquetInput(conf, path);
        checkInput(input, parquet, options, report);
        if (parquet) {
            PreprocessJob job =
                    PreprocessJob.columnar(
                            new ParquetFileSource(
                                    path,
                                    conf.get(PiperOptions.BLOCK_ROWS),
                                    PiperOptions.spec(conf).input().parquetColumns(),
                                    options),
                            sink,
                            options);
            if (shardWriter != null) {
                job.withShards(shardWriter, shardBlocks);
            }
            job.withVocabularyEntries(PiperOptions.vocabEntriesCache(conf));
            return hotline == null ? job : job.withHotline(hotline);
        }
        CriteoFileSource source = fileSource(input, conf, options);
        PreprocessJob job = new PreprocessJob(source, source.isSplittable(), sink, options);
        if (joined != null) {
            job.withScratch(joined.rows().getParent());
        }
        job.withVocabularyEntries(PiperOptions.vocabEntriesCache(conf));
        if (report != null) {
            job.withReport(report, new ReportFileSink(commit));
        }
        if (hotline != null) {
            job.withHotline(hotline);
        }
        if (shardWriter != null) {
            job.withShards(shardWriter, shardBlocks);
        }
        return job;
    }

    /**
     * The label join of a spec with {@code labels}, into {@code commit}'s scratch directory; null
     * for a spec without. A Parquet input is refused: the join reads JSON lines.
     */
    private static LabelJoinInput.Joined labelJoin(
            Path input,
            Configuration conf,
            DecodeOptions options,
            OutputCommit commit,
            PrintStream progress) {
        var labels = PiperOptions.spec(conf).labels();
        if (labels == null) {
            if (conf.get(PiperOptions.LABEL_ACTIONS) != null) {
                throw new IllegalArgumentException(
                        "--actions: the spec has no labels section to join actions with");
            }
            return null;
        }
        if (PiperOptions.parquetInput(conf, input.toAbsolutePath().toString())) {
            throw new IllegalArgumentException(
                    input + ": a spec with labels joins JSON lines of impressions, not Parquet");
        }
        List<List<Path>> actions;
        try {
            actions = LabelJoinInput.actions(conf.get(PiperOptions.LABEL_ACTIONS), labels);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--actions: " + e.getMessage(), e);
        }
        try {
            return LabelJoinInput.join(input, actions, labels, options, commit, progress);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Refuses what {@code input} cannot be read as: CSV whose header is not the spec's columns, a
     * cost report its decoder cannot measure.
     */
    private static void checkInput(
            Path input, boolean parquet, DecodeOptions options, ReportSettings report) {
        if (!parquet && options.events() != null && options.events().csv() != null) {
            checkCsvHeader(input, options);
        }
        if (report != null) {
            reportRefusal(options.program(), parquet)
                    .ifPresent(
                            why -> {
                                throw new IllegalArgumentException("--report: " + why);
                            });
        }
    }

    /**
     * The file source of a non-Parquet {@code input}, cut as a file of its format holds its events
     * ({@link InputFormat#files()}): Avro blocks, length-delimited messages or lines.
     */
    private static CriteoFileSource fileSource(
            Path input, Configuration conf, DecodeOptions options) {
        InputFormat format =
                options.events() == null ? InputFormat.CRITEO_TSV : options.events().format();
        int blockBytes = conf.get(PiperOptions.BLOCK_BYTES);
        String path = input.toAbsolutePath().toString();
        return switch (format.files()) {
            case AVRO_CONTAINER ->
                    CriteoFileSource.avroContainer(path, blockBytes, options.maxRawBytes());
            case LENGTH_DELIMITED ->
                    CriteoFileSource.protobufDelimited(path, blockBytes, options.maxRawBytes());
            case LINES -> textSource(input, conf, options);
        };
    }

    /**
     * Refuses a sharded output ({@code piper.output.shard-blocks} {@code shardBlocks}) of another
     * format than dlrm-rows, or with Hotline's split.
     */
    private static void checkShards(int shardBlocks, RowsFormat format, HotlineSettings hotline) {
        String key = PiperOptions.SHARD_BLOCKS.key();
        if (shardBlocks < 0) {
            throw new IllegalArgumentException(
                    key + ": must be 0 (one rows.bin) or positive, not " + shardBlocks);
        }
        if (format != RowsFormat.DLRM_ROWS) {
            throw new IllegalArgumentException(
                    key + ": sharded output writes dlrm-rows, not " + format.id());
        }
        if (hotline != null) {
            throw new IllegalArgumentException(
                    key
                            + ": sharded output does not combine with Hotline's split, which"
                            + " needs every row in order on one task");
        }
    }

    /** The text input's source, in blocks of {@code piper.block-bytes} (checked for its size). */
    private static CriteoFileSource textSource(
            Path input, Configuration conf, DecodeOptions options) {
        String path = input.toAbsolutePath().toString();
        int blockBytes = conf.get(PiperOptions.BLOCK_BYTES);
        if (!path.endsWith(".gz")) {
            long size;
            try {
                size = java.nio.file.Files.size(input);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            PiperOptions.blockBytesProblem(size, blockBytes)
                    .ifPresent(
                            why -> {
                                throw new IllegalArgumentException(
                                        PiperOptions.BLOCK_BYTES.key() + ": " + why);
                            });
        }
        return new CriteoFileSource(
                path, blockBytes, options.maxLineBytes(), options.maxRawBytes());
    }

    /**
     * Why the cost report cannot run with {@code program} on this input, if it cannot: it measures
     * text decoding, and prices every operator of every layout's columns.
     */
    public static Optional<String> reportRefusal(ColumnProgram program, boolean parquet) {
        if (parquet) {
            return Optional.of(
                    "the cost report measures the decoding of text input; a Parquet input has"
                            + " none to measure");
        }
        return CostModelOperator.refusal(program);
    }

    /** Reads the summary of a finished run from its {@code metadata.json}. */
    public static Summary readSummary(
            Path output, double seconds, double jobSeconds, double taskCpuSeconds)
            throws IOException {
        JsonNode meta = new ObjectMapper().readTree(output.resolve(OutputLayout.METADATA).toFile());
        Map<String, Long> reasons = new LinkedHashMap<>();
        meta.get("dead_letters_by_reason")
                .fields()
                .forEachRemaining(e -> reasons.put(e.getKey(), e.getValue().asLong()));
        Map<String, Integer> vocab = new LinkedHashMap<>();
        meta.get("vocab_size")
                .fields()
                .forEachRemaining(e -> vocab.put(e.getKey(), e.getValue().asInt()));
        return new Summary(
                meta.get("lines_read").asLong(),
                meta.get("rows_written").asLong(),
                meta.get("dead_letters").asLong(),
                reasons,
                vocab,
                seconds,
                jobSeconds,
                taskCpuSeconds);
    }
}
