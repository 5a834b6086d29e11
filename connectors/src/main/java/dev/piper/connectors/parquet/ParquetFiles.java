package dev.piper.connectors.parquet;

import java.io.IOException;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.InputFile;

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

    /** Opens {@code file}: its footer is read, no filter is applied. */
    public static ParquetFileReader open(InputFile file) throws IOException {
        return ParquetFileReader.open(
                file,
                ParquetReadOptions.builder()
                        .withMaxAllocationInBytes(MAX_ALLOCATION_BYTES)
                        .useStatsFilter(false)
                        .useDictionaryFilter(false)
                        .useColumnIndexFilter(false)
                        .useBloomFilter(false)
                        .build());
    }
}
