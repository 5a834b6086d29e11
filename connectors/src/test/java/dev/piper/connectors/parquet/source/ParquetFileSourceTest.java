package dev.piper.connectors.parquet.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.connectors.TestReaders;
import dev.piper.connectors.parquet.source.enumerator.RowGroupEnumStateSerializer;
import dev.piper.connectors.parquet.source.split.RowGroupSplit;
import dev.piper.connectors.parquet.source.split.RowGroupSplitSerializer;
import dev.piper.convert.TsvToParquet;
import dev.piper.core.block.ColumnBlock;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.io.InputStatus;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The source's splits: row groups numbered through the file, and their checkpointed bytes. */
class ParquetFileSourceTest {

    @TempDir Path tmp;

    @Test
    void rowGroupsAreNumberedThroughTheFile() throws IOException {
        Path tsv = tmp.resolve("in.tsv");
        try (OutputStream out = Files.newOutputStream(tsv)) {
            new CriteoGenerator(9, 0.0005, 0).write(out, 10_000);
        }
        Path parquet = tmp.resolve("in.parquet");
        TsvToParquet.convert(
                tsv,
                parquet,
                tmp.resolve("dead.jsonl"),
                DecodeOptions.defaults(),
                CompressionCodecName.UNCOMPRESSED,
                3_000,
                new PrintStream(OutputStream.nullOutputStream()));
        ParquetFileSource source =
                new ParquetFileSource(
                        parquet.toString(), 700, Map.of(), 1024, ColumnProgram.dlrm(-1));
        String p = parquet.toString();
        // 3,000-row groups of 700-row blocks: 5 blocks each (the last 200 rows); 1,000 rows last
        assertThat(source.splits())
                .containsExactly(
                        new RowGroupSplit(p, 0, 0, 0, 0),
                        new RowGroupSplit(p, 1, 3_000, 5, 0),
                        new RowGroupSplit(p, 2, 6_000, 10, 0),
                        new RowGroupSplit(p, 3, 9_000, 15, 0));
        assertThat(ParquetFileSource.check(p, RowLayout.CRITEO, Map.of()).binding(0).column())
                .isEqualTo("label");
    }

    /**
     * A reader's checkpoint holds its row group advanced to the next block; a reader given that
     * split emits the same blocks from there on as the first would have.
     */
    @Test
    void aResumedRowGroupContinuesWhereTheCheckpointLeftIt() throws Exception {
        Path parquet = converted(6_000, 3_000);
        ParquetFileSource source =
                new ParquetFileSource(
                        parquet.toString(), 500, Map.of(), 1024, ColumnProgram.dlrm(1000));
        RowGroupSplit second = source.splits().get(1);

        TestReaders.Context context = new TestReaders.Context();
        var reader = source.createReader(context);
        reader.start();
        reader.addSplits(List.of(second));
        TestReaders.Output<ColumnBlock> all = new TestReaders.Output<>();
        List<RowGroupSplit> checkpoint = null;
        while (reader.pollNext(all) == InputStatus.MORE_AVAILABLE) {
            if (all.records.size() == 3 && checkpoint == null) {
                checkpoint = reader.snapshotState(1);
            }
            if (context.requests == 2) { // it asked for the next row group: this one is done
                break;
            }
        }
        reader.close();
        assertThat(all.records).hasSize(6).allMatch(b -> b.rows() == 500);
        assertThat(checkpoint).containsExactly(second.at(3));

        var resumed = source.createReader(new TestReaders.Context());
        resumed.start();
        resumed.addSplits(checkpoint);
        TestReaders.Output<ColumnBlock> rest = new TestReaders.Output<>();
        while (rest.records.size() < 3) {
            assertThat(resumed.pollNext(rest)).isEqualTo(InputStatus.MORE_AVAILABLE);
        }
        resumed.close();
        for (int i = 0; i < 3; i++) {
            ColumnBlock a = all.records.get(3 + i);
            ColumnBlock b = rest.records.get(i);
            assertThat(b.seq()).isEqualTo(second.firstSeq() + 3 + i).isEqualTo(a.seq());
            assertThat(b.firstRow()).isEqualTo(3_000 + 500L * (3 + i));
            assertThat(b).usingRecursiveComparison().isEqualTo(a);
        }
    }

    /** {@code rows} generated lines converted in row groups of {@code rowGroupRows}. */
    private Path converted(int rows, int rowGroupRows) throws IOException {
        Path tsv = tmp.resolve("r.tsv");
        try (OutputStream out = Files.newOutputStream(tsv)) {
            new CriteoGenerator(21, 0.0005, 0).write(out, rows);
        }
        Path parquet = tmp.resolve("r.parquet");
        TsvToParquet.convert(
                tsv,
                parquet,
                tmp.resolve("r.dead.jsonl"),
                DecodeOptions.defaults(),
                CompressionCodecName.SNAPPY,
                rowGroupRows,
                new PrintStream(OutputStream.nullOutputStream()));
        return parquet;
    }

    /** Version 1: path (modified UTF-8), rowGroup, firstRow, firstSeq, nextBlock. */
    @Test
    void splitBytesAreFrozen() throws IOException {
        RowGroupSplit split = new RowGroupSplit("/d/a.parquet", 3, 9_000, 15, 2);
        RowGroupSplitSerializer serializer = new RowGroupSplitSerializer();
        byte[] bytes = serializer.serialize(split);
        String frozen =
                "000c2f642f612e70617271756574" // "/d/a.parquet"
                        + "00000003"
                        + "0000000000002328"
                        + "000000000000000f"
                        + "00000002";
        assertThat(HexFormat.of().formatHex(bytes)).isEqualTo(frozen);
        assertThat(serializer.deserialize(1, bytes)).isEqualTo(split);
        assertThatThrownBy(() -> serializer.deserialize(2, bytes))
                .hasMessageContaining("Parquet split format version 2 is not readable");

        RowGroupEnumStateSerializer state = new RowGroupEnumStateSerializer();
        List<RowGroupSplit> pending = List.of(split, split.at(0));
        assertThat(state.deserialize(1, state.serialize(pending))).isEqualTo(pending);
        assertThat(HexFormat.of().formatHex(state.serialize(List.of(split))))
                .isEqualTo("00000001" + frozen);
    }
}
