package dev.piper.connectors.parquet.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.connectors.parquet.ParquetLayout;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.core.decode.ColumnarDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multi-hot Parquet input: list columns in Parquet's three-level LIST form (optional elements,
 * nulls among them) and as a bare repeated column of hex text, and a generated column decoding a
 * dense column again, written with parquet-hadoop's example writer (pages v1 and v2, dictionary or
 * not, small pages so lists cross page boundaries), read block by block: every valid row is what
 * the text decoder makes of the same row as a line, and every bad one a dead letter.
 */
class ListParquetTest {

    @TempDir Path dir;

    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType(
                    """
                    message clicks {
                      required int32 label;
                      optional int32 I1;
                      optional int64 I2;
                      optional int64 C1;
                      optional group C2 (LIST) { repeated group list { optional int64 element; } }
                      repeated binary C3;
                    }
                    """);

    /** 2 dense, G1 decoding I1, C1 one id, C2 and C3 lists. */
    private static final RowLayout LAYOUT = new RowLayout(2, 3, List.of(1, 2), ',', List.of(0));

    private static ColumnProgram program() {
        List<List<Op>> chains = new ArrayList<>();
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        chains.add(List.of(new Op.Decode(), new Op.FillMissing(), new DenseOp.Neg2Zero()));
        chains.add(List.of(new Op.Decode(), new Op.FillNull(-5)));
        chains.add( // G1 <- I1
                List.of(
                        new Op.Decode(),
                        new Op.FillNull(3),
                        new DenseOp.BucketizeOp(new double[] {0, 10}, true)));
        chains.add(
                List.of(
                        new Op.Decode(),
                        new Op.FillMissing(),
                        new Op.Hex2Int(),
                        new IdOp.Modulus(1000),
                        new Op.Vocab()));
        chains.add(
                List.of(
                        new Op.Decode(),
                        new Op.FillNull(77),
                        new Op.Hex2Int(),
                        new IdOp.Modulus(50),
                        new IdOp.FirstXOp(2),
                        new Op.Vocab()));
        chains.add(
                List.of(
                        new Op.Decode(),
                        new Op.FillMissing(),
                        new Op.Hex2Int(),
                        new IdOp.SigridHashOp(0, 100),
                        new IdOp.NgramOp(2),
                        new Op.Vocab()));
        return new ColumnProgram("lists", 1, LAYOUT, chains, new int[3]);
    }

    /**
     * One row as written; null for a null value (a null list for C2), a null element inside C2's
     * list, {@code bad} the reason code the row's first bad value gives.
     */
    private record Row(
            int label, Integer i1, Long i2, Long c1, List<Long> c2, List<String> c3, String bad) {}

    private static List<Row> rows(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Integer i1 = random.nextInt(8) == 0 ? null : random.nextInt(-20, 20);
            Long i2 = random.nextInt(8) == 0 ? null : (long) random.nextInt();
            String bad = null;
            if (random.nextInt(60) == 0) {
                i2 = 1L << 40;
                bad = "dense_not_int32";
            }
            Long c1 = random.nextInt(8) == 0 ? null : random.nextLong();
            List<Long> c2 = null;
            if (random.nextInt(6) != 0) {
                c2 = new ArrayList<>();
                for (int k = random.nextInt(6); k > 0; k--) {
                    boolean nullElement = random.nextInt(80) == 0;
                    c2.add(nullElement ? null : random.nextLong());
                    if (nullElement && bad == null) {
                        bad = "categorical_not_hex";
                    }
                }
            }
            List<String> c3 = new ArrayList<>();
            for (int k = random.nextInt(6); k > 0; k--) {
                boolean badHex = random.nextInt(80) == 0;
                c3.add(badHex ? "zz" : Long.toHexString(random.nextLong(1L << 40)));
                if (badHex && bad == null) {
                    bad = "categorical_not_hex";
                }
            }
            rows.add(new Row(random.nextInt(2), i1, i2, c1, c2, c3, bad));
        }
        return rows;
    }

    /** A valid row as a text line of the layout (no generated field: it is not in the input). */
    private static String line(Row r) {
        List<String> c2 = new ArrayList<>();
        if (r.c2() != null) {
            for (Long id : r.c2()) {
                c2.add(Long.toHexString(id));
            }
        }
        return String.join(
                "\t",
                Integer.toString(r.label()),
                r.i1() == null ? "" : r.i1().toString(),
                r.i2() == null ? "" : r.i2().toString(),
                r.c1() == null ? "" : Long.toHexString(r.c1()),
                String.join(",", c2),
                String.join(",", r.c3()));
    }

    private Path write(List<Row> rows, WriterVersion version, boolean dictionary)
            throws IOException {
        Path file = dir.resolve(version + "-" + dictionary + ".parquet");
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> out =
                ParquetBlocks.writer(file, SCHEMA, version, dictionary, 1024, 70, 12 * 1024L)) {
            for (Row row : rows) {
                Group g = groups.newGroup();
                g.add("label", row.label());
                if (row.i1() != null) {
                    g.add("I1", row.i1());
                }
                if (row.i2() != null) {
                    g.add("I2", row.i2());
                }
                if (row.c1() != null) {
                    g.add("C1", row.c1());
                }
                if (row.c2() != null) {
                    Group list = g.addGroup("C2");
                    for (Long id : row.c2()) {
                        Group entry = list.addGroup("list");
                        if (id != null) {
                            entry.add("element", id);
                        }
                    }
                }
                for (String id : row.c3()) {
                    g.add("C3", id);
                }
                out.write(g);
            }
        }
        return file;
    }

    private static List<ColumnBlock> read(Path file, int blockRows) throws IOException {
        List<ColumnBlock> blocks = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFiles.open(new LocalInputFile(file))) {
            ParquetLayout layout =
                    ParquetLayout.bind(
                            LAYOUT,
                            reader.getFooter().getFileMetaData().getSchema(),
                            Map.of(),
                            "f");
            assertThat(layout.binding(3)).as("G1 has no column").isNull();
            assertThat(layout.binding(5).isList()).isTrue();
            assertThat(layout.binding(6).slotLevel()).isEqualTo(1);
            reader.setRequestedSchema(layout.projection());
            ColumnarDecoder decoder = new ColumnarDecoder(program());
            long first = 0;
            assertThat(reader.getRowGroups()).as("several row groups").hasSizeGreaterThan(2);
            for (int g = 0; g < reader.getRowGroups().size(); g++) {
                RowGroupBlocks groupBlocks =
                        new RowGroupBlocks(reader, layout, decoder, g, first, 1024);
                first += groupBlocks.rowsLeft();
                ColumnBlock b;
                while ((b = groupBlocks.next(0, blocks.size(), blockRows)) != null) {
                    blocks.add(b);
                }
            }
        }
        return blocks;
    }

    @Test
    void listsAndGeneratedColumnsDecodeAsTheirText() throws IOException {
        List<Row> rows = rows(2_000, 24);
        StringBuilder text = new StringBuilder();
        List<Integer> bad = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).bad() == null) {
                text.append(line(rows.get(i))).append('\n');
            } else {
                bad.add(i);
            }
        }
        assertThat(bad).hasSizeGreaterThan(20);
        byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
        CriteoDecoder.Decoded expected =
                new CriteoDecoder(new DecodeOptions(program(), false, 65536, 1024))
                        .decode(new RawChunk(0, 0, bytes, bytes.length, -1));
        assertThat(expected.dense().deadLetters()).isEmpty();

        for (WriterVersion version : WriterVersion.values()) {
            for (boolean dictionary : new boolean[] {true, false}) {
                Path file = write(rows, version, dictionary);
                for (int blockRows : new int[] {1, 97, 5000}) {
                    List<ColumnBlock> blocks = read(file, blockRows);
                    int row = 0;
                    List<Integer> deadRows = new ArrayList<>();
                    for (ColumnBlock b : blocks) {
                        for (int r = 0; r < b.rows(); r++, row++) {
                            String at = version + " " + dictionary + " row " + row;
                            assertThat(Arrays.copyOfRange(b.labelDense(), r * 4, r * 4 + 4))
                                    .as(at)
                                    .isEqualTo(
                                            Arrays.copyOfRange(
                                                    expected.dense().labelDense(),
                                                    row * 4,
                                                    row * 4 + 4));
                            assertThat(b.keys()[0][r]).isEqualTo(expected.keys()[0].keys()[row]);
                            for (int c = 1; c <= 2; c++) {
                                int[] o = b.offsets()[c];
                                int[] eo = expected.keys()[c].offsets();
                                assertThat(Arrays.copyOfRange(b.keys()[c], o[r], o[r + 1]))
                                        .as(at + " C" + (c + 1))
                                        .isEqualTo(
                                                Arrays.copyOfRange(
                                                        expected.keys()[c].keys(),
                                                        eo[row],
                                                        eo[row + 1]));
                            }
                        }
                        for (DeadLetter d : b.deadLetters()) {
                            int at = (int) (b.firstRow() + d.lineInBlock());
                            deadRows.add(at);
                            assertThat(d.reason()).isEqualTo(rows.get(at).bad());
                            if (rows.get(at).bad().equals("categorical_not_hex")) {
                                assertThat(d.detail()).matches("C[23]: id \\d+ of the list.*");
                            }
                        }
                    }
                    assertThat(row).isEqualTo(expected.dense().rows());
                    assertThat(deadRows).isEqualTo(bad);
                }
            }
        }
    }

    @Test
    void aListColumnNeedsAListAndAValueColumnNeedsAValue() throws IOException {
        Path file = write(rows(10, 1), WriterVersion.PARQUET_2_0, true);
        try (ParquetFileReader reader = ParquetFiles.open(new LocalInputFile(file))) {
            MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            RowLayout noLists = new RowLayout(2, 3);
            assertThatThrownBy(() -> ParquetLayout.bind(noLists, schema, Map.of(), "f.parquet"))
                    .hasMessage(
                            "f.parquet: field C2: a group, not a value column (a list? name the"
                                    + " field in input.list_columns)");
            RowLayout c1List = new RowLayout(2, 3, List.of(0, 1, 2), ',');
            assertThatThrownBy(() -> ParquetLayout.bind(c1List, schema, Map.of(), "f.parquet"))
                    .hasMessage(
                            "f.parquet: field C1: one value per row; a list column needs a LIST"
                                    + " (repeated) column");
        }
    }
}
