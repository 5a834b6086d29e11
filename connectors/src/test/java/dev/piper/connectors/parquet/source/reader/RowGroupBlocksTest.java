package dev.piper.connectors.parquet.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.connectors.parquet.ParquetLayout;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.core.decode.ColumnarDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
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
 * A Parquet file written by parquet-hadoop's own example writer, with every column type the layout
 * takes, nulls, bad values, a renamed and an extra column, decodes block by block to what the same
 * rows decode to as Criteo text under the same program; its bad rows become the dead letters the
 * layout documents. Each file is written four ways (data pages v1 and v2, dictionary or plain),
 * with small pages and row groups so that blocks cross page and row-group boundaries.
 */
class RowGroupBlocksTest {

    @TempDir Path dir;

    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType(
                    "message t {\n"
                            + "  optional int64 click;\n"
                            + "  optional int64 I1;\n"
                            + "  required int32 I2;\n"
                            + dense(3, 13)
                            + "  optional binary C1 (STRING);\n"
                            + "  optional int32 C2;\n"
                            + ids(3, 26)
                            + "  optional binary extra (STRING);\n"
                            + "}");

    private static String dense(int from, int to) {
        StringBuilder sb = new StringBuilder();
        for (int f = from; f <= to; f++) {
            sb.append("  optional int32 I").append(f).append(";\n");
        }
        return sb.toString();
    }

    private static String ids(int from, int to) {
        StringBuilder sb = new StringBuilder();
        for (int c = from; c <= to; c++) {
            sb.append("  optional int64 C").append(c).append(";\n");
        }
        return sb.toString();
    }

    /** One generated row: null where a field is null; C1 as its text. */
    record Row(Long click, Long i1, int i2, Integer[] dense, String c1, Integer c2, Long[] ids) {}

    private static List<Row> rows(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Row> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Long click = r.nextInt(20) == 0 ? null : (long) r.nextInt(2);
            if (r.nextInt(100) == 0) {
                click = 5_000_000_000L;
            }
            Long i1 = r.nextInt(10) == 0 ? null : (long) r.nextInt(-50, 1000);
            if (r.nextInt(100) == 0) {
                i1 = -3_000_000_000L;
            }
            Integer[] dense = new Integer[11];
            for (int f = 0; f < 11; f++) {
                dense[f] = r.nextInt(5) == 0 ? null : r.nextInt(-20, 100_000);
            }
            String c1 = String.format("%08x", r.nextInt() & 0xffffffffL);
            int pick = r.nextInt(200);
            if (pick < 10) {
                c1 = null;
            } else if (pick < 20) {
                c1 = "";
            } else if (pick < 40) {
                c1 = c1.toUpperCase();
            } else if (pick == 40) {
                c1 = "zz";
            } else if (pick == 41) {
                c1 = "1" + "0".repeat(16);
            } else if (pick == 42) {
                c1 = "0000000000000000ff";
            }
            Integer c2 = r.nextInt(10) == 0 ? null : r.nextInt();
            Long[] ids = new Long[24];
            for (int c = 0; c < 24; c++) {
                ids[c] = r.nextInt(10) == 0 ? null : r.nextLong();
            }
            rows.add(new Row(click, i1, r.nextInt(-10, 10), dense, c1, c2, ids));
        }
        return rows;
    }

    private static String hex8(long id) {
        String hex = Long.toHexString(id);
        return hex.length() >= 8 ? hex : "0".repeat(8 - hex.length()) + hex;
    }

    private static String text(Object v) {
        return v == null ? "" : v.toString();
    }

    /** The row as Criteo text, its ids as the file holds them (C1 its text as written). */
    private static String line(Row row) {
        List<String> f = new ArrayList<>();
        f.add(text(row.click()));
        f.add(text(row.i1()));
        f.add(Integer.toString(row.i2()));
        for (Integer d : row.dense()) {
            f.add(text(d));
        }
        f.add(text(row.c1()));
        f.add(row.c2() == null ? "" : hex8(Integer.toUnsignedLong(row.c2())));
        for (Long id : row.ids()) {
            f.add(id == null ? "" : hex8(id));
        }
        return String.join("\t", f);
    }

    /** The reason and detail of a bad row (its first bad field), or null. */
    private static String[] problem(Row row) {
        if (row.click() != null && row.click() != (int) (long) row.click()) {
            return new String[] {
                "label_not_int32", "label: \"" + row.click() + "\" is not a 32-bit integer"
            };
        }
        if (row.i1() != null && row.i1() != (int) (long) row.i1()) {
            return new String[] {
                "dense_not_int32", "I1: \"" + row.i1() + "\" is not a 32-bit integer"
            };
        }
        if ("zz".equals(row.c1())) {
            return new String[] {"categorical_not_hex", "C1: \"zz\" is not hexadecimal"};
        }
        if (("1" + "0".repeat(16)).equals(row.c1())) {
            return new String[] {
                "categorical_overflow", "C1: \"" + row.c1() + "\" does not fit in 64 bits"
            };
        }
        return null;
    }

    /** A dead letter's text of a bad row: a valid hex id of C1 as the reader normalizes it. */
    private static String deadLetterText(Row row) {
        String c1 = row.c1();
        if (c1 != null
                && !c1.isEmpty()
                && problem(new Row(null, null, 0, row.dense(), c1, 0, row.ids())) == null) {
            c1 = hex8(Long.parseUnsignedLong(c1.replaceFirst("^0+(?=.)", ""), 16));
        }
        return line(new Row(row.click(), row.i1(), row.i2(), row.dense(), c1, row.c2(), row.ids()));
    }

    private Path write(List<Row> rows, WriterVersion version, boolean dictionary)
            throws IOException {
        Path file = dir.resolve(version + "-" + dictionary + ".parquet");
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> out =
                ParquetBlocks.writer(file, SCHEMA, version, dictionary, 2048, 150, 16 * 1024L)) {
            for (Row row : rows) {
                Group g = groups.newGroup();
                if (row.click() != null) {
                    g.add("click", row.click());
                }
                if (row.i1() != null) {
                    g.add("I1", row.i1());
                }
                g.add("I2", row.i2());
                for (int f = 0; f < 11; f++) {
                    if (row.dense()[f] != null) {
                        g.add("I" + (f + 3), row.dense()[f]);
                    }
                }
                if (row.c1() != null) {
                    g.add("C1", row.c1());
                }
                if (row.c2() != null) {
                    g.add("C2", row.c2());
                }
                for (int c = 0; c < 24; c++) {
                    if (row.ids()[c] != null) {
                        g.add("C" + (c + 3), row.ids()[c]);
                    }
                }
                g.add("extra", "not read");
                out.write(g);
            }
        }
        return file;
    }

    /** Every block of every row group, in order. */
    private static List<ColumnBlock> read(Path file, ColumnProgram program, int blockRows)
            throws IOException {
        List<ColumnBlock> blocks = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFiles.open(new LocalInputFile(file))) {
            ParquetLayout layout =
                    ParquetLayout.bind(
                            reader.getFooter().getFileMetaData().getSchema(),
                            Map.of("label", "click"),
                            file.toString());
            reader.setRequestedSchema(layout.projection());
            ColumnarDecoder decoder = new ColumnarDecoder(program);
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

    private static void assertDecodesAsText(
            List<Row> rows, List<ColumnBlock> blocks, ColumnProgram program) {
        // The oracle: the valid rows as text, through the text decoder.
        StringBuilder text = new StringBuilder();
        List<Integer> bad = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            if (problem(rows.get(i)) == null) {
                text.append(line(rows.get(i))).append('\n');
            } else {
                bad.add(i);
            }
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
        CriteoDecoder.Decoded expected =
                new CriteoDecoder(new DecodeOptions(program, false, 65536, 1024))
                        .decode(new RawChunk(0, 0, bytes, bytes.length, -1));
        assertThat(expected.dense().deadLetters()).isEmpty();

        int row = 0;
        long line = 0;
        List<Integer> deadRows = new ArrayList<>();
        for (ColumnBlock b : blocks) {
            assertThat(b.firstRow()).isEqualTo(line);
            for (int r = 0; r < b.rows(); r++, row++) {
                assertThat(Arrays.copyOfRange(b.labelDense(), r * 14, r * 14 + 14))
                        .as("row %d", row)
                        .isEqualTo(
                                Arrays.copyOfRange(
                                        expected.dense().labelDense(), row * 14, row * 14 + 14));
                for (int c = 0; c < 26; c++) {
                    assertThat(b.keys()[c][r])
                            .as("row %d C%d", row, c + 1)
                            .isEqualTo(expected.keys()[c].keys()[row]);
                }
            }
            for (DeadLetter d : b.deadLetters()) {
                int at = (int) (b.firstRow() + d.lineInBlock());
                deadRows.add(at);
                Row source = rows.get(at);
                assertThat(new String[] {d.reason(), d.detail()}).isEqualTo(problem(source));
                assertThat(d.offset()).isEqualTo(-1);
                assertThat(new String(d.raw(), StandardCharsets.UTF_8))
                        .isEqualTo(deadLetterText(source));
            }
            line += b.lines();
        }
        assertThat(row).isEqualTo(expected.dense().rows());
        assertThat(line).isEqualTo(rows.size());
        assertThat(deadRows).isEqualTo(bad);
    }

    @Test
    void everyPageKindDecodesAsItsText() throws IOException {
        List<Row> rows = rows(2_500, 17);
        ColumnProgram program = new ColumnProgram("t", 3, modulus(97), neg2zero(), log(2, 5));
        for (WriterVersion version : WriterVersion.values()) {
            for (boolean dictionary : new boolean[] {true, false}) {
                Path file = write(rows, version, dictionary);
                assertDecodesAsText(rows, read(file, program, 300), program);
                assertDecodesAsText(
                        rows, read(file, ColumnProgram.dlrm(-1), 1), ColumnProgram.dlrm(-1));
            }
        }
    }

    @Test
    void theBadRowsAreThereAndCounted() {
        List<Row> rows = rows(2_500, 17);
        long bad = rows.stream().filter(r -> problem(r) != null).count();
        assertThat(bad).as("the generator makes each kind of bad row").isGreaterThan(40);
        assertThat(
                        rows.stream()
                                .map(RowGroupBlocksTest::problem)
                                .filter(p -> p != null)
                                .map(p -> p[0])
                                .distinct())
                .containsExactlyInAnyOrder(
                        "label_not_int32",
                        "dense_not_int32",
                        "categorical_not_hex",
                        "categorical_overflow");
    }

    private static long[] modulus(long m) {
        long[] a = new long[26];
        Arrays.fill(a, m);
        return a;
    }

    private static boolean[] neg2zero() {
        boolean[] a = new boolean[14];
        Arrays.fill(a, 1, 14, true);
        return a;
    }

    private static boolean[] log(int... fields) {
        boolean[] a = new boolean[14];
        for (int f : fields) {
            a[f] = true;
        }
        return a;
    }
}
