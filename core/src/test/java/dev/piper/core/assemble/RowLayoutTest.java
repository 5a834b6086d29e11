package dev.piper.core.assemble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.decode.ColumnarDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.ops.SigridHash;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Layouts other than Criteo's through the operators: names, the text decoder (fast and full path),
 * the column passes, the columnar decoder and the concatenation, for a layout of 3 dense and 2
 * sparse columns and a wide one (PreSto's 504 and 42).
 */
class RowLayoutTest {

    private static final RowLayout SMALL = new RowLayout(3, 2);

    @Test
    void namesAndFieldNumbers() {
        assertThat(SMALL.fields()).isEqualTo(6);
        assertThat(SMALL.labelDenseWidth()).isEqualTo(4);
        assertThat(SMALL.rowBytes()).isEqualTo(24);
        assertThat(SMALL.sparseField(1)).isEqualTo(5);
        assertThat(List.of(0, 1, 3, 4, 5).stream().map(SMALL::fieldName))
                .containsExactly("label", "I1", "I3", "C1", "C2");
        assertThat(SMALL.fieldOf("label")).isZero();
        assertThat(SMALL.fieldOf("I3")).isEqualTo(3);
        assertThat(SMALL.fieldOf("C2")).isEqualTo(5);
        for (String bad :
                List.of("I4", "C3", "I0", "I01", "C", "X1", "i1", "I-1", "C99999999999")) {
            assertThat(SMALL.fieldOf(bad)).as(bad).isEqualTo(-1);
        }
        RowLayout wide = new RowLayout(504, 42);
        assertThat(wide.fieldOf("I504")).isEqualTo(504);
        assertThat(wide.fieldOf("C42")).isEqualTo(546);
        assertThat(wide.fieldName(546)).isEqualTo("C42");
        assertThat(RowLayout.CRITEO.fields()).isEqualTo(CriteoLayout.FIELDS);
        assertThat(RowLayout.CRITEO.rowBytes()).isEqualTo(CriteoLayout.ROW_BYTES);
        assertThat(RowLayout.CRITEO).hasToString("13 dense, 26 sparse");
    }

    @Test
    void boundsAreEnforced() {
        assertThatThrownBy(() -> new RowLayout(0, 26))
                .hasMessage("dense columns must be 1 to 4096, not 0");
        assertThatThrownBy(() -> new RowLayout(13, 1025))
                .hasMessage("sparse columns must be 1 to 1024, not 1025");
    }

    /** label; I1 plain; I2 neg2zero then log; I3 clamp; C1 modulus 7; C2 sigrid_hash(3, 100). */
    private static ColumnProgram smallProgram() {
        List<List<Op>> chains = new ArrayList<>();
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        chains.add(List.of(new Op.Decode(), new Op.FillNull(-9)));
        chains.add(
                List.of(
                        new Op.Decode(),
                        new Op.FillMissing(),
                        new DenseOp.Neg2Zero(),
                        new DenseOp.Log()));
        chains.add(List.of(new Op.Decode(), new Op.FillMissing(), new DenseOp.ClampOp(0, 10)));
        chains.add(
                List.of(
                        new Op.Decode(),
                        new Op.FillMissing(),
                        new Op.Hex2Int(),
                        new IdOp.Modulus(7),
                        new Op.Vocab()));
        chains.add(
                List.of(
                        new Op.Decode(),
                        new Op.FillNull(5),
                        new Op.Hex2Int(),
                        new IdOp.SigridHashOp(3, 100),
                        new Op.Vocab()));
        return new ColumnProgram("small", 1, SMALL, chains, new int[2]);
    }

    @Test
    void aProgramNeedsOneChainPerFieldOfItsLayout() {
        ColumnProgram p = smallProgram();
        assertThat(p.layout()).isEqualTo(SMALL);
        assertThat(p.modulus(0)).isEqualTo(7);
        assertThat(p.modulus(1)).isEqualTo(-1);
        assertThat(p.keyBound(1)).isEqualTo(100);
        assertThat(p.fill(1)).isEqualTo(-9);
        assertThat(p.fill(5)).isEqualTo(5);
        List<List<Op>> tooFew = new ArrayList<>();
        for (int f = 0; f < 5; f++) {
            tooFew.add(p.chain(f));
        }
        assertThatThrownBy(() -> new ColumnProgram("x", 1, SMALL, tooFew, new int[2]))
                .hasMessage("one chain per field (6) expected, got 5");
        List<List<Op>> denseAsSparse = new ArrayList<>();
        for (int f = 0; f < 6; f++) {
            denseAsSparse.add(p.chain(f == 4 ? 3 : f));
        }
        assertThatThrownBy(() -> new ColumnProgram("x", 1, SMALL, denseAsSparse, new int[2]))
                .hasMessageStartingWith("C1");
        ColumnProgram wide = ColumnProgram.dlrm(new RowLayout(504, 42), 1000);
        assertThat(wide.dlrmMaxIndRange()).hasValue(1000);
        assertThat(wide.chainOf(546)).isEqualTo("decode fill_missing hex2int modulus(1000) vocab");
    }

    /** What the small program makes of one line's fields, written out by hand. */
    private static int[] expectedLabelDense(String[] f) {
        int i1 = f[1].isEmpty() ? -9 : Integer.parseInt(f[1]);
        int i2 = f[2].isEmpty() ? 0 : Math.max(0, Integer.parseInt(f[2]));
        int i3 = f[3].isEmpty() ? 0 : Math.min(10, Math.max(0, Integer.parseInt(f[3])));
        return new int[] {
            Integer.parseInt(f[0]),
            i1,
            Float.floatToRawIntBits((float) Math.log((float) i2 + 1f)),
            i3
        };
    }

    private static long[] expectedKeys(String[] f) {
        long c1 = f[4].isEmpty() ? 0 : Long.parseUnsignedLong(f[4], 16);
        long c2 = f[5].isEmpty() ? 5 : Long.parseUnsignedLong(f[5], 16);
        return new long[] {Long.remainderUnsigned(c1, 7), new SigridHash(3, 100).hash(c2)};
    }

    /**
     * Seeded random lines of the small layout, some with empty fields, some malformed (a field too
     * many or too few, a bad id): the text decoder gives each accepted line the hand-computed
     * values, and each rejected one a dead letter naming the layout's field count or field.
     */
    @Test
    void theTextDecoderReadsAnotherLayout() {
        SplittableRandom random = new SplittableRandom(2026_11_24L);
        StringBuilder text = new StringBuilder();
        List<String[]> valid = new ArrayList<>();
        int bad = 0;
        for (int i = 0; i < 500; i++) {
            String[] f = new String[6];
            f[0] = Integer.toString(random.nextInt(2));
            for (int j = 1; j <= 3; j++) {
                f[j] = random.nextInt(10) == 0 ? "" : Integer.toString(random.nextInt(-50, 50));
            }
            for (int j = 4; j <= 5; j++) {
                f[j] =
                        random.nextInt(10) == 0
                                ? ""
                                : Long.toHexString(
                                        random.nextBoolean()
                                                ? random.nextLong(1L << 32)
                                                : random.nextLong());
            }
            String line = String.join("\t", f);
            int kind = random.nextInt(20);
            if (kind == 0) {
                line += "\tff"; // 7 fields
                bad++;
            } else if (kind == 1) {
                line = line.substring(0, line.lastIndexOf('\t')); // 5 fields
                bad++;
            } else if (kind == 2) {
                line = line.substring(0, line.lastIndexOf('\t')) + "\tzz";
                bad++;
            } else {
                valid.add(f);
            }
            text.append(line).append('\n');
        }
        byte[] data = text.toString().getBytes(StandardCharsets.UTF_8);
        DecodeOptions options = new DecodeOptions(smallProgram(), false, 1024, 256);
        CriteoDecoder.Decoded d =
                new CriteoDecoder(options).decode(new RawChunk(0, 0, data, data.length, -1));

        assertThat(d.dense().layout()).isEqualTo(SMALL);
        assertThat(d.dense().lines()).isEqualTo(500);
        assertThat(d.dense().rows()).isEqualTo(valid.size());
        assertThat(d.dense().deadLetters()).hasSize(bad);
        assertThat(d.keys()).hasSize(2);
        for (DeadLetter letter : d.dense().deadLetters()) {
            assertThat(letter.detail())
                    .matches(
                            "expected 6 tab-separated fields, found [57]|C2: \"zz\" is not hexadecimal");
        }
        for (int r = 0; r < valid.size(); r++) {
            int[] row = new int[4];
            System.arraycopy(d.dense().labelDense(), r * 4, row, 0, 4);
            assertThat(row).as("row %d", r).containsExactly(expectedLabelDense(valid.get(r)));
            long[] keys = expectedKeys(valid.get(r));
            assertThat(d.keys()[0].keys()[r]).isEqualTo(keys[0]);
            assertThat(d.keys()[1].keys()[r]).isEqualTo(keys[1]);
        }

        // The columnar decoder, given the same values as a reader would, agrees.
        int rows = valid.size();
        int[] labelDense = new int[rows * 4];
        long[][] ids = new long[2][rows];
        long[][] missing = new long[6][ColumnBlock.words(rows)];
        for (int r = 0; r < rows; r++) {
            String[] f = valid.get(r);
            for (int j = 0; j < 6; j++) {
                if (f[j].isEmpty()) {
                    missing[j][r >>> 6] |= 1L << r;
                } else if (j < 4) {
                    labelDense[r * 4 + j] = Integer.parseInt(f[j]);
                } else {
                    ids[j - 4][r] = Long.parseUnsignedLong(f[j], 16);
                }
            }
        }
        ColumnarDecoder columnar = new ColumnarDecoder(smallProgram());
        for (int f = 0; f < 6; f++) {
            columnar.apply(f, labelDense, ids, missing[f], rows);
        }
        columnar.runPasses(labelDense, ids, rows);
        assertThat(labelDense)
                .containsExactly(java.util.Arrays.copyOf(d.dense().labelDense(), rows * 4));
        assertThat(ids[0]).containsExactly(java.util.Arrays.copyOf(d.keys()[0].keys(), rows));
        assertThat(ids[1]).containsExactly(java.util.Arrays.copyOf(d.keys()[1].keys(), rows));
    }

    /** The concatenation writes rows of the block's layout: label, 3 dense, 2 indices. */
    @Test
    void theConcatenationWritesRowsOfTheBlocksLayout() {
        String text = "1\t2\t3\t4\ta\tb\n0\t\t-3\t99\t\t\n";
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        CriteoDecoder.Decoded d =
                new CriteoDecoder(new DecodeOptions(smallProgram(), false, 1024, 256))
                        .decode(new RawChunk(4, 0, data, data.length, -1));
        IndexChunk[] indices = {
            new IndexChunk(0, 4, new int[] {0, 1}, 2, 0, new long[] {3, 0}),
            new IndexChunk(1, 4, new int[] {7, 8}, 2, 7, new long[] {11, 12})
        };
        AssembledBlock block = RowAssembly.assemble(d.dense(), indices);
        assertThat(block.rows()).isEqualTo(2);
        assertThat(block.rowBytes()).hasSize(2 * 24);
        ByteBuffer b = ByteBuffer.wrap(block.rowBytes()).order(ByteOrder.LITTLE_ENDIAN);
        int[] values = new int[12];
        for (int i = 0; i < 12; i++) {
            values[i] = b.getInt();
        }
        int log3 = Float.floatToRawIntBits((float) Math.log(3f + 1f));
        assertThat(values).containsExactly(1, 2, log3, 4, 0, 7, 0, -9, 0, 10, 1, 8);
        assertThat(block.epochs()).hasSize(2);
        assertThatThrownBy(() -> RowAssembly.assemble(d.dense(), new IndexChunk[] {indices[0]}))
                .hasMessageContaining("1 index chunks for 3 dense, 2 sparse");
    }

    /**
     * Generated columns decode a dense field again with chains of their own: G1 and G3 read I1, G2
     * reads I3. Lines with a "+" sign take the full path, the others the fast path: both give the
     * values written out by hand.
     */
    @Test
    void generatedColumnsDecodeTheirSourceAgain() {
        RowLayout layout = new RowLayout(3, 2, List.of(), ',', List.of(0, 2, 0));
        assertThat(layout.labelDenseWidth()).isEqualTo(7);
        assertThat(layout.fields()).isEqualTo(9);
        assertThat(layout.inputFields()).isEqualTo(6);
        assertThat(layout.fieldName(5)).isEqualTo("G2");
        assertThat(layout.fieldName(7)).isEqualTo("C1");
        assertThat(layout.fieldOf("G3")).isEqualTo(6);
        assertThat(layout.fieldOf("C2")).isEqualTo(8);
        assertThat(layout.fieldOfInput(4)).isEqualTo(7);
        assertThat(layout.rowBytes()).isEqualTo(9 * 4);
        assertThat(layout).hasToString("3 dense, 2 sparse, 3 generated");
        List<List<Op>> chains = new ArrayList<>();
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        chains.add(List.of(new Op.Decode(), new Op.FillMissing(), new DenseOp.Neg2Zero()));
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        chains.add( // G1 <- I1
                List.of(
                        new Op.Decode(),
                        new Op.FillNull(-1),
                        new DenseOp.BucketizeOp(new double[] {0, 10}, true)));
        chains.add(
                List.of(new Op.Decode(), new Op.FillNull(7), new DenseOp.Neg2Zero())); // G2 <- I3
        chains.add(List.of(new Op.Decode(), new Op.FillMissing())); // G3 <- I1
        chains.add(
                List.of(new Op.Decode(), new Op.FillMissing(), new Op.Hex2Int(), new Op.Vocab()));
        chains.add(
                List.of(new Op.Decode(), new Op.FillMissing(), new Op.Hex2Int(), new Op.Vocab()));
        ColumnProgram program = new ColumnProgram("g", 1, layout, chains, new int[2]);
        SplittableRandom random = new SplittableRandom(5);
        StringBuilder text = new StringBuilder();
        List<int[]> expected = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String[] f = new String[6];
            f[0] = "1";
            Integer[] v = new Integer[4];
            for (int j = 1; j <= 3; j++) {
                v[j] = random.nextInt(6) == 0 ? null : random.nextInt(-20, 20);
                f[j] = v[j] == null ? "" : (random.nextInt(5) == 0 && v[j] >= 0 ? "+" : "") + v[j];
            }
            f[4] = "ab";
            f[5] = "";
            text.append(String.join("\t", f)).append('\n');
            int i1 = v[1] == null ? 0 : v[1];
            int g1 = v[1] == null ? -1 : v[1];
            int bucket = g1 > 10 ? 2 : g1 > 0 ? 1 : 0;
            expected.add(
                    new int[] {
                        1,
                        Math.max(0, i1),
                        v[2] == null ? 0 : v[2],
                        v[3] == null ? 0 : v[3],
                        bucket,
                        v[3] == null ? 7 : Math.max(0, v[3]),
                        i1
                    });
        }
        byte[] data = text.toString().getBytes(StandardCharsets.UTF_8);
        CriteoDecoder.Decoded d =
                new CriteoDecoder(new DecodeOptions(program, false, 1024, 256))
                        .decode(new RawChunk(0, 0, data, data.length, -1));
        assertThat(d.dense().deadLetters()).isEmpty();
        for (int r = 0; r < expected.size(); r++) {
            assertThat(java.util.Arrays.copyOfRange(d.dense().labelDense(), r * 7, r * 7 + 7))
                    .as("row %d", r)
                    .containsExactly(expected.get(r));
        }
        assertThat(d.keys()[0].keys()[0]).isEqualTo(0xab);
        String wrong = "1\t2\t3\t4\tab\n";
        byte[] bytes = wrong.getBytes(StandardCharsets.UTF_8);
        assertThat(
                        new CriteoDecoder(new DecodeOptions(program, false, 1024, 256))
                                .decode(new RawChunk(0, 0, bytes, bytes.length, -1))
                                .dense()
                                .deadLetters()[0]
                                .detail())
                .isEqualTo("expected 6 tab-separated fields, found 5");
    }

    /**
     * A dense chain ending in onehot keeps the category in the block; the concatenation writes its
     * size - 1 indicator columns in its place (I2: bucketize into 3 buckets, onehot(3)).
     */
    @Test
    void onehotColumnsExpandWhereTheRowIsWritten() {
        RowLayout layout = new RowLayout(2, 1);
        List<List<Op>> chains = new ArrayList<>();
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        chains.add(
                List.of(
                        new Op.Decode(),
                        new Op.FillMissing(),
                        new DenseOp.BucketizeOp(new double[] {0, 10}, true),
                        new DenseOp.OneHotOp(3)));
        chains.add(
                List.of(new Op.Decode(), new Op.FillMissing(), new Op.Hex2Int(), new Op.Vocab()));
        ColumnProgram program = new ColumnProgram("oh", 1, layout, chains, new int[1]);
        assertThat(program.onehotSizes()).containsExactly(0, 0, 3);
        assertThat(program.rowBytes()).isEqualTo(5 * 4);
        assertThat(ColumnProgram.dlrm(0).onehotSizes()).isNull();
        String text = "1\t7\t-3\ta\n0\t8\t5\tb\n1\t9\t50\tc\n";
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        CriteoDecoder.Decoded d =
                new CriteoDecoder(new DecodeOptions(program, false, 1024, 256))
                        .decode(new RawChunk(0, 0, data, data.length, -1));
        assertThat(d.dense().labelDense()).startsWith(1, 7, 0, 0, 8, 1, 1, 9, 2);
        IndexChunk[] indices = {new IndexChunk(0, 0, new int[] {0, 1, 2}, 3, 0, new long[0])};
        AssembledBlock block = RowAssembly.assemble(d.dense(), indices);
        ByteBuffer b = ByteBuffer.wrap(block.rowBytes()).order(ByteOrder.LITTLE_ENDIAN);
        int[] values = new int[15];
        for (int i = 0; i < 15; i++) {
            values[i] = b.getInt();
        }
        assertThat(values)
                .containsExactly(
                        1, 7, 1, 0, 0, // bucket 0
                        0, 8, 0, 1, 1, // bucket 1
                        1, 9, 0, 0, 2); // bucket 2: the last, dropped
    }

    /** PreSto's production mix (504 dense, 42 sparse) decodes like the same values written out. */
    @Test
    void aWideLayoutDecodes() {
        RowLayout wide = new RowLayout(504, 42);
        SplittableRandom random = new SplittableRandom(7);
        StringBuilder text = new StringBuilder();
        int[][] dense = new int[20][505];
        long[][] keys = new long[20][42];
        for (int r = 0; r < 20; r++) {
            List<String> f = new ArrayList<>();
            for (int j = 0; j <= 504; j++) {
                dense[r][j] = random.nextInt(-1000, 1000);
                f.add(Integer.toString(dense[r][j]));
            }
            for (int c = 0; c < 42; c++) {
                keys[r][c] = random.nextLong(1L << 32);
                f.add(String.format("%08x", keys[r][c]));
            }
            text.append(String.join("\t", f)).append('\n');
        }
        byte[] data = text.toString().getBytes(StandardCharsets.UTF_8);
        DecodeOptions options = new DecodeOptions(ColumnProgram.raw(wide), false, 1 << 16, 256);
        CriteoDecoder.Decoded d =
                new CriteoDecoder(options).decode(new RawChunk(0, 0, data, data.length, -1));
        assertThat(d.dense().rows()).isEqualTo(20);
        assertThat(d.keys()).hasSize(42);
        for (int r = 0; r < 20; r++) {
            for (int j = 0; j <= 504; j++) {
                assertThat(d.dense().labelDense()[r * 505 + j]).isEqualTo(dense[r][j]);
            }
            for (int c = 0; c < 42; c++) {
                assertThat(d.keys()[c].keys()[r]).isEqualTo(keys[r][c]);
            }
        }
    }
}
