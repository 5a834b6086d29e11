package dev.piper.core.join;

/**
 * A record of the stream's label join, read and checked, on its way to its key's join: an
 * impression ({@code stream} -1) or an action of stream {@code stream}.
 *
 * @param stream -1 for an impression, else the action stream's index in the spec's order
 * @param key the join key
 * @param timeMs its event time
 * @param partition the partition of its topic it was read from
 * @param offset its offset there
 * @param watermark its partition's watermark when it was read (the latest time of the records
 *     before it there, less the max out-of-orderness; {@link Long#MIN_VALUE} for none), once {@link
 *     PartitionTimes} stamped it
 * @param id an action's id, or null
 * @param value an action's value, 0 where the stream has none
 * @param bytes an impression's line (what its row is made of); an action's raw bytes as its dead
 *     letter would keep them
 * @param truncated whether {@code bytes} of an action are cut short
 */
public record JoinInput(
        int stream,
        String key,
        long timeMs,
        int partition,
        long offset,
        long watermark,
        String id,
        double value,
        byte[] bytes,
        boolean truncated)
        implements JoinRead {

    public boolean isImpression() {
        return stream < 0;
    }

    /** This record read with its partition's watermark {@code w}. */
    public JoinInput withWatermark(long w) {
        return new JoinInput(
                stream, key, timeMs, partition, offset, w, id, value, bytes, truncated);
    }
}
