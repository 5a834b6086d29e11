package dev.piper.connectors.parquet.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.connectors.parquet.FlinkInputFile;
import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.convert.TsvToParquet;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.EnumSource.Mode;

/**
 * Issue 23: 64 bytes flipped in a data page of a converted file were read as good rows (20 rows
 * with a wrong I3). Converted files carry a CRC-32 per page, the reader checks it, and the damaged
 * row group's rows become dead letters naming the file, row group and column; the other row groups
 * read as before.
 */
class ParquetIntegrityTest {

    private static final int LINES = 10_000;
    private static final int GROUP_ROWS = 2_000;

    @TempDir Path dir;

    private Path converted(CompressionCodecName codec) throws IOException {
        Path tsv = dir.resolve("in.tsv");
        try (OutputStream out = Files.newOutputStream(tsv)) {
            new CriteoGenerator(23, 0.001, 0).write(out, LINES);
        }
        Path parquet = dir.resolve("in.parquet");
        TsvToParquet.convert(
                tsv,
                parquet,
                dir.resolve("dead.jsonl"),
                DecodeOptions.defaults(),
                codec,
                GROUP_ROWS,
                new PrintStream(OutputStream.nullOutputStream()));
        return parquet;
    }

    private static List<ColumnBlock> read(Path file) throws IOException {
        return ParquetBlocks.read(ParquetFiles.open(new FlinkInputFile(file.toString())), file);
    }

    private static List<ColumnBlock> read(ParquetFileReader opened, Path file) throws IOException {
        return ParquetBlocks.read(opened, file);
    }

    /**
     * Flips {@code n} bytes in the middle of the first data page of {@code column} in row group
     * {@code group} (past a dictionary page, past the page's header).
     */
    private static void flipDataPage(Path file, int group, String column, int n)
            throws IOException {
        ColumnChunkMetaData chunk;
        try (ParquetFileReader reader =
                ParquetFileReader.open(
                        new LocalInputFile(file), ParquetReadOptions.builder().build())) {
            chunk =
                    reader.getRowGroups().get(group).getColumns().stream()
                            .filter(c -> c.getPath().toDotString().equals(column))
                            .findFirst()
                            .orElseThrow();
        }
        byte[] bytes = new byte[(int) chunk.getTotalSize()];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ch.read(ByteBuffer.wrap(bytes), chunk.getStartingPos());
        }
        ByteArrayInputStream in = new ByteArrayInputStream(bytes);
        PageHeader header = Util.readPageHeader(in);
        while (header.getType() != PageType.DATA_PAGE) {
            in.skip(header.getCompressed_page_size());
            header = Util.readPageHeader(in);
        }
        int body = bytes.length - in.available();
        assertThat(header.getCompressed_page_size()).isGreaterThan(2 * n);
        int at = body + header.getCompressed_page_size() / 2 - n / 2;
        for (int i = at; i < at + n; i++) {
            bytes[i] ^= (byte) 0xA5;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes, at, n), chunk.getStartingPos() + at);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = CompressionCodecName.class,
            names = {"UNCOMPRESSED", "SNAPPY", "ZSTD"},
            mode = Mode.INCLUDE)
    void aFlippedDataPageIsNeverReadAsGoodRows(CompressionCodecName codec) throws Exception {
        Path file = converted(codec);
        assertThat(ParquetFiles.hasPageChecksums(new LocalInputFile(file))).isTrue();
        List<ColumnBlock> clean = read(file);
        assertThat(clean.stream().mapToInt(ColumnBlock::rows).sum()).isEqualTo(LINES);

        flipDataPage(file, 2, "I3", 64);
        List<ColumnBlock> damaged = read(file);

        assertThat(damaged).hasSameSizeAs(clean);
        for (int b = 0; b < clean.size(); b++) {
            ColumnBlock want = clean.get(b);
            ColumnBlock got = damaged.get(b);
            assertThat(got.lines()).isEqualTo(want.lines());
            boolean inGroup2 = got.firstRow() / GROUP_ROWS == 2;
            if (!inGroup2) {
                assertThat(got.rows()).isEqualTo(want.rows());
                assertThat(got.labelDense()).isEqualTo(want.labelDense());
                assertThat(got.keys()).isDeepEqualTo(want.keys());
                continue;
            }
            assertThat(got.rows()).as("no row of the damaged row group is read").isZero();
            assertThat(got.deadLetters()).hasSize(got.lines());
            for (DeadLetter d : got.deadLetters()) {
                assertThat(d.reason()).isEqualTo(Reason.CORRUPT_PAGE.code());
                assertThat(d.raw()).isEmpty();
                assertThat(d.detail())
                        .startsWith(
                                file
                                        + ": row group 2 (rows 4000..5999 of the file), column"
                                        + " I3: ")
                        .contains("CRC");
            }
        }
    }

    /**
     * Without the check (parquet-java's default, and this reader's before issue 23), parquet-java
     * reads the same damaged row group without a complaint: the checksum is what catches it. (What
     * the damaged values then decode to depends on the bytes: wrong values, or indices past the
     * dictionary, which the reader turns into dead letters, as for a damaged file without
     * checksums.)
     */
    @ParameterizedTest
    @EnumSource(
            value = CompressionCodecName.class,
            names = {"UNCOMPRESSED", "SNAPPY"},
            mode = Mode.INCLUDE)
    void withoutTheCheckParquetReadsTheDamageSilently(CompressionCodecName codec) throws Exception {
        Path file = converted(codec);
        flipDataPage(file, 2, "I3", 64);
        try (ParquetFileReader plain =
                ParquetFileReader.open(
                        new LocalInputFile(file), ParquetReadOptions.builder().build())) {
            assertThat(plain.readRowGroup(2).getRowCount()).isEqualTo(GROUP_ROWS);
        }
        List<ColumnBlock> unchecked =
                read(
                        ParquetFileReader.open(
                                new FlinkInputFile(file.toString()),
                                ParquetReadOptions.builder().build()),
                        file);
        for (ColumnBlock b : unchecked) {
            assertThat(b.rows() + b.deadLetters().length).isEqualTo(b.lines());
            for (DeadLetter d : b.deadLetters()) {
                assertThat(d.detail())
                        .startsWith(
                                file + ": row group 2 (rows 4000..5999 of the file), column I3:")
                        .contains("its pages cannot be decoded");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = CompressionCodecName.class,
            names = {"SNAPPY"},
            mode = Mode.INCLUDE)
    void aFileWrittenWithoutChecksumsIsToldApart(CompressionCodecName codec) throws Exception {
        var schema = MessageTypeParser.parseMessageType("message t { required int32 x; }");
        Path file = dir.resolve("plain.parquet");
        try (ParquetWriter<Group> w =
                ExampleParquetWriter.builder(new LocalOutputFile(file))
                        .withType(schema)
                        .withCompressionCodec(codec)
                        .withPageWriteChecksumEnabled(false)
                        .build()) {
            for (int i = 0; i < 100; i++) {
                w.write(new SimpleGroupFactory(schema).newGroup().append("x", i));
            }
        }
        assertThat(ParquetFiles.hasPageChecksums(new LocalInputFile(file))).isFalse();
    }
}
