package dev.piper.output;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.pipeline.input.EventTime;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * {@code event_times.bin}: each row's event time ({@code input.timestamp}) as a little-endian int64
 * of milliseconds since 1970-01-01T00:00:00Z, one per row of {@code rows.bin} in its order; and its
 * entry in {@code metadata.json} (the field it was read from, the count, the earliest and latest
 * time). Written by the batch job and by {@code piper consume}, so the two outputs compare byte for
 * byte.
 */
public final class EventTimesFile implements Closeable {

    private final OutputStream out;
    private long count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    /** The file in output directory {@code dir}. */
    public EventTimesFile(Path dir) throws IOException {
        this.out =
                new BufferedOutputStream(
                        NamedOutput.open(dir.resolve(OutputLayout.EVENT_TIMES)), 1 << 16);
    }

    /**
     * Appends {@code rows} times; {@code times} null (a block of rows without times) is refused
     * naming {@code what}, rather than leave the file shorter than the rows.
     */
    public void write(long[] times, int rows, String what) throws IOException {
        if (times == null || times.length != rows) {
            throw new IllegalStateException(
                    what
                            + " has "
                            + (times == null ? "no" : String.valueOf(times.length))
                            + " event times for its "
                            + rows
                            + " rows");
        }
        ByteBuffer b = ByteBuffer.allocate(rows * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (long t : times) {
            b.putLong(t);
            min = Math.min(min, t);
            max = Math.max(max, t);
        }
        out.write(b.array());
        count += rows;
    }

    /** The times written so far. */
    public long count() {
        return count;
    }

    public void flush() throws IOException {
        out.flush();
    }

    /**
     * Adds {@code event_times} to the metadata {@code root}; with the field and unit the times were
     * read as, where {@code time} (which may be null: not known) says.
     */
    public void describe(ObjectNode root, EventTime time) {
        ObjectNode n = root.putObject("event_times");
        n.put("file", OutputLayout.EVENT_TIMES);
        if (time != null) {
            n.put("field", time.field());
            n.put("unit", time.unit().specName());
        }
        n.put(
                "encoding",
                "int64 little-endian, milliseconds since 1970-01-01T00:00:00Z, one per row");
        n.put("count", count);
        if (count > 0) {
            n.put("min_ms", min);
            n.put("max_ms", max);
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
