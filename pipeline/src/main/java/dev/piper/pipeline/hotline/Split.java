package dev.piper.pipeline.hotline;

import java.util.List;

/**
 * Hotline's split of one block of rows.
 *
 * @param firstRow the number of the block's first row in the output (from 0)
 * @param popular per row, 1 if every sparse index it uses is in its window's hot set, else 0
 * @param popularRows how many of {@code popular} are 1
 * @param working per sparse column, the distinct indices of the block's non-popular rows that are
 *     not hot, ascending: the working parameters a trainer gathers from CPU memory
 * @param windows the windows that start within the block, in order, with their hot sets
 */
public record Split(
        long firstRow, byte[] popular, int popularRows, int[][] working, List<Window> windows) {

    /**
     * A window of rows and the hot set in force for it.
     *
     * @param number the window's number, from 0
     * @param firstRow its first row
     * @param startMs where it starts in event time, milliseconds since the epoch (a multiple of the
     *     window's length), for windows in event time; {@link #NO_TIME} for windows of rows
     * @param hot its hot set, chosen from what the sampled rows before {@code firstRow} taught
     * @param capture the share of the exact top entries that the bounded tracker's top entries hold
     *     when the window's hot set was chosen, or NaN before anything was counted
     */
    public record Window(int number, long firstRow, long startMs, HotSet hot, double capture) {

        /** The {@code startMs} of a window of rows. */
        public static final long NO_TIME = Long.MIN_VALUE;

        /** Whether the window is a span of event time. */
        public boolean inEventTime() {
            return startMs != NO_TIME;
        }
    }

    public int rows() {
        return popular.length;
    }
}
