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

    /** Takes the values of a row's fields, each by its index in {@link #names}. */
    public interface Values {
        void integer(int field, long value);

        /** A stream's value: the sum of its actions' values. */
        void decimal(int field, double value);
    }

    /**
     * Hands {@code to} the values of the fields of {@code row}, in {@link #names}' order: integers,
     * but a stream's value. Allocates nothing: the stream's join writes every row's through it.
     */
    public static void values(JoinedRow<?> row, Values to) {
        int field = 0;
        for (StreamLabel l : row.labels()) {
            to.integer(field++, l.label() ? 1 : 0);
            to.integer(field++, l.delayMs());
            to.integer(field++, l.actions());
            to.decimal(field++, l.value());
        }
        to.integer(field++, Math.round(row.weight()));
        to.integer(field, row.copyOf() >= 0 ? 1 : 0);
    }
}
