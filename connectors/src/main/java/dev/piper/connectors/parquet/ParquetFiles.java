package dev.piper.connectors.parquet;

import java.io.IOException;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/** Opening Parquet files for reading the way every reader here does. */
public final class ParquetFiles {

    /**
     * The largest buffer a row group's column chunks are read into. parquet-hadoop's default (8
     * MiB) makes every buffer a humongous object for G1 (half a region or more), which the young
     * collections cannot reclaim: reading then ran into old-generation collections. Half a MiB
     * stays under half of G1's smallest region (1 MiB).
     */
    static final int MAX_ALLOCATION_BYTES = 1 << 19;

    private ParquetFiles() {}

    /**
     * Whether the file at {@code path} (a Flink file system path)'s pages carry checksums, judged
     * by the first page of its first column chunk (a writer writes them for every page or none); a
     * file without row groups has nothing to check and counts as having them.
     */
    public static boolean hasPageChecksums(String path) throws IOException {
        return hasPageChecksums(new FlinkInputFile(path));
    }

    /** As {@link #hasPageChecksums(String)}. */
    public static boolean hasPageChecksums(InputFile file) throws IOException {
        try (ParquetFileReader reader = open(file);
                SeekableInputStream in = file.newStream()) {
            for (BlockMetaData group : reader.getRowGroups()) {
                if (group.getColumns().isEmpty()) {
                    continue;
                }
                in.seek(group.getColumns().get(0).getStartingPos());
                PageHeader header = Util.readPageHeader(in);
                return header.isSetCrc();
            }
            return true;
        }
    }

    /**
     * Opens {@code file}: its footer is read, no filter is applied, and every page that carries a
     * CRC-32 is checked against it as it is read (a damaged page fails with a {@code
     * ParquetDecodingException}, {@code RowGroupBlocks} turns its row group into dead letters).
     */
    public static ParquetFileReader open(InputFile file) throws IOException {
        return ParquetFileReader.open(
                file,
                ParquetReadOptions.builder()
                        .withMaxAllocationInBytes(MAX_ALLOCATION_BYTES)
                        .useStatsFilter(false)
                        .useDictionaryFilter(false)
                        .useColumnIndexFilter(false)
                        .useBloomFilter(false)
                        .usePageChecksumVerification(true)
                        .build());
    }
}
