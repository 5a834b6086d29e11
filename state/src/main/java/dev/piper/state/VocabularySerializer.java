package dev.piper.state;

import dev.piper.pipeline.ops.VocabularyPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The serializer of {@link Vocabulary} keyed state.
 *
 * <h2>Byte format, version 4</h2>
 *
 * <pre>
 *   int32  (big-endian)       n, the number of entries
 *   n x int64 (little-endian) the keys in index order: key of index 0, 1, ..., n-1
 *   int32  (big-endian)       c, the number of counted keys not admitted yet (frequency threshold)
 *   c x (int64 key, int32 count), little-endian, in no particular order
 *   int8                      e, the eviction order kept: 0 none, 1 LFU, 2 TTL
 *   if e != 0:
 *     int64 (big-endian)      the rows applied
 *     int64 (big-endian)      the assignments made
 *     int64 (big-endian)      under a TTL in event time its clock, the latest event time (ms)
 *                             applied; Long.MIN_VALUE otherwise
 *     n x (int32 index, int64 stamp, int32 last row), little-endian, from the next victim on:
 *                             the stamp is the count (LFU) or the row last seen in (TTL; in
 *                             event time the clock when last seen), the last row its low 32 bits
 * </pre>
 *
 * Version 3 is the same without the clock, version 2 without {@code e} and what follows, version 1
 * also without the counts ({@code c} and what follows). Only the reverse map is written (8 bytes an
 * entry); the hash table is rebuilt on read, so the format does not depend on the in-memory table
 * layout or hash function. Keys are written in blocks of {@value #BLOCK_ENTRIES} with bulk array
 * copies.
 *
 * <p>The format version is the version of {@link VocabularySerializerSnapshot}. A serializer
 * restored from an older snapshot reads (and writes) that older format; {@code
 * VocabularySerializerTest} holds frozen bytes of every version.
 */
public final class VocabularySerializer extends TypeSerializer<Vocabulary> {

    private static final long serialVersionUID = 2L;

    /** The format this class writes. */
    public static final int CURRENT_FORMAT = 4;

    static final int BLOCK_ENTRIES = 8192;

    private static final int COUNT_BYTES = Long.BYTES + Integer.BYTES;

    private static final int ORDER_BYTES = Integer.BYTES + Long.BYTES + Integer.BYTES;

    public static final VocabularySerializer INSTANCE = new VocabularySerializer(CURRENT_FORMAT);

    private final int format;

    private VocabularySerializer(int format) {
        this.format = format;
    }

    /** The serializer of state in {@code format} (1..{@link #CURRENT_FORMAT}). */
    static VocabularySerializer ofFormat(int format) {
        if (format < 1 || format > CURRENT_FORMAT) {
            throw new IllegalArgumentException("no vocabulary format " + format);
        }
        return format == CURRENT_FORMAT ? INSTANCE : new VocabularySerializer(format);
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<Vocabulary> duplicate() {
        return this; // stateless but for the format
    }

    @Override
    public Vocabulary createInstance() {
        return new Vocabulary();
    }

    @Override
    public Vocabulary copy(Vocabulary from) {
        return from.copy();
    }

    @Override
    public Vocabulary copy(Vocabulary from, Vocabulary reuse) {
        return from.copy();
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(Vocabulary record, DataOutputView target) throws IOException {
        int n = record.size();
        target.writeInt(n);
        long[] keys = new long[Math.min(n, BLOCK_ENTRIES)];
        byte[] bytes = new byte[keys.length * Long.BYTES];
        ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int from = 0; from < n; from += BLOCK_ENTRIES) {
            int len = Math.min(BLOCK_ENTRIES, n - from);
            for (int i = 0; i < len; i++) {
                keys[i] = record.keyAt(from + i);
            }
            view.clear();
            view.asLongBuffer().put(keys, 0, len);
            target.write(bytes, 0, len * Long.BYTES);
        }
        if (format >= 2) {
            writeCounts(record, target);
        } else if (record.countedKeys() > 0) {
            throw new IOException(
                    "vocabulary format 1 cannot hold the counts of a frequency threshold");
        }
        if (format >= 3) {
            writeEviction(record, target, format);
        } else if (record.evicting()) {
            throw new IOException("vocabulary format " + format + " cannot hold an eviction order");
        }
    }

    private static void writeEviction(Vocabulary record, DataOutputView target, int format)
            throws IOException {
        VocabularyPolicy.Eviction kind = record.eviction();
        target.writeByte(kind.ordinal());
        if (kind == VocabularyPolicy.Eviction.NONE) {
            return;
        }
        target.writeLong(record.rowsApplied());
        target.writeLong(record.assignments());
        if (format >= 4) {
            target.writeLong(record.eventClock());
        } else if (record.eventClock() != Vocabulary.NO_CLOCK) {
            throw new IOException(
                    "vocabulary format " + format + " cannot hold a ttl in event time");
        }
        int n = record.size();
        ByteBuffer buf =
                ByteBuffer.allocate(Math.max(1, Math.min(n, BLOCK_ENTRIES)) * ORDER_BYTES)
                        .order(ByteOrder.LITTLE_ENDIAN);
        IOException[] failed = new IOException[1];
        record.forEachInEvictionOrder(
                (index, stamp, lastRow) -> {
                    if (failed[0] != null) {
                        return;
                    }
                    buf.putInt(index).putLong(stamp).putInt(lastRow);
                    if (!buf.hasRemaining()) {
                        try {
                            target.write(buf.array(), 0, buf.position());
                        } catch (IOException e) {
                            failed[0] = e;
                        }
                        buf.clear();
                    }
                });
        if (failed[0] != null) {
            throw failed[0];
        }
        target.write(buf.array(), 0, buf.position());
    }

    private static void readEviction(Vocabulary v, DataInputView source, int format)
            throws IOException {
        int kind = source.readByte();
        VocabularyPolicy.Eviction[] kinds = VocabularyPolicy.Eviction.values();
        if (kind < 0 || kind >= kinds.length) {
            throw new IOException("corrupt vocabulary: eviction kind " + kind);
        }
        if (kind == 0) {
            return;
        }
        v.restoreEviction(kinds[kind], source.readLong(), source.readLong());
        if (format >= 4) {
            v.restoreEventClock(source.readLong());
        }
        int n = v.size();
        byte[] bytes = new byte[Math.min(n, BLOCK_ENTRIES) * ORDER_BYTES];
        ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        boolean[] seen = new boolean[n];
        for (int from = 0; from < n; from += BLOCK_ENTRIES) {
            int len = Math.min(BLOCK_ENTRIES, n - from);
            source.readFully(bytes, 0, len * ORDER_BYTES);
            view.clear();
            for (int i = 0; i < len; i++) {
                int index = view.getInt();
                if (index < 0 || index >= n || seen[index]) {
                    throw new IOException(
                            "corrupt vocabulary: index "
                                    + index
                                    + " in the eviction order of "
                                    + n
                                    + " entries");
                }
                seen[index] = true;
                v.restoreEvictionEntry(index, view.getLong(), view.getInt());
            }
        }
    }

    private static void writeCounts(Vocabulary record, DataOutputView target) throws IOException {
        int c = record.countedKeys();
        target.writeInt(c);
        if (c == 0) {
            return;
        }
        ByteBuffer buf =
                ByteBuffer.allocate(Math.min(c, BLOCK_ENTRIES) * COUNT_BYTES)
                        .order(ByteOrder.LITTLE_ENDIAN);
        IOException[] failed = new IOException[1];
        record.forEachCount(
                (key, count) -> {
                    if (failed[0] != null) {
                        return;
                    }
                    buf.putLong(key).putInt(count);
                    if (!buf.hasRemaining()) {
                        try {
                            target.write(buf.array(), 0, buf.position());
                        } catch (IOException e) {
                            failed[0] = e;
                        }
                        buf.clear();
                    }
                });
        if (failed[0] != null) {
            throw failed[0];
        }
        target.write(buf.array(), 0, buf.position());
    }

    @Override
    public Vocabulary deserialize(DataInputView source) throws IOException {
        int n = source.readInt();
        if (n < 0 || n > Vocabulary.MAX_SIZE) {
            throw new IOException("corrupt vocabulary: " + n + " entries");
        }
        long[] keys = new long[n];
        byte[] bytes = new byte[Math.min(n, BLOCK_ENTRIES) * Long.BYTES];
        ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int from = 0; from < n; from += BLOCK_ENTRIES) {
            int len = Math.min(BLOCK_ENTRIES, n - from);
            source.readFully(bytes, 0, len * Long.BYTES);
            view.clear();
            view.asLongBuffer().get(keys, from, len);
        }
        try {
            Vocabulary v = Vocabulary.ofKeys(keys, n);
            if (format >= 2) {
                readCounts(v, source);
            }
            if (format >= 3) {
                readEviction(v, source, format);
            }
            return v;
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt vocabulary: " + e.getMessage(), e);
        }
    }

    private static void readCounts(Vocabulary v, DataInputView source) throws IOException {
        int c = source.readInt();
        if (c < 0) {
            throw new IOException("corrupt vocabulary: " + c + " counted keys");
        }
        byte[] bytes = new byte[Math.min(c, BLOCK_ENTRIES) * COUNT_BYTES];
        ByteBuffer view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int from = 0; from < c; from += BLOCK_ENTRIES) {
            int len = Math.min(BLOCK_ENTRIES, c - from);
            source.readFully(bytes, 0, len * COUNT_BYTES);
            view.clear();
            for (int i = 0; i < len; i++) {
                v.putCount(view.getLong(), view.getInt());
            }
        }
    }

    @Override
    public Vocabulary deserialize(Vocabulary reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        int n = source.readInt();
        target.writeInt(n);
        byte[] bytes = new byte[Math.min(n, BLOCK_ENTRIES) * Long.BYTES];
        for (int from = 0; from < n; from += BLOCK_ENTRIES) {
            int len = Math.min(BLOCK_ENTRIES, n - from) * Long.BYTES;
            source.readFully(bytes, 0, len);
            target.write(bytes, 0, len);
        }
        if (format >= 2) {
            int c = source.readInt();
            target.writeInt(c);
            byte[] counts = new byte[Math.min(c, BLOCK_ENTRIES) * COUNT_BYTES];
            for (int from = 0; from < c; from += BLOCK_ENTRIES) {
                int len = Math.min(BLOCK_ENTRIES, c - from) * COUNT_BYTES;
                source.readFully(counts, 0, len);
                target.write(counts, 0, len);
            }
        }
        if (format >= 3) {
            byte kind = source.readByte();
            target.writeByte(kind);
            if (kind != 0) {
                target.writeLong(source.readLong());
                target.writeLong(source.readLong());
                if (format >= 4) {
                    target.writeLong(source.readLong());
                }
                byte[] order = new byte[Math.min(n, BLOCK_ENTRIES) * ORDER_BYTES];
                for (int from = 0; from < n; from += BLOCK_ENTRIES) {
                    int len = Math.min(BLOCK_ENTRIES, n - from) * ORDER_BYTES;
                    source.readFully(order, 0, len);
                    target.write(order, 0, len);
                }
            }
        }
    }

    @Override
    public TypeSerializerSnapshot<Vocabulary> snapshotConfiguration() {
        return new VocabularySerializerSnapshot();
    }

    /** The byte format this serializer reads and writes. */
    public int format() {
        return format;
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof VocabularySerializer v && v.format == format;
    }

    @Override
    public int hashCode() {
        return 31 * VocabularySerializer.class.hashCode() + format;
    }
}
