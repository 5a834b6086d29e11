package dev.piper.convert;

import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.chunk.LineChunker;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.output.ColumnFileWriter;
import dev.piper.output.DeadLetterFile;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * {@code bin/piper convert}: Criteo text to a Parquet file of {@link #schema()}, values as the
 * lines hold them (no operator applied; an empty field a null), rows in line order. A line the text
 * decoder rejects is not converted: it goes to a dead-letter file with the same reason, line number
 * and byte offset {@code preprocess} gives it, so preprocessing the Parquet file gives the rows and
 * indices of preprocessing the text.
 *
 * <p>Lines are parsed by the preprocessing decoder itself ({@link CriteoDecoder#tracking}) in
 * blocks of {@link #BLOCK_BYTES}, then written column value by column value ({@link
 * ColumnFileWriter}). One thread.
 */
public final class TsvToParquet {

    static final int BLOCK_BYTES = 1 << 20;

    /** The default rows per row group: the unit a parallel Parquet reader takes at a time. */
    public static final int DEFAULT_ROW_GROUP_ROWS = 1 << 17;

    /**
     * What a conversion did.
     *
     * @param lines lines read
     * @param rows rows written
     * @param deadLetters lines rejected
     * @param rowGroups row groups written
     * @param bytes size of the Parquet file
     * @param seconds wall time
     */
    public record Result(
            long lines, long rows, long deadLetters, int rowGroups, long bytes, double seconds) {}

    private TsvToParquet() {}

    /**
     * Converts {@code input} (text, or gzip-compressed text if its name ends in {@code .gz}).
     *
     * @param text how lines are decoded (padding, line limit, raw bytes kept) and their layout (the
     *     program's); the program's operators are not applied
     * @param progress where a line goes every few seconds of a long conversion
     * @throws IOException if it fails; then neither {@code output} nor {@code deadLetters} is
     *     written
     */
    public static Result convert(
            Path input,
            Path output,
            Path deadLetters,
            DecodeOptions text,
            CompressionCodecName codec,
            int rowGroupRows,
            PrintStream progress)
            throws IOException {
        long start = System.nanoTime();
        DecodeOptions options =
                new DecodeOptions(
                        ColumnProgram.raw(inputLayout(text.program().layout())),
                        text.padMissingFields(),
                        text.maxLineBytes(),
                        text.maxRawBytes());
        // Written under temporary names and renamed at the end: a failed conversion leaves no
        // file that looks complete (the writer closes a Parquet file with a valid footer).
        Path partial = output.resolveSibling("." + output.getFileName() + ".converting");
        Path partialDead =
                deadLetters.resolveSibling("." + deadLetters.getFileName() + ".converting");
        boolean done = false;
        try {
            Result result =
                    convert(
                            input,
                            partial,
                            partialDead,
                            options,
                            codec,
                            rowGroupRows,
                            progress,
                            start);
            Files.move(partialDead, deadLetters, StandardCopyOption.REPLACE_EXISTING);
            Files.move(partial, output, StandardCopyOption.ATOMIC_MOVE);
            done = true;
            return result;
        } finally {
            if (!done) {
                Files.deleteIfExists(partial);
                Files.deleteIfExists(partialDead);
            }
        }
    }

    /** The columns lines of {@code layout} hold: all but its generated ones. */
    private static RowLayout inputLayout(RowLayout layout) {
        return new RowLayout(
                layout.dense(), layout.sparse(), layout.listColumns(), layout.listSeparator());
    }

    private static Result convert(
            Path input,
            Path output,
            Path deadLetters,
            DecodeOptions options,
            CompressionCodecName codec,
            int rowGroupRows,
            PrintStream progress,
            long start)
            throws IOException {
        long inputBytes = Files.size(input);
        CriteoDecoder decoder = CriteoDecoder.tracking(options);
        long lines = 0;
        long rows = 0;
        long lastReport = start;
        ColumnFileWriter out =
                new ColumnFileWriter(
                        output,
                        schema(options.program().layout()),
                        codec,
                        rowGroupRows,
                        true,
                        Map.of("piper.converted_from", input.getFileName().toString()));
        try (out;
                DeadLetterFile dead = new DeadLetterFile(deadLetters);
                InputStream in = TsvToJson.open(input)) {
            LineChunker chunker =
                    new LineChunker(
                            in, 0, 0, BLOCK_BYTES, options.maxLineBytes(), options.maxRawBytes());
            for (RawChunk chunk = chunker.next(); chunk != null; chunk = chunker.next()) {
                CriteoDecoder.Decoded decoded = decoder.decode(chunk);
                write(out, decoded);
                DenseChunk dense = decoded.dense();
                for (DeadLetter d : dense.deadLetters()) {
                    dead.write(d, lines + 1 + d.lineInBlock());
                }
                lines += dense.lines();
                rows += dense.rows();
                long now = System.nanoTime();
                if (now - lastReport > 5_000_000_000L) {
                    lastReport = now;
                    progress.printf(
                            "convert: %,d lines, %.0f%% of %s, %.0f s%n",
                            lines,
                            100.0 * chunker.offset() / Math.max(1, inputBytes),
                            input.getFileName(),
                            (now - start) / 1e9);
                }
            }
            out.close();
            dead.close();
            return new Result(
                    lines,
                    rows,
                    dead.count(),
                    out.rowGroups(),
                    Files.size(output),
                    (System.nanoTime() - start) / 1e9);
        }
    }

    /** Writes a decoded block's rows: its values, a null where the line's field was empty. */
    private static void write(ColumnFileWriter out, CriteoDecoder.Decoded decoded)
            throws IOException {
        int rows = decoded.dense().rows();
        int[] labelDense = decoded.dense().labelDense();
        long[][] missing = decoded.missing();
        RowLayout layout = decoded.dense().layout();
        int width = layout.labelDenseWidth();
        long[][] keys = new long[layout.sparse()][];
        int[][] offsets = new int[layout.sparse()][];
        for (int c = 0; c < keys.length; c++) {
            keys[c] = decoded.keys()[c].keys();
            offsets[c] = decoded.keys()[c].offsets();
        }
        for (int r = 0; r < rows; r++) {
            int word = r >>> 6;
            long bit = 1L << r;
            for (int f = 0; f < width; f++) {
                if ((missing[f][word] & bit) != 0) {
                    out.writeNull(f);
                } else {
                    out.writeInt(f, labelDense[r * width + f]);
                }
            }
            for (int c = 0; c < keys.length; c++) {
                int f = width + c;
                if (offsets[c] != null) {
                    out.writeList(f, keys[c], offsets[c][r], offsets[c][r + 1]);
                } else if ((missing[f][word] & bit) != 0) {
                    out.writeNull(f);
                } else {
                    out.writeLong(f, keys[c][r]);
                }
            }
            out.endRow();
        }
    }

    /** {@link #schema(RowLayout)} of Criteo's layout. */
    public static MessageType schema() {
        return schema(RowLayout.CRITEO);
    }

    /**
     * The schema {@code bin/piper convert} writes: {@code label} and {@code I1}..{@code I13} as
     * optional INT32, {@code C1}..{@code C26} (in Criteo's layout; as many as {@code layout} has)
     * as optional INT64 annotated unsigned (the id parsed from its hex text); a null is an empty
     * field of the text. A list column is a required LIST of such ids (an empty field, an empty
     * list).
     */
    public static MessageType schema(RowLayout layout) {
        Types.MessageTypeBuilder b = Types.buildMessage();
        for (int i = 0; i < layout.inputFields(); i++) {
            int f = layout.fieldOfInput(i);
            String name = layout.fieldName(f);
            if (layout.isLabelOrDense(f)) {
                b.optional(PrimitiveTypeName.INT32).named(name);
            } else if (layout.isList(f - layout.labelDenseWidth())) {
                b.requiredList()
                        .requiredElement(PrimitiveTypeName.INT64)
                        .as(LogicalTypeAnnotation.intType(64, false))
                        .named(name);
            } else {
                b.optional(PrimitiveTypeName.INT64)
                        .as(LogicalTypeAnnotation.intType(64, false))
                        .named(name);
            }
        }
        return b.named("criteo");
    }
}
