package dev.piper.output;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.piper.core.block.DeadLetter;
import dev.piper.pipeline.layout.Reason;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A {@code dead-letters.jsonl} file: one JSON object per rejected line, {@code line} (1-based),
 * {@code offset} (the line's byte offset in a text input; -1 for a row of a Parquet input), {@code
 * reason}, {@code detail}, {@code raw} (its first bytes, escaped by {@link RawText}) and {@code
 * raw_truncated}; and the counts by reason of what it holds.
 */
public final class DeadLetterFile implements Closeable {

    private final OutputStream out;
    private final JsonGenerator json;
    private final Map<String, Long> byReason = new LinkedHashMap<>();
    private long count;

    public DeadLetterFile(Path file) throws IOException {
        out = new BufferedOutputStream(NamedOutput.open(file), 1 << 16);
        json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
        json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        json.setRootValueSeparator(null);
        for (Reason r : Reason.values()) {
            byReason.put(r.code(), 0L);
        }
    }

    /** Writes one dead letter; {@code line} is its 1-based line (or row) number in the input. */
    public void write(DeadLetter d, long line) throws IOException {
        write(d, line, null, null);
    }

    /**
     * Writes one dead letter of a labelled input ({@code labels}): {@code source} is {@code
     * impressions} or the action stream's name, {@code file} the file it was read from, and {@code
     * line} its line there.
     */
    public void write(DeadLetter d, long line, String source, String file) throws IOException {
        json.writeStartObject();
        json.writeNumberField("line", line);
        json.writeNumberField("offset", d.offset());
        json.writeStringField("reason", d.reason());
        json.writeStringField("detail", d.detail());
        json.writeStringField("raw", RawText.escape(d.raw()));
        json.writeBooleanField("raw_truncated", d.rawTruncated());
        if (source != null) {
            json.writeStringField("source", source);
            json.writeStringField("file", file);
        }
        json.writeEndObject();
        json.writeRaw('\n');
        count++;
        byReason.merge(d.reason(), 1L, Long::sum);
    }

    /**
     * Adds {@code count} dead letters another writer wrote into {@code file} (JSON lines, as this
     * class writes them), with their counts by reason, before any of this file's own.
     */
    public void append(Path file, Map<String, Long> byReason, long count) throws IOException {
        json.flush();
        java.nio.file.Files.copy(file, out);
        byReason.forEach((r, n) -> this.byReason.merge(r, n, Long::sum));
        this.count += count;
    }

    /** Dead letters written. */
    public long count() {
        return count;
    }

    /** Dead letters written by reason code; every known reason is listed, in their order. */
    public Map<String, Long> byReason() {
        return Collections.unmodifiableMap(byReason);
    }

    /** Flushes what is written to the file. */
    public void flush() throws IOException {
        json.flush();
        out.flush();
    }

    @Override
    public void close() throws IOException {
        try (out) {
            json.close();
        }
    }
}
