package dev.piper.connectors.kafka;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.join.JoinDeadLetter;
import dev.piper.output.RawText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * A record the label join refused as a record of the pipeline's dead-letter topic: as the decoder's
 * dead letters, with {@code source} ({@code impressions} or the action stream's name) first, and
 * the record's own topic, partition and offset.
 */
public final class JoinDeadLetterEncoder implements MapFunction<JoinDeadLetter, KafkaOut> {

    private static final long serialVersionUID = 1L;

    private static final JsonFactory JSON = new JsonFactory();

    private final String[] topics;

    /**
     * @param topics each source's topic: the impressions' first, then each action stream's
     */
    public JoinDeadLetterEncoder(String[] topics) {
        this.topics = topics.clone();
    }

    @Override
    public KafkaOut map(JoinDeadLetter d) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + d.raw().length);
        try (JsonGenerator g = JSON.createGenerator(bytes, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("source", d.source());
            g.writeStringField("topic", topics[d.sourceIndex()]);
            g.writeNumberField("partition", d.partition());
            g.writeNumberField("offset", d.offset());
            g.writeStringField("reason", d.reason());
            g.writeStringField("detail", d.detail());
            g.writeStringField("raw", RawText.escape(d.raw()));
            g.writeBooleanField("raw_truncated", d.truncated());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // records of one input partition share a key, hence an output partition and its order
        byte[] key = ByteBuffer.allocate(8).putInt(d.sourceIndex()).putInt(d.partition()).array();
        return new KafkaOut(
                KafkaOut.target(0, KafkaOut.DEAD_LETTERS),
                key,
                bytes.toByteArray(),
                new String[0],
                new byte[0][]);
    }
}
