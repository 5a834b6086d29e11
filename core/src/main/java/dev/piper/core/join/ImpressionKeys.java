package dev.piper.core.join;

import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.join.LabelFields;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.join.ReadReason;
import dev.piper.pipeline.layout.Reason;
import java.util.List;

/**
 * Reads an impression's join key ({@code input.key}) from its JSON object, for the batch join and
 * the stream's alike: the key, or the reason the impression cannot join.
 */
final class ImpressionKeys {

    private final JsonFields key;
    private final String keyPath;
    private String reason;
    private String detail;

    ImpressionKeys(LabelSpec labels) {
        this.keyPath = labels.key();
        this.key = new JsonFields(List.of(FieldPath.parse(keyPath)), LabelFields.OBJECT);
    }

    /**
     * The key of the object in {@code b[from, to)}, or null: then {@link #reason()} and {@link
     * #detail()} say why.
     */
    String read(byte[] b, int from, int to) {
        try {
            key.read(b, from, to);
        } catch (JsonFields.NotAnObject e) {
            return refuse(Reason.INVALID_JSON.code(), e.getMessage());
        }
        if (key.hasTopField()) {
            return refuse(
                    ReadReason.LABELS_FIELD_TAKEN.code(),
                    "the impression has a field \"labels\", which the label join writes");
        }
        String k = BatchLabelJoin.keyText(key.value(0));
        if (k == null) {
            return refuse(
                    ReadReason.BAD_JOIN_KEY.code(),
                    BatchLabelJoin.badKey("input.key", key.value(0)));
        }
        return k;
    }

    String reason() {
        return reason;
    }

    String detail() {
        return detail;
    }

    private String refuse(String reason, String detail) {
        this.reason = reason;
        this.detail = detail;
        return null;
    }
}
