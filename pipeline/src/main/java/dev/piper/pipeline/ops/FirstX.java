package dev.piper.pipeline.ops;

/**
 * FirstX on list columns (RAP's FirstX, TorchArrow's {@code firstx}): each list cut to its first
 * {@code min(x, length)} elements, without padding. Lists are an offsets array ({@code rows + 1}
 * entries, list {@code r} is {@code values[offsets[r], offsets[r + 1])}) and a values array.
 */
public final class FirstX {

    private final int x;

    /**
     * @throws IllegalArgumentException if {@code x < 0}
     */
    public FirstX(int x) {
        if (x < 0) {
            throw new IllegalArgumentException("firstx needs x >= 0, not " + x);
        }
        this.x = x;
    }

    /**
     * Writes the cut lists of the first {@code rows} lists to {@code outOffsets} ({@code rows + 1}
     * entries) and {@code outValues}, and returns how many values it wrote. {@code outValues} needs
     * room for at most {@code offsets[rows] - offsets[0]} values.
     */
    public int apply(int[] offsets, long[] values, int rows, int[] outOffsets, long[] outValues) {
        int written = 0;
        outOffsets[0] = 0;
        for (int r = 0; r < rows; r++) {
            int start = offsets[r];
            int keep = Math.min(x, offsets[r + 1] - start);
            System.arraycopy(values, start, outValues, written, keep);
            written += keep;
            outOffsets[r + 1] = written;
        }
        return written;
    }

    @Override
    public String toString() {
        return "firstx(" + x + ")";
    }
}
