package dev.piper.pipeline.join;

import java.io.Serializable;
import java.util.Objects;

/**
 * One stream of actions (clicks, conversions) as the join sees it.
 *
 * @param name the stream's name in the spec ({@code click}); its labels are the fields {@code
 *     labels.NAME}, {@code labels.NAME_delay_ms}, {@code labels.NAME_count} and {@code
 *     labels.NAME_value}
 * @param windowMs how long after an impression, in event time, its actions of this stream count: an
 *     action at time {@code t} joins an impression at {@code t_i} when {@code t_i <= t <= t_i +
 *     windowMs}
 * @param policy when the label reaches the rows
 */
public record ActionStream(String name, long windowMs, EmitPolicy policy) implements Serializable {

    public ActionStream {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(policy, "policy");
        if (windowMs <= 0) {
            throw new IllegalArgumentException(name + ": a window above 0 ms, not " + windowMs);
        }
    }
}
