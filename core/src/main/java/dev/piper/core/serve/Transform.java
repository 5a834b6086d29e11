package dev.piper.core.serve;

import dev.piper.core.assemble.RowAssembly;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.Origin;
import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import dev.piper.core.decode.BlockDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.VocabularyPolicy;
import java.util.Arrays;
import java.util.List;

/**
 * The feed's transform at serving time: raw records in the spec's input format (Criteo lines, JSON
 * or CSV lines, Avro datums, Protobuf messages) become the rows the feed would have made of them,
 * with the same decoder and column operators (the job's own code, {@link BlockDecoder}) and the
 * indices of a frozen vocabulary position ({@link VocabularySnapshot}); no Flink, no Kafka, and the
 * vocabulary never grows. The rows are laid out as {@code rows.bin}'s ({@link RowAssembly}), list
 * columns beside them.
 *
 * <p>A key the snapshot has no entry for takes the index its column's policy gives such a key: its
 * OOV bucket ({@code mix64(key) mod oov_buckets}) when the column has buckets; else the column's
 * reserved index, one past the largest index at the snapshot ({@link
 * VocabularySnapshot#reservedIndex}; the table size the snapshot announces counts its row). {@link
 * Result#unknown()} counts them per column. A record the feed would reject is a dead letter here
 * too, with the same reason and detail.
 *
 * <p>Not thread-safe (it holds a decoder); one per thread, sharing the snapshot.
 */
public final class Transform {

    private final ColumnProgram program;
    private final VocabularySnapshot snapshot;
    private final BlockDecoder decoder;
    private final boolean framed;

    /**
     * @param options the spec's decoding ({@code SpecCompiler.decodeOptions}); an Avro spec's
     *     options must carry its writer schema
     * @param snapshot the vocabularies of the same spec's columns
     * @throws IllegalArgumentException if the snapshot's columns are not the spec's ({@link
     *     VocabularySnapshot#checkFits})
     */
    public Transform(DecodeOptions options, VocabularySnapshot snapshot) {
        this.program = options.program();
        snapshot.checkFits(program);
        this.snapshot = snapshot;
        this.decoder = BlockDecoder.of(options, false);
        this.framed = !readsLines(options);
    }

    /**
     * Whether the spec's records are lines (Criteo text, JSON, CSV), which {@link #applyLines}
     * takes as one text; else datums or messages (Avro, Protobuf), a record each: as a Kafka record
     * of the format holds them ({@link InputFormat#records()}).
     */
    public static boolean readsLines(DecodeOptions options) {
        InputFormat format = options.events() == null ? null : options.events().format();
        return format == null || format.records() != InputFormat.KafkaRecords.FRAME;
    }

    /**
     * The rows of a request's records, in order.
     *
     * @throws IllegalArgumentException if a record of a line format holds a line break (it would be
     *     two records)
     */
    public Result apply(List<byte[]> records) {
        int total = 0;
        for (byte[] record : records) {
            total += record.length + (framed ? RecordFrames.HEADER : 1);
        }
        byte[] data = new byte[total]; // the records as one block: a frame each, or a line each
        int at = 0;
        for (int r = 0; r < records.size(); r++) {
            byte[] record = records.get(r);
            if (framed) {
                at = RecordFrames.write(data, at, record, 0, record.length, 1);
                continue;
            }
            for (byte b : record) {
                if (b == '\n') {
                    throw new IllegalArgumentException(
                            "record " + (r + 1) + " holds a line break: one line a record");
                }
            }
            System.arraycopy(record, 0, data, at, record.length);
            at += record.length;
            data[at++] = '\n';
        }
        return result(new RawChunk(0, 0, 0, data, data.length, -1, records(records.size())));
    }

    /**
     * The rows of the records of {@code text}, one a line (a last line break ends the last one),
     * read as they are, without a copy of each: what a request's body holds.
     *
     * @throws IllegalStateException if the spec's records are not lines ({@link #readsLines})
     */
    public Result applyLines(byte[] text) {
        if (framed) {
            throw new IllegalStateException("the spec's records are Avro or Protobuf, not lines");
        }
        int lines = 0;
        for (byte b : text) {
            if (b == '\n') {
                lines++;
            }
        }
        byte[] data = text;
        if (text.length > 0 && text[text.length - 1] != '\n') {
            data = Arrays.copyOf(text, text.length + 1);
            data[text.length] = '\n';
            lines++;
        }
        return result(new RawChunk(0, 0, 0, data, data.length, -1, records(lines)));
    }

    /**
     * {@code n} records of a log, a line (or frame) each: not a file, so a CSV spec's header is not
     * looked for in them.
     */
    private static Origin records(int n) {
        long[] offsets = new long[n];
        int[] firstLines = new int[n];
        for (int r = 0; r < n; r++) {
            offsets[r] = r;
            firstLines[r] = r;
        }
        return new Origin(offsets, firstLines, -1, -1);
    }

    private Result result(RawChunk chunk) {
        CriteoDecoder.Decoded decoded = decoder.decode(chunk, false);
        int sparse = program.layout().sparse();
        IndexChunk[] columns = new IndexChunk[sparse];
        long[] unknown = new long[sparse];
        for (int c = 0; c < sparse; c++) {
            KeyChunk keys = decoded.keys()[c];
            VocabularyPolicy policy = program.vocabPolicy(c);
            int[] indices = new int[keys.size()];
            for (int i = 0; i < keys.size(); i++) {
                long key = keys.keys()[i];
                int index = snapshot.indexOf(c, key);
                if (index < 0) {
                    unknown[c]++;
                    index =
                            policy.oovBuckets() > 0
                                    ? policy.bucketOf(key)
                                    : snapshot.reservedIndex(c);
                }
                indices[i] = index;
            }
            columns[c] =
                    new IndexChunk(
                            0,
                            c,
                            0,
                            indices,
                            keys.size(),
                            snapshot.reservedIndex(c),
                            new long[0],
                            keys.epoch(),
                            keys.offsets());
        }
        return new Result(RowAssembly.assemble(decoded.dense(), columns), unknown);
    }

    /**
     * A request's rows.
     *
     * @param block the rows in {@code rows.bin}'s layout ({@link AssembledBlock#rowBytes()}), list
     *     columns' indices beside them, the dead letters, the event times if the spec reads them
     * @param unknown per sparse column, the keys the snapshot had no entry for
     */
    public record Result(AssembledBlock block, long[] unknown) {}
}
