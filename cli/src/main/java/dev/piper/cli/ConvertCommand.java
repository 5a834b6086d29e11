package dev.piper.cli;

import dev.piper.convert.TsvToAvro;
import dev.piper.convert.TsvToCsv;
import dev.piper.convert.TsvToJson;
import dev.piper.convert.TsvToParquet;
import dev.piper.convert.TsvToProtobuf;
import dev.piper.job.launch.LaunchChecks;
import dev.piper.output.DirectoryLock;
import dev.piper.output.OutputCommit;
import dev.piper.pipeline.generate.CriteoProtobuf;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code piper convert}: Criteo text to Parquet (for Parquet input to preprocess), to JSON events
 * (for a spec of {@code input.format} json), to an Avro container file (avro) or to
 * length-delimited Protobuf messages (protobuf).
 */
@Command(
        name = "convert",
        mixinStandardHelpOptions = true,
        description = {
            "Convert a Criteo text file to Parquet: columns label and I1..I13 (INT32), C1..C26"
                    + " (INT64, the id parsed from hex), an empty field a null; rows in line"
                    + " order, values unchanged (no operator is applied).",
            "Lines preprocess would reject are not converted: they go to the dead-letter file"
                    + " with the reason, line number and offset preprocess gives them, so"
                    + " preprocessing the Parquet file gives the same rows and indices.",
            "With --output-format json (or an output ending in .jsonl), write JSON events"
                    + " instead, one object per line: label, I1.. as numbers, C1.. as their hex"
                    + " text, list columns as arrays, empty fields left out; every line is"
                    + " written (one that is not a row as it is), so preprocessing them with a"
                    + " json spec of the same chains gives the same rows, indices and dead letters.",
            "With --output-format csv (or an output ending in .csv), write CSV with a header line"
                    + " (label, I1.., C1..), values quoted where they hold a comma or a quote;"
                    + " every line is written (one of another field count keeps it), so"
                    + " preprocessing it with --preset dlrm-criteo-csv gives the same rows,"
                    + " indices and dead letters.",
            "With --output-format avro (or an output ending in .avro), write an Avro container"
                    + " file of records label, I1.. (int, or the text if it is no int), C1.."
                    + " (their hex text; list columns arrays), empty fields null; a line no record"
                    + " can carry (another field count, not UTF-8) goes to OUTPUT.rejected.tsv.",
            "With --output-format protobuf (or an output ending in .pb), write length-delimited"
                    + " Protobuf messages dev.piper.events.CriteoLine (label, I1.. sint32; C1.."
                    + " their hex text) and their descriptor set to OUTPUT.desc; a line no message"
                    + " can carry (a label or dense field that is no int32, another field count)"
                    + " goes to OUTPUT.rejected.tsv."
        })
final class ConvertCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--input",
            required = true,
            paramLabel = "PATH",
            description = "Criteo text file (a .gz file is decompressed on the fly).")
    Path input;

    @Option(
            names = "--output",
            required = true,
            paramLabel = "PATH",
            description = "Parquet file to write; must not exist.")
    Path output;

    @Option(
            names = "--dead-letters",
            paramLabel = "PATH",
            description =
                    "Where the rejected lines go, as JSON lines (default: the output's name with"
                            + " .dead-letters.jsonl).")
    Path deadLetters;

    @Option(
            names = "--compression",
            paramLabel = "C",
            description =
                    "Parquet's page compression: uncompressed, snappy, gzip, zstd or lz4_raw"
                            + " (default: snappy); an Avro file's blocks: uncompressed or gzip"
                            + " (deflate; the default).")
    String compression;

    /** Avro's codec name for --compression: none, or deflate (gzip's algorithm). */
    private String avroCodec() {
        String c = compression == null ? "gzip" : compression.toLowerCase(Locale.ROOT);
        return switch (c) {
            case "uncompressed" -> "null";
            case "gzip" -> "deflate";
            default ->
                    throw new ParameterException(
                            spec.commandLine(),
                            "--compression: an Avro file is uncompressed or gzip (deflate), not \""
                                    + compression
                                    + "\"");
        };
    }

    @Option(
            names = "--row-group-rows",
            paramLabel = "N",
            defaultValue = "" + TsvToParquet.DEFAULT_ROW_GROUP_ROWS,
            description =
                    "Rows per row group, the unit a parallel reader takes at a time (default:"
                            + " ${DEFAULT-VALUE}).")
    int rowGroupRows;

    @Option(
            names = "--pad-missing-fields",
            description =
                    "Accept lines whose trailing fields are absent (as preprocess's option)"
                            + " instead of rejecting them.")
    boolean padMissingFields;

    @Option(
            names = "--max-line-bytes",
            paramLabel = "B",
            defaultValue = "" + DecodeOptions.DEFAULT_MAX_LINE_BYTES,
            description =
                    "Longest accepted line, as preprocess's option (default: ${DEFAULT-VALUE}).")
    int maxLineBytes;

    @Option(
            names = "--output-format",
            paramLabel = "F",
            description =
                    "parquet, json, csv, avro or protobuf (default: json for an output ending in"
                            + " .jsonl or .json, csv for .csv, avro for .avro, protobuf for .pb,"
                            + " else parquet).")
    String outputFormat;

    private static final String[] CODECS = {"uncompressed", "snappy", "gzip", "zstd", "lz4_raw"};

    @Mixin LayoutOptions layoutOptions;

    @Option(
            names = "--preset",
            paramLabel = "NAME",
            description =
                    "Lines of a preset's layout (rm1..rm5: PreSto's mixes; list columns become"
                            + " Parquet LIST columns) instead of --dense/--sparse.")
    String preset;

    @Option(
            names = "--spec",
            paramLabel = "FILE",
            description = "Lines of a spec's layout (its input.dense, sparse and list_columns).")
    Path specFile;

    /** The layout of the lines: --spec's, --preset's or --dense/--sparse. */
    private RowLayout layout() {
        CommandLine cmd = spec.commandLine();
        if (preset == null && specFile == null) {
            return layoutOptions.layout(cmd);
        }
        LayoutOptions.refuseNextTo(cmd, "--preset or --spec");
        if (preset != null && specFile != null) {
            throw new ParameterException(cmd, "--preset cannot be combined with --spec");
        }
        try {
            return preset != null
                    ? Presets.named(preset).spec().layout()
                    : SpecParser.parse(specFile).layout();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd, "--preset: " + e.getMessage());
        } catch (SpecException | IOException e) {
            throw new ParameterException(cmd, "--spec: " + e.getMessage());
        }
    }

    @Override
    public Integer call() throws IOException {
        LaunchChecks.inputFile(input);
        // Held from the check that the output is absent to its rename into place: two converts
        // into one file would otherwise write the same partial file.
        try (DirectoryLock lock =
                DirectoryLock.acquire(OutputCommit.lockFile(output), "output file " + output)) {
            return convert();
        }
    }

    private int convert() throws IOException {
        if (Files.exists(output)) {
            throw new ParameterException(
                    spec.commandLine(), "--output: " + output + " exists; remove it first");
        }
        Path parent = output.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new ParameterException(
                    spec.commandLine(), "--output: directory " + parent + " does not exist");
        }
        String format =
                outputFormat != null
                        ? outputFormat.toLowerCase(Locale.ROOT)
                        : output.toString().matches(".*\\.jsonl?$")
                                ? "json"
                                : output.toString().endsWith(".csv")
                                        ? "csv"
                                        : output.toString().endsWith(".avro")
                                                ? "avro"
                                                : output.toString().endsWith(".pb")
                                                        ? "protobuf"
                                                        : "parquet";
        if (!List.of("json", "csv", "parquet", "avro", "protobuf").contains(format)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--output-format: unknown format \""
                            + outputFormat
                            + "\" (known: parquet, json, csv, avro, protobuf)");
        }
        return switch (format) {
            case "protobuf" -> toProtobuf();
            case "avro" -> toAvro();
            case "json", "csv" -> toLines(format.equals("csv"));
            default -> toParquet();
        };
    }

    /** Protobuf messages, and the descriptor set beside them. */
    private int toProtobuf() throws IOException {
        TsvToProtobuf.Result r = TsvToProtobuf.convert(input, output, layout(), System.err);
        spec.commandLine()
                .getOut()
                .printf(
                        "convert: %,d lines read, %,d Protobuf messages written (%,d bytes) in"
                                + " %.1f s -> %s (message %s, descriptor set %s)%n",
                        r.lines(),
                        r.messages(),
                        r.bytes(),
                        r.seconds(),
                        output,
                        CriteoProtobuf.MESSAGE,
                        TsvToProtobuf.descriptorFile(output));
        if (r.rejected() > 0) {
            spec.commandLine()
                    .getOut()
                    .printf(
                            "convert: %,d lines are no message of the layout (another field"
                                    + " count, a label or dense field that is no int32, not"
                                    + " UTF-8), written as they are to %s%n",
                            r.rejected(), TsvToAvro.rejectedFile(output));
        }
        return 0;
    }

    /** An Avro container file of {@code --avro-codec}. */
    private int toAvro() throws IOException {
        TsvToAvro.Result r = TsvToAvro.convert(input, output, layout(), avroCodec(), System.err);
        spec.commandLine()
                .getOut()
                .printf(
                        "convert: %,d lines read, %,d Avro records written (%,d bytes, codec"
                                + " %s) in %.1f s (%,.0f lines/s) -> %s%n",
                        r.lines(),
                        r.records(),
                        r.bytes(),
                        avroCodec(),
                        r.seconds(),
                        r.lines() / Math.max(r.seconds(), 1e-9),
                        output);
        if (r.rejected() > 0) {
            spec.commandLine()
                    .getOut()
                    .printf(
                            "convert: %,d lines are no record of the layout (another field"
                                    + " count, an empty line, not UTF-8), written as they"
                                    + " are to %s%n",
                            r.rejected(), TsvToAvro.rejectedFile(output));
        }
        return 0;
    }

    /** JSON events or CSV lines: every line written, in order. */
    private int toLines(boolean csv) throws IOException {
        // every line written, in order: the text's rows and dead letters when read back
        TsvToJson.Result r =
                csv
                        ? TsvToCsv.convert(input, output, layout(), System.err)
                        : TsvToJson.convert(input, output, layout(), System.err);
        spec.commandLine()
                .getOut()
                .printf(
                        "convert: %,d lines read, %,d %s (%,d bytes) in %.1f s (%,.0f"
                                + " lines/s) -> %s%s%n",
                        r.lines(),
                        r.lines(),
                        csv ? "CSV lines written after the header" : "JSON events written",
                        r.bytes(),
                        r.seconds(),
                        r.lines() / Math.max(r.seconds(), 1e-9),
                        output,
                        csv
                                ? " (read it with --preset dlrm-criteo-csv, or a csv spec"
                                        + " whose input.columns is the header)"
                                : "");
        return 0;
    }

    /** Parquet of {@code --compression}, dead letters beside it. */
    private int toParquet() throws IOException {
        String codec = compression == null ? "snappy" : compression.toLowerCase(Locale.ROOT);
        if (!Arrays.asList(CODECS).contains(codec)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--compression: unknown codec \""
                            + compression
                            + "\" (known: "
                            + String.join(", ", CODECS)
                            + ")");
        }
        if (rowGroupRows < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--row-group-rows: must be positive, not " + rowGroupRows);
        }
        if (maxLineBytes < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--max-line-bytes: must be positive, not " + maxLineBytes);
        }
        Path dead =
                deadLetters != null
                        ? deadLetters
                        : output.resolveSibling(
                                output.getFileName().toString().replaceFirst("\\.parquet$", "")
                                        + ".dead-letters.jsonl");
        DecodeOptions text =
                new DecodeOptions(
                        ColumnProgram.raw(layout()),
                        padMissingFields,
                        maxLineBytes,
                        DecodeOptions.DEFAULT_MAX_RAW_BYTES);
        TsvToParquet.Result r =
                TsvToParquet.convert(
                        input,
                        output,
                        dead,
                        text,
                        CompressionCodecName.valueOf(codec.toUpperCase(Locale.ROOT)),
                        rowGroupRows,
                        System.err);
        spec.commandLine()
                .getOut()
                .printf(
                        "convert: %,d lines read, %,d rows written in %,d row groups (%,d bytes),"
                                + " %,d dead letters in %.1f s (%,.0f lines/s) -> %s%n",
                        r.lines(),
                        r.rows(),
                        r.rowGroups(),
                        r.bytes(),
                        r.deadLetters(),
                        r.seconds(),
                        r.lines() / Math.max(r.seconds(), 1e-9),
                        output);
        return 0;
    }
}
