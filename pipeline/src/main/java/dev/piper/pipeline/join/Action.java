package dev.piper.pipeline.join;

import java.util.Objects;

/**
 * An action (a click, a conversion) as the join takes it.
 *
 * @param stream the index of its action stream in {@link JoinSettings#streams()}
 * @param key the join key of the impression it belongs to
 * @param timeMs its event time, in milliseconds since the epoch
 * @param id its id, for de-duplication, or null where the stream has none (then every action
 *     counts)
 * @param value its value (a conversion's amount), 0 where the stream has none
 * @param position where it was read
 * @param watermark its partition's watermark when it was read (as {@link Impression#watermark()})
 */
public record Action(
        int stream,
        String key,
        long timeMs,
        String id,
        double value,
        Position position,
        long watermark) {

    public Action {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(position, "position");
    }
}
