package dev.piper.core.decode;

import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.layout.RowLayout;

/**
 * How the named-field decoders' dead letters name an event's fields: a column and its path ({@code
 * C1 (user.id)}), the event time by its path ({@code the event time (ts)}, the field after the
 * layout's), and the reason a value of the wrong kind for a field gets. Shared by {@link
 * JsonValues} and {@link EventValues}.
 */
final class FieldNames {

    private final RowLayout layout;
    private final FieldPath[] paths;

    /** The field of each event's time (one past the layout's), or -1 when there is none. */
    final int timeField;

    private final FieldPath timePath;

    FieldNames(RowLayout layout, EventFields events, int timeField) {
        this.layout = layout;
        this.paths = new FieldPath[layout.fields()];
        for (int f = 0; f < paths.length; f++) {
            paths[f] = events.path(f);
        }
        this.timeField = timeField;
        this.timePath = events.timePath();
    }

    /** Field {@code f}'s path (the event time's for the field after the layout's). */
    FieldPath path(int f) {
        return f == timeField ? timePath : paths[f];
    }

    /** A field and its path, as details name them: {@code C1 (user.id)}. */
    String column(int f) {
        if (f == timeField) {
            return "the event time (" + timePath.text() + ")";
        }
        return layout.fieldName(f) + " (" + paths[f].text() + ")";
    }

    /** The detail of an event without the time the rows carry. */
    String missingTime() {
        return column(timeField) + " is missing";
    }

    /** The reason of a value of the wrong kind for field {@code f}. */
    Reason typeReason(int f) {
        return f == timeField ? Reason.BAD_TIMESTAMP : Reason.WRONG_TYPE;
    }
}
