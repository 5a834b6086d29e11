package dev.piper.core.join;

import com.fasterxml.jackson.core.JsonToken;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.join.ActionSource;
import dev.piper.pipeline.join.ReadReason;
import dev.piper.pipeline.layout.Reason;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an action's key, time, id and value from its JSON line, as its stream's {@link
 * ActionSource} names them, or says why it cannot: the line is no JSON object ({@code
 * invalid_json}), the time is no time ({@code bad_timestamp}, as {@link EventTime} reads times),
 * the key, id or value is not one ({@link ReadReason}).
 */
final class ActionFields {

    /**
     * The largest magnitude of a value: sums of many stay finite and exact in their integer part.
     */
    static final double MAX_VALUE = 1e15;

    /** What a line held: the fields, or the reason (and detail) it is a dead letter. */
    record Read(String key, long timeMs, String id, double value, String reason, String detail) {

        static Read refused(String reason, String detail) {
            return new Read(null, 0, null, 0, reason, detail);
        }
    }

    private final ActionSource source;
    private final JsonFields fields;
    private final int idAt;
    private final int valueAt;

    ActionFields(ActionSource source) {
        this.source = source;
        List<FieldPath> paths = new ArrayList<>();
        paths.add(FieldPath.parse(source.key()));
        paths.add(FieldPath.parse(source.time().field()));
        idAt = source.id() == null ? -1 : paths.size();
        if (source.id() != null) {
            paths.add(FieldPath.parse(source.id()));
        }
        valueAt = source.value() == null ? -1 : paths.size();
        if (source.value() != null) {
            paths.add(FieldPath.parse(source.value()));
        }
        this.fields = new JsonFields(paths, null);
    }

    Read read(byte[] line) {
        try {
            fields.read(line, 0, line.length);
        } catch (JsonFields.NotAnObject e) {
            return Read.refused(Reason.INVALID_JSON.code(), e.getMessage());
        }
        String key = BatchLabelJoin.keyText(fields.value(0));
        if (key == null) {
            return Read.refused(
                    ReadReason.BAD_JOIN_KEY.code(),
                    BatchLabelJoin.badKey(source.key(), fields.value(0)));
        }
        EventTime time = source.time();
        JsonFields.Value t = fields.value(1);
        long ms = millis(time, t);
        if (ms == EventTime.INVALID) {
            String why =
                    t == null
                            ? "is missing"
                            : t.token() == JsonToken.VALUE_STRING
                                    ? time.whyNot(t.text())
                                    : t.isNumber() ? time.outOfRange(t.text()) : "is " + t.text();
            return Read.refused(Reason.BAD_TIMESTAMP.code(), time.field() + ": " + why);
        }
        String id = null;
        if (idAt >= 0 && fields.value(idAt) != null) {
            id = BatchLabelJoin.keyText(fields.value(idAt));
            if (id == null) {
                return Read.refused(
                        ReadReason.BAD_ACTION_ID.code(),
                        source.id()
                                + ": \""
                                + fields.value(idAt).text()
                                + "\" is not an id (a non-empty string or an integer)");
            }
        }
        double value = 0;
        if (valueAt >= 0 && fields.value(valueAt) != null) {
            JsonFields.Value v = fields.value(valueAt);
            value = v.isNumber() ? Double.parseDouble(v.text()) : Double.NaN;
            if (!(Math.abs(value) <= MAX_VALUE)) {
                return Read.refused(
                        ReadReason.BAD_ACTION_VALUE.code(),
                        source.value() + ": \"" + v.text() + "\" is not a number within 1e15 of 0");
            }
        }
        return new Read(key, ms, id, value, null, null);
    }

    private static long millis(EventTime time, JsonFields.Value t) {
        if (t == null) {
            return EventTime.INVALID;
        }
        try {
            return switch (t.token()) {
                case VALUE_NUMBER_INT -> time.millis(Long.parseLong(t.text()));
                case VALUE_NUMBER_FLOAT -> time.millis(Double.parseDouble(t.text()));
                case VALUE_STRING -> time.millis(t.text());
                default -> EventTime.INVALID;
            };
        } catch (NumberFormatException tooLarge) {
            return EventTime.INVALID;
        }
    }
}
