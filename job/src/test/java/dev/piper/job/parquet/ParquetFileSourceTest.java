package dev.piper.job.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.job.generate.CriteoGenerator;
import dev.piper.operators.decode.ColumnProgram;
import dev.piper.operators.decode.DecodeOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
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
        assertThat(ParquetFileSource.check(p, Map.of()).binding(0).column()).isEqualTo("label");
    }

    /** Version 1: path (modified UTF-8), rowGroup, firstRow, firstSeq, nextBlock. */
    @Test
    void splitBytesAreFrozen() throws IOException {
        RowGroupSplit split = new RowGroupSplit("/d/a.parquet", 3, 9_000, 15, 2);
        RowGroupSplit.Serializer serializer = new RowGroupSplit.Serializer();
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

        RowGroupSplit.StateSerializer state = new RowGroupSplit.StateSerializer();
        List<RowGroupSplit> pending = List.of(split, split.at(0));
        assertThat(state.deserialize(1, state.serialize(pending))).isEqualTo(pending);
        assertThat(HexFormat.of().formatHex(state.serialize(List.of(split))))
                .isEqualTo("00000001" + frozen);
    }
}
