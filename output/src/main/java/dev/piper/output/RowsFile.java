package dev.piper.output;

import java.io.IOException;

/**
 * The rows of a batch output in one {@link RowsFormat}: each block's rows appended in order, then
 * completed once, or abandoned when the run fails.
 */
interface RowsFile {

    /**
     * Appends a block's rows: {@code rowBytes} holds {@code rows} rows of the program's row layout;
     * the list columns' {@code listOffsets} and {@code listIndices} (see {@code OutputBlock}),
     * which a format that keeps lists apart ({@link RowsFormat#listsInRows}) ignores.
     */
    void write(byte[] rowBytes, int rows, int[][] listOffsets, int[][] listIndices)
            throws IOException;

    /** Completes the file after the last block: everything is on disk once it returns. */
    void finish() throws IOException;

    /** Abandons the file of a failed run, releasing it without completing it. */
    void abort() throws IOException;
}
