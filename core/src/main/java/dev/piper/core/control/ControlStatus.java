package dev.piper.core.control;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.piper.core.block.KafkaOut;
import dev.piper.pipeline.layout.CriteoLayout;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The records of the control-status output, one JSON object each (documented in {@code
 * docs/SPECS.md}, "Switching specs at run time"), keyed by the pipeline's name:
 *
 * <ul>
 *   <li>{@code accepted}: a spec passed validation and became the pipeline's active spec; it takes
 *       effect in each input partition with the next block decoded there;
 *   <li>{@code rejected}: a spec failed; every problem names its field, the active spec stays;
 *   <li>{@code effective}: the first block of an input partition decoded under a new version, with
 *       its first input offset: the exact switch point in that partition.
 * </ul>
 */
public final class ControlStatus {

    private static final JsonFactory JSON = new JsonFactory();
    private static final String[] NO_NAMES = new String[0];
    private static final byte[][] NO_VALUES = new byte[0][];

    private ControlStatus() {}

    /** {@code next} was accepted as the successor of {@code previous}. */
    public static KafkaOut accepted(String source, ActiveSpec previous, ActiveSpec next) {
        return record(
                next.name(),
                g -> {
                    g.writeStringField("status", "accepted");
                    g.writeStringField("pipeline", next.name());
                    g.writeNumberField("version", next.version());
                    g.writeNumberField("previous_version", previous.version());
                    g.writeStringField("source", source);
                    g.writeStringField("takes_effect", "next block of each input partition");
                    if (!next.spec().layout().equals(previous.spec().layout())) {
                        g.writeStringField(
                                "layout", previous.spec().layout() + " -> " + next.spec().layout());
                    }
                    g.writeArrayFieldStart("changed");
                    for (String f : previous.changedFields(next)) {
                        g.writeString(f);
                    }
                    g.writeEndArray();
                    g.writeObjectFieldStart("new_epochs");
                    int[] before = previous.epochs();
                    int[] after = next.epochs();
                    for (int c = 0; c < after.length; c++) {
                        if (c >= before.length || after[c] != before[c]) {
                            g.writeNumberField(CriteoLayout.sparseName(c), after[c]);
                        }
                    }
                    g.writeEndObject();
                });
    }

    /**
     * A message was rejected.
     *
     * @param pipeline the spec's pipeline if it could be read, else null
     * @param version the spec's version if it could be read, else 0
     * @param active the active spec of the pipeline concerned, or null if none is
     */
    public static KafkaOut rejected(
            String source, String pipeline, int version, ActiveSpec active, List<String> problems) {
        return record(
                active != null ? active.name() : pipeline != null ? pipeline : "",
                g -> {
                    g.writeStringField("status", "rejected");
                    if (pipeline == null) {
                        g.writeNullField("pipeline");
                        g.writeNullField("version");
                    } else {
                        g.writeStringField("pipeline", pipeline);
                        g.writeNumberField("version", version);
                    }
                    g.writeStringField("source", source);
                    if (active == null) {
                        g.writeNullField("active_version");
                    } else {
                        g.writeNumberField("active_version", active.version());
                    }
                    g.writeArrayFieldStart("problems");
                    for (String p : problems) {
                        g.writeString(p);
                    }
                    g.writeEndArray();
                });
    }

    /** Input partition {@code partition} switched to {@code version} at {@code offset}. */
    public static KafkaOut effective(
            String pipeline,
            int version,
            int previousVersion,
            String topic,
            int partition,
            long offset) {
        return record(
                pipeline,
                g -> {
                    g.writeStringField("status", "effective");
                    g.writeStringField("pipeline", pipeline);
                    g.writeNumberField("version", version);
                    g.writeNumberField("previous_version", previousVersion);
                    g.writeStringField("topic", topic);
                    g.writeNumberField("partition", partition);
                    g.writeNumberField("offset", offset);
                });
    }

    private interface Fields {
        void write(JsonGenerator g) throws IOException;
    }

    private static KafkaOut record(String key, Fields fields) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (JsonGenerator g = JSON.createGenerator(bytes, JsonEncoding.UTF8)) {
            g.writeStartObject();
            fields.write(g);
            g.writeNumberField("time_ms", System.currentTimeMillis());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new KafkaOut(
                KafkaOut.STATUS,
                key.getBytes(StandardCharsets.UTF_8),
                bytes.toByteArray(),
                NO_NAMES,
                NO_VALUES);
    }
}
