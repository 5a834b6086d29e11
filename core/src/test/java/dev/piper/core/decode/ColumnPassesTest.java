package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.ColumnPasses;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The decoder runs every chain: each output value equals the value the chain's operators give one
 * at a time (the pure functions of {@code dev.piper.operators.ops}, applied per value in chain
 * order), fused or not.
 */
class ColumnPassesTest {

    private static List<Op> dense(Op fill, Op... ops) {
        List<Op> chain = new ArrayList<>(List.of(new Op.Decode(), fill));
        chain.addAll(List.of(ops));
        return chain;
    }

    private static List<Op> sparse(Op fill, Op... ops) {
        List<Op> chain = new ArrayList<>(List.of(new Op.Decode(), fill, new Op.Hex2Int()));
        chain.addAll(List.of(ops));
        chain.add(new Op.Vocab());
        return chain;
    }

    private static final Op FILL = new Op.FillMissing();

    /** Every pass operator, on int32 and float32 values, with per-column parameters. */
    static ColumnProgram program() {
        List<List<Op>> chains = new ArrayList<>();
        chains.add(dense(new Op.FillNull(1)));
        chains.add(dense(new Op.FillNull(-7), new DenseOp.Neg2Zero(), new DenseOp.ClampOp(0, 50)));
        chains.add(
                dense(
                        FILL,
                        new DenseOp.ClampOp(-20, 20),
                        new DenseOp.Cast(Op.ValueType.float32),
                        new DenseOp.LogitOp(0.01)));
        chains.add(
                dense(
                        FILL,
                        new DenseOp.Neg2Zero(),
                        new DenseOp.Log(),
                        new DenseOp.BucketizeOp(new double[] {0.5, 1, 2, 3}, true)));
        chains.add(
                dense(
                        new Op.FillNull(3),
                        new DenseOp.BucketizeOp(new double[] {0, 2, 3, 5, 500, 1000}, false),
                        new DenseOp.Log()));
        chains.add(dense(FILL, new DenseOp.Neg2Zero(), new DenseOp.BoxCoxOp(0.5)));
        chains.add(dense(FILL, new DenseOp.Neg2Zero(), new DenseOp.BoxCoxOp(0)));
        chains.add(
                dense(
                        FILL,
                        new DenseOp.Cast(Op.ValueType.float32),
                        new DenseOp.ClampOp(-0.5, 0.5),
                        new DenseOp.Cast(Op.ValueType.int32)));
        chains.add(
                dense(
                        FILL,
                        new DenseOp.ClampOp(0, 100),
                        new DenseOp.Log(),
                        new DenseOp.Cast(Op.ValueType.int32)));
        for (int f = 9; f <= 13; f++) {
            chains.add(dense(FILL, new DenseOp.Neg2Zero(), new DenseOp.ClampOp(0, 100 * f)));
        }
        chains.add(sparse(FILL, new IdOp.SigridHashOp(0, 100)));
        chains.add(sparse(FILL, new IdOp.SigridHashOp(1, 1000), new IdOp.Modulus(7)));
        chains.add(sparse(FILL, new IdOp.Modulus(1000), new IdOp.SigridHashOp(3, 50)));
        chains.add(sparse(new Op.FillNull(12345)));
        for (int c = 4; c < 26; c++) {
            chains.add(
                    c % 2 == 0
                            ? sparse(FILL, new IdOp.SigridHashOp(c, 1L << 40))
                            : sparse(FILL, new IdOp.Modulus(97)));
        }
        return new ColumnProgram("all-ops", 1, chains, new int[26]);
    }

    /**
     * Seeded lines: dense values from -40 to 1,200, some from 16,000 to 20M, or empty; 8-digit hex
     * ids or empty.
     */
    static byte[] lines(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < n; r++) {
            sb.append(random.nextInt(2));
            for (int f = 1; f <= 13; f++) {
                sb.append('\t');
                if (random.nextInt(8) > 0) {
                    // mostly small counts; some beyond the log pass's table of small integers
                    sb.append(
                            random.nextInt(8) == 0
                                    ? random.nextInt(16_000, 20_000_000)
                                    : random.nextInt(-40, 1200));
                }
            }
            for (int c = 0; c < 26; c++) {
                sb.append('\t');
                if (random.nextInt(8) > 0) {
                    sb.append(String.format("%08x", random.nextInt() & 0xffffffffL));
                }
            }
            sb.append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** A dense value's output bits: the chain applied one operator and one value at a time. */
    static int expectedDense(List<Op> chain, String field) {
        long fill = chain.get(1) instanceof Op.FillNull n ? n.value() : 0;
        double v = field.isEmpty() ? fill : Long.parseLong(field);
        boolean isFloat = false;
        for (Op op : chain.subList(2, chain.size())) {
            if (op instanceof DenseOp.Neg2Zero) {
                v = v < 0 ? 0 : v;
            } else if (op instanceof DenseOp.ClampOp c) {
                if (isFloat) {
                    v = v < c.lo() ? (float) c.lo() : v > c.hi() ? (float) c.hi() : v;
                } else {
                    v = Math.min(Math.max(v, Math.ceil(c.lo())), Math.floor(c.hi()));
                }
            } else if (op instanceof DenseOp.Log) {
                v = (float) Math.log((float) v + 1f);
                isFloat = true;
            } else if (op instanceof DenseOp.BucketizeOp b) {
                v = b.bucketize().bucket(v);
                isFloat = false;
            } else if (op instanceof DenseOp.BoxCoxOp b) {
                v = (float) b.boxcox().transform(v);
                isFloat = true;
            } else if (op instanceof DenseOp.LogitOp l) {
                v = (float) l.logit().logit(v);
                isFloat = true;
            } else if (op instanceof DenseOp.Cast c) {
                isFloat = c.to() == Op.ValueType.float32;
                v = isFloat ? (float) v : (int) v;
            }
        }
        return isFloat ? Float.floatToRawIntBits((float) v) : (int) v;
    }

    static long expectedKey(List<Op> chain, String field) {
        long v =
                field.isEmpty()
                        ? (chain.get(1) instanceof Op.FillNull n ? n.value() : 0)
                        : Long.parseUnsignedLong(field, 16);
        for (Op op : chain.subList(3, chain.size() - 1)) {
            if (op instanceof IdOp.Modulus m) {
                v = Long.remainderUnsigned(v, m.m());
            } else if (op instanceof IdOp.SigridHashOp h) {
                v = h.hash().hash(v);
            }
        }
        return v;
    }

    @Test
    void everyValueIsItsChainAppliedOperatorByOperatorFusedOrNot() {
        ColumnProgram program = program();
        byte[] input = lines(3000, 42);
        String[] text = new String(input, StandardCharsets.US_ASCII).split("\n");
        DecodeOptions options = new DecodeOptions(program, false, 65536, 1024);
        for (boolean fuse : new boolean[] {true, false}) {
            CriteoDecoder decoder = new CriteoDecoder(options, false, fuse);
            CriteoDecoder.Decoded d = decoder.decode(new RawChunk(0, 0, input, input.length, -1));
            assertThat(d.dense().rows()).isEqualTo(3000);
            assertThat(d.dense().deadLetters()).isEmpty();
            int[] values = d.dense().labelDense();
            for (int r = 0; r < text.length; r++) {
                String[] fields = text[r].split("\t", -1);
                for (int f = 0; f <= 13; f++) {
                    int expected = expectedDense(program.chain(f), fields[f]);
                    int got = values[r * 14 + f];
                    if (expected != got) {
                        assertThat(got)
                                .as(
                                        "row %d %s %s of \"%s\" (fuse %s): %s vs %s",
                                        r,
                                        CriteoLayout.fieldName(f),
                                        program.chainOf(f),
                                        fields[f],
                                        fuse,
                                        Float.intBitsToFloat(got),
                                        Float.intBitsToFloat(expected))
                                .isEqualTo(expected);
                    }
                }
                for (int c = 0; c < 26; c++) {
                    long expected = expectedKey(program.chain(14 + c), fields[14 + c]);
                    assertThat(d.keys()[c].keys()[r])
                            .as("row %d C%d (fuse %s)", r, c + 1, fuse)
                            .isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void theSameOperatorOverSeveralColumnsIsOnePass() {
        ColumnProgram program = program();
        ColumnPasses fused = ColumnPasses.of(program, true);
        ColumnPasses unfused = ColumnPasses.of(program, false);
        int operators = 0;
        for (int f = 0; f < 40; f++) {
            operators += program.passOps(f).size();
        }
        assertThat(unfused.size()).isEqualTo(operators).isEqualTo(36);
        // stage 0: clamp of int32 (I1, I2, I8, I9..I13; each its own bounds), log (I3),
        // bucketize (I4), boxcox (I5, I6), cast (I7), sigrid_hash (C1, C2, C3 and the 11 even
        // columns from C5); stage 1: cast (I2), bucketize of float32 (I3), log (I4, I8), clamp of
        // float32 (I7), modulus (C2); stage 2: logit (I2), cast (I7, I8)
        assertThat(fused.size()).isEqualTo(6 + 5 + 2);
        ColumnProgram dlrm = ColumnProgram.dlrm(1000);
        assertThat(ColumnPasses.of(dlrm, true).isEmpty()).isTrue();
    }

    @Test
    void valuesSurviveEdgeCases() {
        // logit without eps at 0 and 1: -inf and +inf; boxcox of a negative: NaN; float32 to
        // int32 of NaN: 0
        List<List<Op>> chains = new ArrayList<>();
        chains.add(dense(FILL));
        chains.add(
                dense(FILL, new DenseOp.Cast(Op.ValueType.float32), DenseOp.LogitOp.unclamped()));
        chains.add(dense(FILL, new DenseOp.BoxCoxOp(2)));
        chains.add(
                dense(
                        FILL,
                        new DenseOp.BoxCoxOp(2),
                        new DenseOp.Cast(Op.ValueType.int32))); // NaN for negatives -> 0
        chains.add(dense(FILL, new DenseOp.ClampOp(-2147483648.0 * 4, 2147483647.0 * 4)));
        for (int f = 5; f <= 13; f++) {
            chains.add(dense(FILL));
        }
        for (int c = 0; c < 26; c++) {
            chains.add(sparse(FILL, new IdOp.SigridHashOp(c, 1)));
        }
        ColumnProgram p = new ColumnProgram("edges", 1, chains, new int[26]);
        String[] f = new String[40];
        java.util.Arrays.fill(f, "");
        f[1] = "1";
        f[2] = "-3";
        f[3] = "-3";
        f[4] = "-2147483648";
        f[14] = "ffffffffffffffff";
        byte[] line = (String.join("\t", f) + "\n").getBytes(StandardCharsets.US_ASCII);
        CriteoDecoder.Decoded d =
                new CriteoDecoder(new DecodeOptions(p, false, 65536, 1024))
                        .decode(new RawChunk(0, 0, line, line.length, -1));
        int[] v = d.dense().labelDense();
        assertThat(Float.intBitsToFloat(v[1])).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(Float.intBitsToFloat(v[2])).isNaN();
        assertThat(v[3]).isZero();
        assertThat(v[4]).isEqualTo(Integer.MIN_VALUE);
        for (int c = 0; c < 26; c++) {
            assertThat(d.keys()[c].keys()[0]).isZero(); // max 1: everything to 0
        }
    }

    /**
     * mapid in chains: columns naming the same table share it and run as one pass; before and after
     * other operators; with and without a default.
     */
    @Test
    void mapidMapsThroughItsTable(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = dir.resolve("ids.tsv");
        StringBuilder table = new StringBuilder();
        for (int k = 0; k < 50; k++) {
            table.append(k).append('\t').append(1000 + 3 * k).append('\n');
        }
        java.nio.file.Files.writeString(file, table);
        String path = file.toString();
        List<List<Op>> chains = new ArrayList<>();
        for (int f = 0; f <= 13; f++) {
            chains.add(dense(FILL));
        }
        chains.add(sparse(FILL, new IdOp.Modulus(100), new IdOp.MapIdOp(path, null)));
        chains.add(sparse(FILL, new IdOp.Modulus(100), new IdOp.MapIdOp(path, 7L)));
        chains.add(
                sparse(
                        FILL,
                        new IdOp.Modulus(100),
                        new IdOp.MapIdOp(path, 7L),
                        new IdOp.Modulus(10)));
        for (int c = 3; c < 26; c++) {
            chains.add(sparse(FILL));
        }
        ColumnProgram p = new ColumnProgram("mapid", 1, chains, new int[26]);
        assertThat(ColumnPasses.of(p, true).size()).isEqualTo(2); // mapid x3, then modulus
        assertThat(ColumnPasses.of(p, false).size()).isEqualTo(4);
        assertThat(p.keyBound(0)).isZero();
        assertThat(p.keyBound(2)).isEqualTo(10);
        byte[] input = lines(2000, 7);
        String[] text = new String(input, StandardCharsets.US_ASCII).split("\n");
        for (boolean fuse : new boolean[] {true, false}) {
            CriteoDecoder.Decoded d =
                    new CriteoDecoder(new DecodeOptions(p, false, 65536, 1024), false, fuse)
                            .decode(new RawChunk(0, 0, input, input.length, -1));
            for (int r = 0; r < text.length; r++) {
                String[] fields = text[r].split("\t", -1);
                for (int c = 0; c < 3; c++) {
                    String field = fields[14 + c];
                    long id = field.isEmpty() ? 0 : Long.parseUnsignedLong(field, 16);
                    long m = Long.remainderUnsigned(id, 100);
                    long mapped = m < 50 ? 1000 + 3 * m : c == 0 ? m : 7;
                    long expected = c == 2 ? mapped % 10 : mapped;
                    assertThat(d.keys()[c].keys()[r])
                            .as("row %d C%d (fuse %s)", r, c + 1, fuse)
                            .isEqualTo(expected);
                }
            }
        }
    }
}
