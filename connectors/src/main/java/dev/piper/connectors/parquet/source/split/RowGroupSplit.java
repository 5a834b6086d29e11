package dev.piper.connectors.parquet.source.split;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A piece of work for a Parquet file's reader ({@code reader.RowGroupReader}): one row group of a
 * Parquet file, cut into blocks of the source's rows per block.
 *
 * @param path the file
 * @param rowGroup the row group's index in the file
 * @param firstRow index in the file of the row group's first row
 * @param firstSeq the sequence number of the row group's first block
 * @param nextBlock the first block not yet emitted (0 for a fresh split; more when a reader's
 *     checkpoint resumes it)
 */
public record RowGroupSplit(String path, int rowGroup, long firstRow, long firstSeq, int nextBlock)
        implements SourceSplit {

    @Override
    public String splitId() {
        return path + "#" + rowGroup;
    }

    /** The split resumed at block {@code block}. */
    public RowGroupSplit at(int block) {
        return new RowGroupSplit(path, rowGroup, firstRow, firstSeq, block);
    }
}
