package dev.piper.connectors.kafka;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.join.ImpressionLines;
import dev.piper.core.join.JoinDeadLetter;
import dev.piper.output.RawText;
import dev.piper.pipeline.join.JoinReason;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * A record the label join refused as a record of the pipeline's dead-letter topic: as the decoder's
 * dead letters, with {@code source} ({@code impressions} or the action stream's name) first, and
 * the record's own topic, partition and offset. An impression the join refused while it held its
 * position only (late or duplicate, its bytes empty: {@code StreamJoinReader.IN_TOPIC}) gets its
 * bytes read back from its topic here.
 */
public final class JoinDeadLetterEncoder extends RichMapFunction<JoinDeadLetter, KafkaOut> {

    private static final long serialVersionUID = 1L;

    private static final JsonFactory JSON = new JsonFactory();

    private final String[] topics;
    private final ImpressionLines.Opener opener;
    private final int maxRawBytes;
    private transient ImpressionLines lines;

    /**
     * @param topics each source's topic: the impressions' first, then each action stream's
     * @param opener opens the impressions' lines, for a refused impression held by position (on the
     *     first); null if the join holds every impression's line
     * @param maxRawBytes the most bytes of a record a dead letter keeps
     */
    public JoinDeadLetterEncoder(String[] topics, ImpressionLines.Opener opener, int maxRawBytes) {
        this.topics = topics.clone();
        this.opener = opener;
        this.maxRawBytes = maxRawBytes;
    }

    @Override
    public void close() throws Exception {
        try {
            if (lines != null) {
                lines.close();
                lines = null;
            }
        } finally {
            super.close();
        }
    }

    @Override
    public KafkaOut map(JoinDeadLetter d) throws IOException {
        if (heldByPosition(d)) {
            d = withBytes(d);
        }
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

    /** Whether {@code d} is of an impression the join held by its position: no bytes with it. */
    private static boolean heldByPosition(JoinDeadLetter d) {
        return d.sourceIndex() == 0
                && d.raw().length == 0
                && (d.reason().equals(JoinReason.LATE_IMPRESSION.code())
                        || d.reason().equals(JoinReason.DUPLICATE_IMPRESSION.code()));
    }

    /** {@code d} with its impression's bytes read back from the topic, or saying they are gone. */
    private JoinDeadLetter withBytes(JoinDeadLetter d) throws IOException {
        if (opener == null) {
            return d;
        }
        if (lines == null) {
            lines = opener.open();
        }
        byte[] line = lines.read(d.partition(), new long[] {d.offset()})[0];
        int keep = line == null ? 0 : Math.min(line.length, maxRawBytes);
        return new JoinDeadLetter(
                d.source(),
                d.sourceIndex(),
                d.partition(),
                d.offset(),
                d.reason(),
                line == null ? d.detail() + "; its bytes are no longer in its topic" : d.detail(),
                line == null ? d.raw() : Arrays.copyOf(line, keep),
                line != null && keep < line.length);
    }
}
