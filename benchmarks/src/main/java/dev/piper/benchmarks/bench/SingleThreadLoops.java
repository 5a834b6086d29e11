package dev.piper.benchmarks.bench;

import dev.piper.connectors.text.LineChunker;
import dev.piper.operators.block.AssembledBlock;
import dev.piper.operators.block.IndexChunk;
import dev.piper.operators.block.RawChunk;
import dev.piper.operators.concat.ConcatenateFunction;
import dev.piper.operators.decode.CriteoDecoder;
import dev.piper.operators.vocab.VocabularyFunction;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.state.Vocabulary;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The job's per-block work run in one thread without Flink, on the same classes the operators use:
 * the lower bound of what Flink adds.
 */
final class SingleThreadLoops {

    private SingleThreadLoops() {}

    /** What one pass did. */
    record Pass(long lines, long rows, double seconds, String rowsSha256) {}

    /** Reads and decodes every line (with the fused stateless column operators). */
    static Pass decodeOnly(Path input, int blockBytes, DecodeOptions options) throws IOException {
        return decode(input, blockBytes, options, true);
    }

    /**
     * Reads and decodes every line, the column passes fused (RAP's horizontal fusion) or one per
     * column and operator.
     */
    static Pass decode(Path input, int blockBytes, DecodeOptions options, boolean fuse)
            throws IOException {
        CriteoDecoder decoder = new CriteoDecoder(options, false, fuse);
        long start = System.nanoTime();
        long lines = 0;
        long rows = 0;
        try (InputStream in = open(input)) {
            LineChunker chunker = chunker(in, blockBytes, options);
            RawChunk chunk;
            while ((chunk = chunker.next()) != null) {
                CriteoDecoder.Decoded d = decoder.decode(chunk);
                lines += d.dense().lines();
                rows += d.dense().rows();
            }
        }
        return new Pass(lines, rows, (System.nanoTime() - start) / 1e9, null);
    }

    /** The sha256 of every decoded value (dense values, then each column's keys, per block). */
    static String decodedSha256(Path input, int blockBytes, DecodeOptions options, boolean fuse)
            throws IOException {
        CriteoDecoder decoder = new CriteoDecoder(options, false, fuse);
        MessageDigest sha = sha256();
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(8);
        try (InputStream in = open(input)) {
            LineChunker chunker = chunker(in, blockBytes, options);
            RawChunk chunk;
            while ((chunk = chunker.next()) != null) {
                CriteoDecoder.Decoded d = decoder.decode(chunk);
                int rows = d.dense().rows();
                int[] dense = d.dense().labelDense();
                for (int i = 0; i < rows * CriteoLayout.LABEL_DENSE_WIDTH; i++) {
                    sha.update(buf.clear().putInt(0, dense[i]).array(), 0, 4);
                }
                for (var keys : d.keys()) {
                    for (int r = 0; r < rows; r++) {
                        sha.update(buf.clear().putLong(0, keys.keys()[r]).array(), 0, 8);
                    }
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /**
     * Decode, the vocabularies (GenVocab + ApplyVocab) and the row assembly: everything the job
     * does per block except moving blocks between operators. Returns the sha256 of the rows it
     * produced, which every job run must reproduce; the time spent hashing is not counted.
     */
    static Pass fused(Path input, int blockBytes, DecodeOptions options) throws IOException {
        CriteoDecoder decoder = new CriteoDecoder(options);
        Vocabulary[] vocab = new Vocabulary[CriteoLayout.SPARSE];
        for (int c = 0; c < vocab.length; c++) {
            vocab[c] = new Vocabulary();
        }
        MessageDigest sha = sha256();
        long start = System.nanoTime();
        long hashing = 0;
        long lines = 0;
        long rows = 0;
        try (InputStream in = open(input)) {
            LineChunker chunker = chunker(in, blockBytes, options);
            RawChunk chunk;
            IndexChunk[] indices = new IndexChunk[CriteoLayout.SPARSE];
            while ((chunk = chunker.next()) != null) {
                CriteoDecoder.Decoded d = decoder.decode(chunk);
                for (int c = 0; c < CriteoLayout.SPARSE; c++) {
                    indices[c] = VocabularyFunction.apply(vocab[c], d.keys()[c]);
                }
                AssembledBlock block = ConcatenateFunction.assemble(d.dense(), indices);
                long hashStart = System.nanoTime();
                sha.update(block.rowBytes(), 0, block.rows() * CriteoLayout.ROW_BYTES);
                hashing += System.nanoTime() - hashStart;
                lines += block.lines();
                rows += block.rows();
            }
        }
        double seconds = (System.nanoTime() - start - hashing) / 1e9;
        return new Pass(lines, rows, seconds, HexFormat.of().formatHex(sha.digest()));
    }

    private static InputStream open(Path input) throws IOException {
        return new BufferedInputStream(Files.newInputStream(input), 1 << 16);
    }

    private static LineChunker chunker(InputStream in, int blockBytes, DecodeOptions options) {
        return new LineChunker(in, 0, 0, blockBytes, options.maxLineBytes(), options.maxRawBytes());
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
