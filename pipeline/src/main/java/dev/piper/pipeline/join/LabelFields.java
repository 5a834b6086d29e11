package dev.piper.pipeline.join;

import java.util.ArrayList;
import java.util.List;

/**
 * The fields the label join adds to an impression, as one object {@code labels} at its top level:
 * per action stream {@code NAME} (1 if an action joined, else 0), {@code NAME_delay_ms} (the first
 * joined action's time less the impression's, -1 without one), {@code NAME_count} (the joined
 * actions) and {@code NAME_value} (the sum of their values); then {@code weight} (the row's weight:
 * {@code 1 / negative_sample_rate} for a kept negative, else 1) and {@code copy} (1 for a positive
 * copy of a {@code negative-first} stream, else 0). A spec's {@code input.fields} reads them by the
 * paths {@link #path}: {@code "label": "labels.click"}.
 */
public final class LabelFields {

    /** The object's name at the impression's top level. */
    public static final String OBJECT = "labels";

    public static final String WEIGHT = "weight";
    public static final String COPY = "copy";

    private static final String[] STREAM_SUFFIXES = {"", "_delay_ms", "_count", "_value"};

    private LabelFields() {}

    /** The names of the fields of {@code streams}, in the order the join writes them. */
    public static List<String> names(List<String> streams) {
        List<String> names = new ArrayList<>();
        for (String s : streams) {
            for (String suffix : STREAM_SUFFIXES) {
                names.add(s + suffix);
            }
        }
        names.add(WEIGHT);
        names.add(COPY);
        return names;
    }

    /** The path that reads field {@code name} of the object: {@code labels.NAME}. */
    public static String path(String name) {
        return OBJECT + "." + name;
    }

    /**
     * The values of the fields of {@code row}, in {@link #names}' order: integers, but a stream's
     * value, which is the sum of its actions' values.
     */
    public static List<Number> values(JoinedRow<?> row) {
        List<Number> values = new ArrayList<>();
        for (StreamLabel l : row.labels()) {
            values.add(l.label() ? 1 : 0);
            values.add(l.delayMs());
            values.add(l.actions());
            values.add(l.value());
        }
        values.add(Math.round(row.weight()));
        values.add(row.copyOf() >= 0 ? 1 : 0);
        return values;
    }
}
