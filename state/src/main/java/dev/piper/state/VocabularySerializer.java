package dev.piper.state;

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
 * <h2>Byte format, version 1</h2>
 *
 * <pre>
 *   int32  (big-endian)     n, the number of entries
 *   n x int64 (little-endian) the keys in index order: key of index 0, 1, ..., n-1
 * </pre>
 *
 * Only the reverse map is written (8 bytes an entry); the hash table is rebuilt on read, so the
 * format does not depend on the in-memory table layout or hash function. Keys are written in blocks
 * of {@value #BLOCK_ENTRIES} with bulk array copies.
 *
 * <p>The format version is the version of {@link VocabularySerializerSnapshot}. A serializer
 * restored from an older snapshot reads that older format; {@code VocabularySerializerTest} holds
 * frozen bytes of every version.
 */
public final class VocabularySerializer extends TypeSerializer<Vocabulary> {

    private static final long serialVersionUID = 1L;

    /** The format this class writes. */
    public static final int CURRENT_FORMAT = 1;

    static final int BLOCK_ENTRIES = 8192;

    public static final VocabularySerializer INSTANCE = new VocabularySerializer();

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<Vocabulary> duplicate() {
        return this;
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
            return Vocabulary.ofKeys(keys, n);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt vocabulary: " + e.getMessage(), e);
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
    }

    @Override
    public TypeSerializerSnapshot<Vocabulary> snapshotConfiguration() {
        return new VocabularySerializerSnapshot();
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof VocabularySerializer;
    }

    @Override
    public int hashCode() {
        return VocabularySerializer.class.hashCode();
    }
}
