package dev.piper.benchmarks.bench;

import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.connectors.parquet.ParquetLayout;
import dev.piper.connectors.parquet.source.ParquetFileSource;
import dev.piper.connectors.parquet.source.reader.RowGroupBlocks;
import dev.piper.connectors.parquet.source.split.RowGroupSplit;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.RawChunk;
import dev.piper.core.chunk.LineChunker;
import dev.piper.core.decode.ColumnarDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;

/**
 * Parquet input without Flink: the Parquet source's per-block work ({@link RowGroupBlocks}, which
 * reads and decodes, then {@link ColumnDecodeFunction}'s hand-on) on {@code threads} threads that
 * take row groups from a shared counter, as the job's readers take them from the enumerator.
 */
final class ParquetLoops {

    private ParquetLoops() {}

    /**
     * Reads and decodes every row of {@code parquet} on {@code threads} threads. Starts from a
     * collected heap (as JMH does before each iteration): the stages before it leave gigabytes of
     * vocabularies behind, whose collection would otherwise land in this measurement.
     */
    static SingleThreadLoops.Pass read(
            Path parquet, int threads, int blockRows, ColumnProgram program) throws Exception {
        List<RowGroupSplit> groups = rowGroups(parquet, blockRows);
        System.gc();
        AtomicInteger next = new AtomicInteger();
        AtomicLong lines = new AtomicLong();
        AtomicLong rows = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            Thread worker =
                    new Thread(
                            () -> {
                                try (ParquetFileReader file = open(parquet)) {
                                    ParquetLayout layout = layout(file, parquet);
                                    ColumnarDecoder decoder = new ColumnarDecoder(program);
                                    for (int g = next.getAndIncrement();
                                            g < groups.size();
                                            g = next.getAndIncrement()) {
                                        RowGroupBlocks blocks =
                                                new RowGroupBlocks(
                                                        file,
                                                        layout,
                                                        decoder,
                                                        groups.get(g).rowGroup(),
                                                        groups.get(g).firstRow(),
                                                        1024);
                                        ColumnBlock b;
                                        while ((b = blocks.next(0, 0, blockRows)) != null) {
                                            CriteoDecoder.Decoded d =
                                                    ColumnarDecoder.decoded(program, b);
                                            lines.addAndGet(d.dense().lines());
                                            rows.addAndGet(d.dense().rows());
                                        }
                                    }
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            },
                            "parquet-loop-" + t);
            worker.setUncaughtExceptionHandler(
                    (th, e) -> {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    });
            workers.add(worker);
            worker.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a Parquet read failed", failures.get(0));
        }
        return new SingleThreadLoops.Pass(lines.get(), rows.get(), seconds, null);
    }

    /**
     * The sha256 of every decoded row of {@code parquet}, in row order (label and dense values,
     * then the 26 ids of each row): block boundaries do not change it, so it can be compared with
     * {@link #textRowsSha256} of the text the file was converted from.
     */
    static String rowsSha256(Path parquet, int blockRows, ColumnProgram program)
            throws IOException {
        List<RowGroupSplit> groups = rowGroups(parquet, blockRows);
        MessageDigest sha = SingleThreadLoops.sha256();
        try (ParquetFileReader file = open(parquet)) {
            ParquetLayout layout = layout(file, parquet);
            ColumnarDecoder decoder = new ColumnarDecoder(program);
            for (RowGroupSplit g : groups) {
                RowGroupBlocks blocks =
                        new RowGroupBlocks(file, layout, decoder, g.rowGroup(), g.firstRow(), 1024);
                ColumnBlock b;
                while ((b = blocks.next(0, 0, blockRows)) != null) {
                    hashRows(sha, ColumnarDecoder.decoded(program, b));
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** {@link #rowsSha256} of a text input, decoded by the text decoder. */
    static String textRowsSha256(Path tsv, int blockBytes, DecodeOptions options)
            throws IOException {
        CriteoDecoder decoder = new CriteoDecoder(options);
        MessageDigest sha = SingleThreadLoops.sha256();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(tsv), 1 << 16)) {
            LineChunker chunker =
                    new LineChunker(
                            in, 0, 0, blockBytes, options.maxLineBytes(), options.maxRawBytes());
            RawChunk chunk;
            while ((chunk = chunker.next()) != null) {
                hashRows(sha, decoder.decode(chunk));
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static void hashRows(MessageDigest sha, CriteoDecoder.Decoded d) {
        ByteBuffer row = ByteBuffer.allocate(CriteoLayout.LABEL_DENSE_WIDTH * 4 + 26 * 8);
        int[] dense = d.dense().labelDense();
        for (int r = 0; r < d.dense().rows(); r++) {
            row.clear();
            for (int f = 0; f < CriteoLayout.LABEL_DENSE_WIDTH; f++) {
                row.putInt(dense[r * CriteoLayout.LABEL_DENSE_WIDTH + f]);
            }
            for (int c = 0; c < CriteoLayout.SPARSE; c++) {
                row.putLong(d.keys()[c].keys()[r]);
            }
            sha.update(row.array(), 0, row.position());
        }
    }

    private static ParquetFileReader open(Path parquet) throws IOException {
        return ParquetFiles.open(new LocalInputFile(parquet));
    }

    private static ParquetLayout layout(ParquetFileReader file, Path parquet) {
        ParquetLayout layout =
                ParquetLayout.bind(
                        file.getFooter().getFileMetaData().getSchema(),
                        Map.of(),
                        parquet.toString());
        file.setRequestedSchema(layout.projection());
        return layout;
    }

    /** The file's row groups as the Parquet source hands them out. */
    private static List<RowGroupSplit> rowGroups(Path parquet, int blockRows) throws IOException {
        return new ParquetFileSource(
                        parquet.toString(), blockRows, Map.of(), 1024, ColumnProgram.dlrm(-1))
                .splits();
    }
}
