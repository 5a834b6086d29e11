package dev.piper.core.assemble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.Chains;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Ngram;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.ops.SigridHash;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * List (multi-hot) columns through the text decoder, the column passes and the concatenation: a
 * layout of 2 dense and 3 sparse columns, C2 and C3 lists separated by '|'. Each accepted line's
 * expected values are computed here from its text; each rejected one's reason names the list and
 * the id.
 */
class ListColumnsTest {

    private static final RowLayout LAYOUT = new RowLayout(2, 3, List.of(1, 2), '|');

    /**
     * C1 scalar; C2 fill_null(1234), modulus(1000) (fused into the parser), firstx(3); C3
     * fill_null(7), sigrid_hash(0,100), ngram(2).
     */
    private static ColumnProgram program() {
        List<List<Op>> chains = new ArrayList<>();
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        chains.add(List.of(new Op.Decode(), new Op.FillMissing(), new DenseOp.Neg2Zero()));
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        chains.add(
                List.of(new Op.Decode(), new Op.FillMissing(), new Op.Hex2Int(), new Op.Vocab()));
        chains.add(
                List.of(
                        new Op.Decode(),
                        new Op.FillNull(1234),
                        new Op.Hex2Int(),
                        new IdOp.Modulus(1000),
                        new IdOp.FirstXOp(3),
                        new Op.Vocab()));
        chains.add(
                List.of(
                        new Op.Decode(),
                        new Op.FillNull(7),
                        new Op.Hex2Int(),
                        new IdOp.SigridHashOp(0, 100),
                        new IdOp.NgramOp(2),
                        new Op.Vocab()));
        return new ColumnProgram("lists", 1, LAYOUT, chains, new int[3]);
    }

    @Test
    void theLayoutNamesItsLists() {
        assertThat(LAYOUT).hasToString("2 dense, 3 sparse (lists: C2..C3, separated by '|')");
        assertThat(LAYOUT.rowBytes()).isEqualTo(4 * 4);
        assertThat(LAYOUT.scalarColumns()).containsExactly(0);
        assertThat(Chains.kindOf(LAYOUT, 4)).isEqualTo(Chains.Kind.list);
        assertThat(Chains.kindOf(LAYOUT, 3)).isEqualTo(Chains.Kind.sparse);
        assertThat(RowLayout.ranges(List.of(0, 1, 2, 5, 7, 8))).isEqualTo("C1..C3, C6, C8..C9");
        assertThatThrownBy(() -> new RowLayout(2, 3, List.of(3), ','))
                .hasMessageContaining("distinct sparse columns in ascending order");
        assertThatThrownBy(() -> new RowLayout(2, 3, List.of(1), 'a'))
                .hasMessageContaining("other than a hex digit, not 'a'");
        // firstx and ngram belong to lists only
        List<Op> scalarWithFirstx =
                List.of(
                        new Op.Decode(),
                        new Op.FillMissing(),
                        new Op.Hex2Int(),
                        new IdOp.FirstXOp(2),
                        new Op.Vocab());
        assertThat(Chains.check(Chains.Kind.sparse, scalarWithFirstx))
                .hasValueSatisfying(
                        p -> assertThat(p.message()).startsWith("firstx does not apply to sparse"));
        assertThat(Chains.check(Chains.Kind.list, scalarWithFirstx)).isEmpty();
    }

    private static String hex(long id, SplittableRandom random) {
        String h = Long.toHexString(id);
        return random.nextBoolean() ? h : h.toUpperCase();
    }

    /**
     * An id as the decoder meets them: 8 digits (Criteo's and the generator's, which the fast path
     * reads as one word), up to 16, or a short one.
     */
    private static String anyId(SplittableRandom random) {
        return switch (random.nextInt(3)) {
            case 0 -> String.format("%08x", random.nextLong(1L << 32));
            case 1 -> hex(random.nextLong(), random);
            default -> hex(random.nextLong(4096), random);
        };
    }

    @Test
    void listsDecodeElementWiseWithTheirOperators() {
        SplittableRandom random = new SplittableRandom(20261124);
        StringBuilder text = new StringBuilder();
        List<String[]> valid = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            String[] f = new String[6];
            f[0] = Integer.toString(random.nextInt(2));
            f[1] = random.nextInt(8) == 0 ? "" : Integer.toString(random.nextInt(-5, 50));
            f[2] = Integer.toString(random.nextInt(1000));
            f[3] = random.nextInt(8) == 0 ? "" : hex(random.nextLong(1L << 32), random);
            for (int c = 4; c <= 5; c++) {
                int len = random.nextInt(7);
                String[] ids = new String[len];
                for (int j = 0; j < len; j++) {
                    ids[j] = anyId(random);
                }
                f[c] = String.join("|", ids);
            }
            int kind = random.nextInt(25);
            String[] line = f.clone();
            if (kind == 0) {
                line[4] = "a||b";
                reasons.add("C2: id 2 of the list, \"\", is empty");
            } else if (kind == 1) {
                line[5] = "ab|zz"; // C2's ids, read before C3 fails, must not stay
                reasons.add("C3: id 2 of the list, \"zz\", is not hexadecimal");
            } else if (kind == 2) {
                line[4] = "1|fffffffffffffffff";
                reasons.add("C2: id 2 of the list, \"fffffffffffffffff\", does not fit in 64 bits");
            } else if (kind == 3) {
                line[4] = line[4] + "|";
                reasons.add(
                        "C2: id "
                                + (f[4].isEmpty() ? 1 : f[4].split("\\|").length + 1)
                                + " of the list, \"\", is empty");
            } else {
                valid.add(f);
            }
            text.append(String.join("\t", line)).append(random.nextInt(5) == 0 ? "\r\n" : "\n");
        }
        byte[] data = text.toString().getBytes(StandardCharsets.UTF_8);
        CriteoDecoder.Decoded d =
                new CriteoDecoder(new DecodeOptions(program(), false, 1 << 16, 256))
                        .decode(new RawChunk(0, 0, data, data.length, -1));

        assertThat(d.dense().rows()).isEqualTo(valid.size());
        assertThat(d.dense().deadLetters())
                .extracting(DeadLetter::detail)
                .containsExactlyElementsOf(reasons);
        KeyChunk c1 = d.keys()[0];
        KeyChunk c2 = d.keys()[1];
        KeyChunk c3 = d.keys()[2];
        assertThat(c1.offsets()).isNull();
        assertThat(c2.rows()).isEqualTo(valid.size());
        assertThat(c3.rows()).isEqualTo(valid.size());
        SigridHash sigrid = new SigridHash(0, 100);
        Ngram bigram = new Ngram(2);
        for (int r = 0; r < valid.size(); r++) {
            String[] f = valid.get(r);
            assertThat(d.dense().labelDense()[r * 3 + 1])
                    .isEqualTo(f[1].isEmpty() ? 0 : Math.max(0, Integer.parseInt(f[1])));
            assertThat(c1.keys()[r])
                    .isEqualTo(f[3].isEmpty() ? 0 : Long.parseUnsignedLong(f[3], 16));
            long[] ids2 = f[4].isEmpty() ? new long[] {1234} : ids(f[4]);
            long[] want2 = new long[Math.min(3, ids2.length)];
            for (int j = 0; j < want2.length; j++) {
                want2[j] = Long.remainderUnsigned(ids2[j], 1000);
            }
            assertThat(Arrays.copyOfRange(c2.keys(), c2.offsets()[r], c2.offsets()[r + 1]))
                    .as("C2 of row %d: %s", r, f[4])
                    .containsExactly(want2);
            long[] ids3 = f[5].isEmpty() ? new long[] {7} : ids(f[5]);
            long[] hashed = new long[ids3.length];
            for (int j = 0; j < ids3.length; j++) {
                hashed[j] = sigrid.hash(ids3[j]);
            }
            long[] want3 = new long[Math.max(0, hashed.length - 1)];
            for (int j = 0; j < want3.length; j++) {
                want3[j] = bigram.gram(hashed, j);
            }
            assertThat(Arrays.copyOfRange(c3.keys(), c3.offsets()[r], c3.offsets()[r + 1]))
                    .as("C3 of row %d: %s", r, f[5])
                    .containsExactly(want3);
        }
        assertThat(c2.size()).isEqualTo(c2.offsets()[valid.size()]);

        // The concatenation: rows of label, I1, I2, C1's index; each list column's offsets and
        // indices apart, as its index chunk has them.
        IndexChunk[] indices = new IndexChunk[3];
        for (int c = 0; c < 3; c++) {
            KeyChunk k = d.keys()[c];
            int[] idx = new int[k.size()];
            for (int i = 0; i < idx.length; i++) {
                idx[i] = i * 10 + c;
            }
            indices[c] = new IndexChunk(0, c, 0, idx, k.size(), 0, new long[0], 0, k.offsets());
        }
        AssembledBlock block = RowAssembly.assemble(d.dense(), indices);
        assertThat(block.rowBytes()).hasSize(valid.size() * 16);
        ByteBuffer b = ByteBuffer.wrap(block.rowBytes()).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.getInt(12)).isEqualTo(0); // C1's index of row 0
        assertThat(b.getInt(16 + 12)).isEqualTo(10);
        assertThat(block.listOffsets()).hasNumberOfRows(2);
        assertThat(block.listOffsets()[0]).containsExactly(c2.offsets());
        assertThat(block.listIndices()[1]).hasSize(c3.size());
        assertThat(block.listIndices()[1][c3.size() - 1]).isEqualTo((c3.size() - 1) * 10 + 2);
    }

    /**
     * The cost report's field bytes of list columns: each accepted line's fields with their
     * delimiter, whichever path decodes them (the fast path reads "00ab|00cd" as two words, the
     * full rules take a 17-digit id).
     */
    @Test
    void countsListFieldBytesOfTheAcceptedLines() {
        String[] lines = {
            "1\t5\t6\t0000abcd\t0000abcd|00000001\t",
            "0\t\t7\tab\t1|2|3\t0000000000000000ff|00000002",
            "0\t1\t2\t3\t4|xx\t5",
            "1\t-3\t8\t\t\t0000abcd|00000001|12345678"
        };
        byte[] data = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.US_ASCII);
        CriteoDecoder.Decoded d =
                new CriteoDecoder(new DecodeOptions(program(), false, 1 << 16, 256))
                        .decode(new RawChunk(0, 0, data, data.length, -1), true);
        assertThat(d.dense().rows()).isEqualTo(3);
        int[] expected = new int[6];
        for (int i : new int[] {0, 1, 3}) {
            String[] fields = lines[i].split("\t", -1);
            for (int f = 0; f < 6; f++) {
                expected[f] += fields[f].length() + 1;
            }
        }
        assertThat(d.fieldBytes()).containsExactly(expected);
        // C2: modulus 1000; the last row's empty list is fill_null's 1234
        assertThat(Arrays.copyOf(d.keys()[1].keys(), d.keys()[1].size()))
                .containsExactly(0xabcd % 1000, 1, 1, 2, 3, 234);
        assertThat(d.keys()[1].offsets()).startsWith(0, 2, 5, 6);
    }

    private static long[] ids(String field) {
        if (field.isEmpty()) {
            return new long[0];
        }
        return Arrays.stream(field.split("\\|"))
                .mapToLong(h -> Long.parseUnsignedLong(h, 16))
                .toArray();
    }
}
