package dev.piper.state;

import dev.piper.pipeline.hotline.ExactCounter;
import dev.piper.pipeline.hotline.HotSet;
import dev.piper.pipeline.hotline.Hotline;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.hotline.SrripTracker;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The serializer of a pipeline's {@link Hotline} state (its trackers, hot set and progress).
 *
 * <h2>Byte format, version 2 (big-endian)</h2>
 *
 * <pre>
 *   int32   sparse columns
 *   settings: int64 budget bytes, int32 dim, int64 window rows, float64 sample rate,
 *             int32 sample rows, int8 tracker (0 exact, 1 srrip), int32 tracker entries,
 *             float64 decay, int64 window in event time (ms; 0 for windows of rows)
 *   progress: int64 rows, int32 window, int64 next window's first row, int64 popular rows,
 *             float64 capture sum, int32 windows with a capture, int32 largest hot set
 *   hot set:  per column, int32 n and n int32 indices, ascending
 *   exact:    int32 n, then n x (int64 key, int32 count), keys ascending
 *   tracker:  int32 capacity, int32 m occupied slots, then m x (int32 slot, int64 key,
 *             int8 RRPV, int32 count), slots ascending
 * </pre>
 *
 * A key is a sparse column (high 32 bits) and an index (low 32 bits); for windows in event time the
 * progress's next window is the event time at which it starts. Version 1 had no window in event
 * time (its windows are rows); a serializer restored from its snapshot reads and writes it. The
 * version is that of {@link HotlineSerializerSnapshot}; {@code HotlineSerializerTest} holds frozen
 * bytes of both.
 */
public final class HotlineSerializer extends TypeSerializer<Hotline> {

    private static final long serialVersionUID = 1L;

    /** The format this class writes. */
    public static final int CURRENT_FORMAT = 2;

    public static final HotlineSerializer INSTANCE = new HotlineSerializer(CURRENT_FORMAT);

    private final int format;

    private HotlineSerializer(int format) {
        this.format = format;
    }

    /** The serializer of state in {@code format} (1..{@link #CURRENT_FORMAT}). */
    static HotlineSerializer ofFormat(int format) {
        if (format < 1 || format > CURRENT_FORMAT) {
            throw new IllegalArgumentException("no Hotline state format " + format);
        }
        return format == CURRENT_FORMAT ? INSTANCE : new HotlineSerializer(format);
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<Hotline> duplicate() {
        return this; // stateless but for the format
    }

    @Override
    public Hotline createInstance() {
        return new Hotline(HotlineSettings.withBudget(1 << 20), 1);
    }

    @Override
    public Hotline copy(Hotline from) {
        // a deep copy, taken only while a heap snapshot holds the old version
        try {
            DataOutputSerializer out = new DataOutputSerializer(1 << 16);
            serialize(from, out);
            return deserialize(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
        } catch (IOException e) {
            throw new IllegalStateException("cannot copy the Hotline state", e);
        }
    }

    @Override
    public Hotline copy(Hotline from, Hotline reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(Hotline h, DataOutputView out) throws IOException {
        out.writeInt(h.columns());
        HotlineSettings s = h.settings();
        out.writeLong(s.budgetBytes());
        out.writeInt(s.dim());
        out.writeLong(s.windowRows());
        out.writeDouble(s.sampleRate());
        out.writeInt(s.sampleRows());
        out.writeByte(s.tracker().ordinal());
        out.writeInt(s.trackerEntries());
        out.writeDouble(s.decay());
        if (format >= 2) {
            out.writeLong(s.windowMs());
        } else if (s.inEventTime()) {
            throw new IOException(
                    "Hotline state format 1 cannot hold windows in event time ("
                            + s.window()
                            + ")");
        }
        Hotline.Progress p = h.progress();
        out.writeLong(p.rows());
        out.writeInt(p.window());
        out.writeLong(p.nextWindow());
        out.writeLong(p.popularRows());
        out.writeDouble(p.captureSum());
        out.writeInt(p.captureWindows());
        out.writeInt(p.largestHotSet());
        for (int c = 0; c < h.columns(); c++) {
            int[] hot = h.hot().indices(c);
            out.writeInt(hot.length);
            for (int i : hot) {
                out.writeInt(i);
            }
        }
        long[] pairs = h.exact().entries();
        out.writeInt(pairs.length / 2);
        for (int i = 0; i < pairs.length; i += 2) {
            out.writeLong(pairs[i]);
            out.writeInt((int) pairs[i + 1]);
        }
        SrripTracker t = h.tracker();
        out.writeInt(t.capacity());
        out.writeInt(t.size());
        for (int i = 0; i < t.capacity(); i++) {
            long key = t.keyAt(i);
            if (key != -1) {
                out.writeInt(i);
                out.writeLong(key);
                out.writeByte(t.rrpvAt(i));
                out.writeInt(t.countAt(i));
            }
        }
    }

    @Override
    public Hotline deserialize(DataInputView in) throws IOException {
        int columns = in.readInt();
        if (columns < 1 || columns > 1 << 16) {
            throw new IOException("corrupt Hotline state: " + columns + " columns");
        }
        HotlineSettings settings;
        try {
            long budget = in.readLong();
            int dim = in.readInt();
            long window = in.readLong();
            double rate = in.readDouble();
            int sampleRows = in.readInt();
            int tracker = in.readByte();
            if (tracker < 0 || tracker >= HotlineSettings.Tracker.values().length) {
                throw new IOException("corrupt Hotline state: tracker " + tracker);
            }
            int trackerEntries = in.readInt();
            double decay = in.readDouble();
            long windowMs = format >= 2 ? in.readLong() : 0;
            settings =
                    new HotlineSettings(
                            budget,
                            dim,
                            window,
                            windowMs,
                            rate,
                            sampleRows,
                            HotlineSettings.Tracker.values()[tracker],
                            trackerEntries,
                            decay);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt Hotline state: " + e.getMessage(), e);
        }
        Hotline.Progress progress =
                new Hotline.Progress(
                        in.readLong(),
                        in.readInt(),
                        in.readLong(),
                        in.readLong(),
                        in.readDouble(),
                        in.readInt(),
                        in.readInt());
        int[][] hot = new int[columns][];
        for (int c = 0; c < columns; c++) {
            hot[c] = new int[count(in, "hot indices")];
            for (int i = 0; i < hot[c].length; i++) {
                hot[c][i] = in.readInt();
            }
        }
        ExactCounter exact = new ExactCounter();
        int n = count(in, "exact counts");
        for (int i = 0; i < n; i++) {
            exact.put(in.readLong(), in.readInt());
        }
        int capacity = in.readInt();
        if (capacity != settings.trackerEntries()) {
            throw new IOException(
                    "corrupt Hotline state: a tracker of "
                            + capacity
                            + " entries, settings say "
                            + settings.trackerEntries());
        }
        SrripTracker tracker = new SrripTracker(capacity);
        int m = count(in, "tracker entries");
        for (int i = 0; i < m; i++) {
            int slot = in.readInt();
            if (slot < 0 || slot >= capacity) {
                throw new IOException("corrupt Hotline state: tracker slot " + slot);
            }
            tracker.restore(slot, in.readLong(), in.readByte(), in.readInt());
        }
        try {
            return new Hotline(settings, columns, exact, tracker, progress, new HotSet(hot));
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt Hotline state: " + e.getMessage(), e);
        }
    }

    private static int count(DataInputView in, String what) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt Hotline state: " + n + " " + what);
        }
        return n;
    }

    @Override
    public Hotline deserialize(Hotline reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public TypeSerializerSnapshot<Hotline> snapshotConfiguration() {
        return new HotlineSerializerSnapshot(format);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof HotlineSerializer h && h.format == format;
    }

    @Override
    public int hashCode() {
        return 31 * HotlineSerializer.class.hashCode() + format;
    }
}
