package dev.piper.pipeline.join;

import java.util.Objects;

/**
 * An impression as the join takes it.
 *
 * @param key the join key (a request or impression id)
 * @param timeMs its event time, in milliseconds since the epoch
 * @param position where it was read
 * @param watermark its partition's watermark when it was read: the latest time of the records
 *     before it in the partition, less the max out-of-orderness ({@link Long#MIN_VALUE} for the
 *     first); an impression before it is late
 * @param payload the impression's record, which the rows are made of
 * @param <T> the record's type
 */
public record Impression<T>(String key, long timeMs, Position position, long watermark, T payload) {

    public Impression {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(position, "position");
    }
}
