package dev.piper.core.decode;

import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import dev.piper.pipeline.ops.DecodeOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * A decoder of binary events that travel in {@link RecordFrames} (Avro, Protobuf): it walks a
 * chunk's frames and hands each to {@link #decodeFrame}, which makes every event in it a row
 * ({@link #accept}) or a dead letter ({@link #reject}); the block is then made of the rows ({@link
 * EventRows}), its lines the events in order.
 *
 * <p>Not thread-safe; one per decoding subtask.
 */
abstract class FramedEventDecoder implements BlockDecoder {

    /** The event's values into its columns, and the block's rows. */
    final EventValues values;

    final EventRows rows;

    // The block being decoded.
    private RawChunk chunk;
    private List<DeadLetter> dead;
    private int lines;
    private int acceptedBytes;

    FramedEventDecoder(DecodeOptions options, boolean measure) {
        this.values = new EventValues(options, measure);
        this.rows = values.rows;
    }

    @Override
    public long[] measureKinds(RawChunk chunk) {
        return new long[2];
    }

    @Override
    public final CriteoDecoder.Decoded decode(RawChunk chunk, boolean countFields) {
        byte[] b = chunk.data();
        int end = chunk.length();
        this.chunk = chunk;
        this.dead = new ArrayList<>();
        this.lines = 0;
        this.acceptedBytes = 0;
        rows.startBlock();
        int at = 0;
        while (at < end) {
            if (end - at < RecordFrames.HEADER) {
                throw new IllegalStateException("a frame's header is cut short at byte " + at);
            }
            int length = RecordFrames.length(b, at);
            int records = RecordFrames.records(b, at);
            int from = at + RecordFrames.HEADER;
            int to = from + length;
            if (length < 0 || to > end || records < 1) {
                throw new IllegalStateException(
                        "a frame of " + length + " bytes and " + records + " records at " + at);
            }
            decodeFrame(b, from, to, records);
            at = to;
        }
        CriteoDecoder.Decoded decoded = rows.finish(chunk, lines, dead, acceptedBytes);
        this.chunk = null;
        this.dead = null;
        return decoded;
    }

    /**
     * Decodes the {@code records} events of frame {@code b[from, to)}, each, in order, {@link
     * #accept}ed or {@link #reject}ed.
     */
    abstract void decodeFrame(byte[] b, int from, int to, int records);

    /** The current event, of {@code bytes} bytes, is a row. */
    final void accept(int bytes) {
        rows.commit();
        acceptedBytes += bytes;
        lines++;
    }

    /**
     * The event whose values a decoder wrote straight into the block's next row ({@link
     * EventRows#nextRow}), of {@code bytes} bytes, is that row; it has the fields whose bits {@code
     * present} sets.
     */
    final void acceptWritten(int bytes, long present) {
        rows.commitWritten(present);
        acceptedBytes += bytes;
        lines++;
    }

    /**
     * The current event is a dead letter for the reason {@link #values} holds; its bytes {@code
     * b[s, e)}.
     */
    final void reject(byte[] b, int s, int e) {
        dead.add(values.deadLetter(chunk, lines++, b, s, e));
    }
}
