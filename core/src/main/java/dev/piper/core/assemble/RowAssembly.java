package dev.piper.core.assemble;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.Assignments;
import dev.piper.core.block.BlockNames;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.IndexChunk;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.OneHot;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * PIPER's Concatenate without its operator: a block's dense part and its categorical index chunks
 * (one per sparse column of the dense part's layout) interleaved into rows in the DLRM layout
 * (little-endian int32 per row: label, I1.., C1..; 40 in Criteo's layout; a onehot column as its
 * columns), with the lists of list columns, the new keys and the evicting vocabularies' assignments
 * carried beside them.
 */
public final class RowAssembly {

    private RowAssembly() {}

    /** Interleaves the block's columns into rows. */
    public static AssembledBlock assemble(DenseChunk d, IndexChunk[] columns) {
        int rows = d.rows();
        RowLayout layout = d.layout();
        int sparseColumns = layout.sparse();
        int width = layout.labelDenseWidth();
        if (columns.length != sparseColumns) {
            throw new IllegalStateException(
                    "block "
                            + d.lane()
                            + "/"
                            + d.seq()
                            + ": "
                            + columns.length
                            + " index chunks for "
                            + layout);
        }
        int[] onehot = d.onehot();
        int rowBytes = layout.rowBytes(onehot);
        byte[] bytes = new byte[rows * rowBytes];
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int[] labelDense = d.labelDense();
        int[][] indices = new int[sparseColumns][];
        int[] firstNew = new int[sparseColumns];
        long[][] newKeys = new long[sparseColumns][];
        int[] epochs = new int[sparseColumns];
        Assignments[] assignments = null;
        for (int c = 0; c < sparseColumns; c++) {
            IndexChunk chunk = columns[c];
            checkChunk(d, c, chunk);
            indices[c] = chunk.indices();
            firstNew[c] = chunk.firstNewIndex();
            newKeys[c] = chunk.newKeys();
            epochs[c] = chunk.epoch();
            if (chunk.assignments() != null) {
                if (assignments == null) {
                    assignments = new Assignments[sparseColumns];
                }
                assignments[c] = chunk.assignments();
            }
        }
        writeRows(buf, rows, width, labelDense, onehot, layout.scalarColumns(), indices);
        int lists = layout.listColumns().size();
        int[][] listOffsets = new int[lists][];
        int[][] listIndices = new int[lists][];
        for (int l = 0; l < lists; l++) {
            IndexChunk chunk = columns[layout.listColumns().get(l)];
            listOffsets[l] = chunk.offsets();
            listIndices[l] =
                    chunk.indices().length == chunk.size()
                            ? chunk.indices()
                            : Arrays.copyOf(chunk.indices(), chunk.size());
        }
        return AssembledBlock.builder()
                .lane(d.lane())
                .seq(d.seq())
                .lines(d.lines())
                .rows(rows)
                .rowBytes(bytes)
                .deadLetters(d.deadLetters())
                .newKeys(firstNew, newKeys)
                .origin(d.origin())
                .version(d.version())
                .epochs(epochs)
                .lists(listOffsets, listIndices)
                .assignments(assignments)
                .newNames(newNames(d.names(), newKeys, assignments))
                .eventTimes(d.eventTimes())
                .build();
    }

    /**
     * The original strings of the block's new keys (an evicting column's: of its assignments'
     * keys), from the strings its rows held; null when it hashes no strings.
     */
    private static String[][] newNames(
            BlockNames names, long[][] newKeys, Assignments[] assignments) {
        if (names == null) {
            return null;
        }
        String[][] out = new String[newKeys.length][];
        for (int c = 0; c < newKeys.length; c++) {
            if (names.has(c)) {
                Assignments a = assignments == null ? null : assignments[c];
                long[] keys = a != null ? a.keys() : newKeys[c];
                out[c] = keys.length == 0 ? new String[0] : names.namesOf(c, keys);
            }
        }
        return out;
    }

    /** Refuses an index chunk {@code chunk} of sparse column {@code c} that is not of block d. */
    private static void checkChunk(DenseChunk d, int c, IndexChunk chunk) {
        int rows = d.rows();
        if (chunk.rows() != rows
                || (chunk.offsets() != null) != d.layout().isList(c)
                || chunk.seq() != d.seq()
                || chunk.lane() != d.lane()) {
            throw new IllegalStateException(
                    "block "
                            + d.lane()
                            + "/"
                            + d.seq()
                            + ": column C"
                            + (c + 1)
                            + " has "
                            + chunk.rows()
                            + (chunk.offsets() != null ? " lists" : " rows")
                            + " of block "
                            + chunk.lane()
                            + "/"
                            + chunk.seq()
                            + ", expected "
                            + rows);
        }
    }

    /**
     * Writes each row: its label and dense values (a onehot column as its columns), then its scalar
     * sparse columns' indices, little-endian int32.
     */
    private static void writeRows(
            ByteBuffer buf,
            int rows,
            int width,
            int[] labelDense,
            int[] onehot,
            int[] scalar,
            int[][] indices) {
        int pos = 0;
        for (int r = 0; r < rows; r++) {
            int base = r * width;
            for (int j = 0; j < width; j++) {
                int v = labelDense[base + j];
                if (onehot != null && onehot[j] > 0) {
                    int hot = OneHot.hot(v, onehot[j]); // drop-last one-hot of the category v
                    for (int k = 0; k < onehot[j] - 1; k++) {
                        buf.putInt(pos, k == hot ? 1 : 0);
                        pos += Integer.BYTES;
                    }
                    continue;
                }
                buf.putInt(pos, v);
                pos += Integer.BYTES;
            }
            for (int c : scalar) {
                buf.putInt(pos, indices[c][r]);
                pos += Integer.BYTES;
            }
        }
        assert pos == buf.capacity();
    }
}
