package dev.piper.benchmarks.bench;

import dev.piper.core.assemble.RowAssembly;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.chunk.AvroBlockChunker;
import dev.piper.core.chunk.Chunker;
import dev.piper.core.chunk.LineChunker;
import dev.piper.core.decode.BlockDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.operators.vocab.VocabularyFunction;
import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.state.Vocabulary;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

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
        return decode(input, blockBytes, options, new CriteoDecoder(options, false, fuse));
    }

    /**
     * Reads and decodes every line with the decoder of the options' input format ({@link
     * BlockDecoder}: Criteo text, or JSON events).
     */
    static Pass decodeAny(Path input, int blockBytes, DecodeOptions options) throws IOException {
        return decode(input, blockBytes, options, BlockDecoder.of(options, false));
    }

    private static Pass decode(
            Path input, int blockBytes, DecodeOptions options, BlockDecoder decoder)
            throws IOException {
        long start = System.nanoTime();
        long lines = 0;
        long rows = 0;
        try (InputStream in = open(input)) {
            Chunker chunker = chunker(in, blockBytes, options);
            RawChunk chunk;
            while ((chunk = chunker.next()) != null) {
                CriteoDecoder.Decoded d = decoder.decode(chunk, false);
                lines += d.dense().lines();
                rows += d.dense().rows();
            }
        }
        return new Pass(lines, rows, (System.nanoTime() - start) / 1e9, null);
    }

    /** The sha256 of every decoded value (dense values, then each column's keys, per block). */
    static String decodedSha256(Path input, int blockBytes, DecodeOptions options, boolean fuse)
            throws IOException {
        return decodedSha256(input, blockBytes, options, new CriteoDecoder(options, false, fuse));
    }

    /** As above, with the decoder of the options' input format. */
    static String decodedSha256(Path input, int blockBytes, DecodeOptions options)
            throws IOException {
        return decodedSha256(input, blockBytes, options, BlockDecoder.of(options, false));
    }

    private static String decodedSha256(
            Path input, int blockBytes, DecodeOptions options, BlockDecoder decoder)
            throws IOException {
        // one digest for the dense values and one per column's keys, so that the result does not
        // depend on where blocks end (JSON events' blocks hold fewer rows than text's)
        MessageDigest dense = sha256();
        MessageDigest[] keys = new MessageDigest[CriteoLayout.SPARSE];
        for (int c = 0; c < keys.length; c++) {
            keys[c] = sha256();
        }
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(8);
        try (InputStream in = open(input)) {
            Chunker chunker = chunker(in, blockBytes, options);
            RawChunk chunk;
            while ((chunk = chunker.next()) != null) {
                CriteoDecoder.Decoded d = decoder.decode(chunk, false);
                int rows = d.dense().rows();
                int[] values = d.dense().labelDense();
                for (int i = 0; i < rows * CriteoLayout.LABEL_DENSE_WIDTH; i++) {
                    dense.update(buf.clear().putInt(0, values[i]).array(), 0, 4);
                }
                for (int c = 0; c < keys.length; c++) {
                    long[] k = d.keys()[c].keys();
                    for (int r = 0; r < rows; r++) {
                        keys[c].update(buf.clear().putLong(0, k[r]).array(), 0, 8);
                    }
                }
            }
        }
        List<String> parts = new ArrayList<>();
        parts.add(HexFormat.of().formatHex(dense.digest()));
        for (MessageDigest k : keys) {
            parts.add(HexFormat.of().formatHex(k.digest()));
        }
        return OutputDigest.combine(parts);
    }

    /**
     * Decode, the vocabularies (GenVocab + ApplyVocab) and the row assembly: everything the job
     * does per block except moving blocks between operators. Returns the digest of the output it
     * produced ({@link OutputDigest}), which every job run must reproduce; the time spent hashing
     * is not counted.
     */
    static Pass fused(Path input, int blockBytes, DecodeOptions options) throws IOException {
        CriteoDecoder decoder = new CriteoDecoder(options);
        int sparse = options.program().layout().sparse();
        Vocabulary[] vocab = new Vocabulary[sparse];
        for (int c = 0; c < vocab.length; c++) {
            vocab[c] = new Vocabulary();
        }
        OutputDigest digest = new OutputDigest(options.program().layout().listColumns().size());
        int rowBytes = options.program().rowBytes();
        long start = System.nanoTime();
        long hashing = 0;
        long lines = 0;
        long rows = 0;
        try (InputStream in = open(input)) {
            Chunker chunker = chunker(in, blockBytes, options);
            RawChunk chunk;
            IndexChunk[] indices = new IndexChunk[sparse];
            while ((chunk = chunker.next()) != null) {
                CriteoDecoder.Decoded d = decoder.decode(chunk);
                for (int c = 0; c < sparse; c++) {
                    indices[c] = VocabularyFunction.apply(vocab[c], d.keys()[c]);
                }
                AssembledBlock block = RowAssembly.assemble(d.dense(), indices);
                long hashStart = System.nanoTime();
                digest.add(block, rowBytes);
                hashing += System.nanoTime() - hashStart;
                lines += block.lines();
                rows += block.rows();
            }
        }
        double seconds = (System.nanoTime() - start - hashing) / 1e9;
        return new Pass(lines, rows, seconds, digest.hex());
    }

    /**
     * The digest of a job's output as the blocks that make it pass: the sha256 of {@code rows.bin};
     * with list columns, the sha256 of the hex digests of {@code rows.bin} and of each list
     * column's lengths and values files (little-endian int32 each), in column order, which {@code
     * Bench} computes from the files the same way.
     */
    static final class OutputDigest {
        private final MessageDigest rows = sha256();
        private final MessageDigest[] lengths;
        private final MessageDigest[] values;
        private final ByteBuffer scratch =
                ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);

        OutputDigest(int lists) {
            lengths = new MessageDigest[lists];
            values = new MessageDigest[lists];
            for (int l = 0; l < lists; l++) {
                lengths[l] = sha256();
                values[l] = sha256();
            }
        }

        void add(AssembledBlock block, int rowBytes) {
            int n = block.rows();
            rows.update(block.rowBytes(), 0, n * rowBytes);
            for (int l = 0; l < lengths.length; l++) {
                int[] offsets = block.listOffsets()[l];
                for (int r = 0; r < n; r++) {
                    put(lengths[l], offsets[r + 1] - offsets[r]);
                }
                drain(lengths[l]);
                int[] indices = block.listIndices()[l];
                for (int i = offsets[0]; i < offsets[n]; i++) {
                    put(values[l], indices[i]);
                }
                drain(values[l]);
            }
        }

        /** Buffers {@code v} for {@code digest}; each run of puts ends with a drain. */
        private void put(MessageDigest digest, int v) {
            if (!scratch.hasRemaining()) {
                drain(digest);
            }
            scratch.putInt(v);
        }

        private void drain(MessageDigest digest) {
            digest.update(scratch.array(), 0, scratch.position());
            scratch.clear();
        }

        String hex() {
            String rowsHex = HexFormat.of().formatHex(rows.digest());
            if (lengths.length == 0) {
                return rowsHex;
            }
            List<String> parts = new ArrayList<>();
            parts.add(rowsHex);
            for (int l = 0; l < lengths.length; l++) {
                parts.add(HexFormat.of().formatHex(lengths[l].digest()));
                parts.add(HexFormat.of().formatHex(values[l].digest()));
            }
            return combine(parts);
        }

        /** The sha256 of the digests' hex texts, in order. */
        static String combine(List<String> hexDigests) {
            MessageDigest all = sha256();
            for (String h : hexDigests) {
                all.update(h.getBytes(StandardCharsets.US_ASCII));
            }
            return HexFormat.of().formatHex(all.digest());
        }
    }

    private static InputStream open(Path input) throws IOException {
        return new BufferedInputStream(Files.newInputStream(input), 1 << 16);
    }

    /** The chunks of the input: an Avro container file's blocks for avro options, else lines. */
    private static Chunker chunker(InputStream in, int blockBytes, DecodeOptions options)
            throws IOException {
        if (options.events() != null && options.events().format() == InputFormat.AVRO) {
            return new AvroBlockChunker(in, 0, 0, blockBytes);
        }
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
