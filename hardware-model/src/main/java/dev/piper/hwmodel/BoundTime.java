package dev.piper.hwmodel;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * A device's time: the largest of its shared resources' times, with the resource that binds it.
 *
 * @param seconds the time
 * @param bound the resource that sets it
 * @param byResource each resource's time
 * @param <R> the device's resources
 */
public record BoundTime<R extends Enum<R>>(double seconds, R bound, Map<R, Double> byResource) {

    /** The time of a device whose resources take {@code byResource} (at least one). */
    public static <R extends Enum<R>> BoundTime<R> of(EnumMap<R, Double> byResource) {
        R bound = null;
        for (Map.Entry<R, Double> e : byResource.entrySet()) {
            if (bound == null || e.getValue() > byResource.get(bound)) {
                bound = e.getKey();
            }
        }
        if (bound == null) {
            throw new IllegalArgumentException("a device has at least one resource");
        }
        return new BoundTime<>(
                byResource.get(bound), bound, Collections.unmodifiableMap(byResource));
    }
}
