package dev.piper.pipeline.join;

import dev.piper.pipeline.input.EventTime;
import java.io.Serializable;
import java.util.Objects;

/**
 * Where an action stream's records come from and which of their fields the join reads: a spec's
 * {@code labels.streams.NAME} less the window and policy (those are its {@link ActionStream}).
 *
 * @param format the records' format ({@code json}, one object per line or Kafka record)
 * @param key the path of the join key, the impression's {@code input.key} value it belongs to
 * @param time the path of the action's time and what a number there counts
 * @param id the path of the action's id, for de-duplication, or null (every action counts)
 * @param value the path of the action's value (a conversion's amount), or null (0)
 * @param topic the Kafka topic {@code stream} reads the stream from, or null (given on the command
 *     line)
 */
public record ActionSource(
        String format, String key, EventTime time, String id, String value, String topic)
        implements Serializable {

    /** The one format action records are read in so far. */
    public static final String JSON = "json";

    public ActionSource {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(time, "time");
    }
}
