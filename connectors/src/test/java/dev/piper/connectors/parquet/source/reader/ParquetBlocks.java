package dev.piper.connectors.parquet.source.reader;

import dev.piper.connectors.parquet.ParquetLayout;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.decode.ColumnarDecoder;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupWriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;

/** Reading a Parquet file of Criteo's layout block by block, as the source's reader does. */
final class ParquetBlocks {

    private ParquetBlocks() {}

    /**
     * Every block (of at most 500 rows) of every row group of {@code opened}'s file, under DLRM's
     * program; closes the reader.
     */
    static List<ColumnBlock> read(ParquetFileReader opened, Path file) throws IOException {
        List<ColumnBlock> blocks = new ArrayList<>();
        try (ParquetFileReader reader = opened) {
            ParquetLayout layout =
                    ParquetLayout.bind(
                            reader.getFooter().getFileMetaData().getSchema(),
                            Map.of(),
                            file.toString());
            reader.setRequestedSchema(layout.projection());
            ColumnarDecoder decoder = new ColumnarDecoder(DecodeOptions.defaults().program());
            long first = 0;
            for (int g = 0; g < reader.getRowGroups().size(); g++) {
                RowGroupBlocks group = new RowGroupBlocks(reader, layout, decoder, g, first, 1024);
                first += group.rowsLeft();
                ColumnBlock b;
                while ((b = group.next(0, blocks.size(), 500)) != null) {
                    blocks.add(b);
                }
            }
        }
        return blocks;
    }

    /**
     * parquet-hadoop's example writer of {@code schema} into {@code file} (Snappy), with small
     * pages and row groups so that blocks cross them.
     */
    static ParquetWriter<Group> writer(
            Path file,
            MessageType schema,
            WriterVersion version,
            boolean dictionary,
            int pageBytes,
            int pageRows,
            long rowGroupBytes)
            throws IOException {
        Configuration conf = new Configuration(false);
        GroupWriteSupport.setSchema(schema, conf);
        return ExampleParquetWriter.builder(new LocalOutputFile(file))
                .withConf(conf)
                .withType(schema)
                .withWriterVersion(version)
                .withDictionaryEncoding(dictionary)
                .withCompressionCodec(CompressionCodecName.SNAPPY)
                .withPageSize(pageBytes)
                .withPageRowCountLimit(pageRows)
                .withRowGroupSize(rowGroupBytes)
                .build();
    }
}
