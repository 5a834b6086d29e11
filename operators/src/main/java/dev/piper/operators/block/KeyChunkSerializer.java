package dev.piper.operators.block;

import dev.piper.core.block.KeyChunk;
import dev.piper.pipeline.ops.VocabularyPolicy;
import java.io.IOException;
import java.util.function.IntFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link KeyChunk}. Format 6: {@code lane, column} (int32), {@code seq} (int64), the
 * keys as int32 count and little-endian int64 values, the {@code epoch} (int32), then the
 * vocabulary policy: a byte, 0 for the default policy, else 1 (2 for an evicting policy) followed
 * by {@code min_count, oov_buckets, max_size} (int32) and the import path (a byte, 1 if present,
 * then its modified UTF-8), and after tag 2 the capacity (int32), the eviction (int8, 1 LFU, 2 TTL)
 * and the ttl in rows (int64) and in event time (int64 ms); then a list column's offsets: int32 -1
 * for a column of one id per row, else their count and little-endian int32 values; then the rows'
 * event times: int32 -1 for none, else their count and little-endian int64 values. Format 5 had
 * neither the ttl in event time nor the times, format 4 no offsets, format 3 no policy, format 2 no
 * epoch, format 1 no lane.
 *
 * <p>Unlike the other block serializers, this one still reads formats 3 to 5: key chunks wait in
 * the vocabulary operator's keyed state, so a savepoint of an older build holds this state (empty
 * or not), and it restores by migration, its chunks without lists (and, from format 3, under the
 * default policy).
 */
public final class KeyChunkSerializer extends BlockSerializer<KeyChunk> {

    private static final long serialVersionUID = 1L;

    public static final KeyChunkSerializer INSTANCE = new KeyChunkSerializer();

    /** The byte format this class writes and reads. */
    static final int FORMAT = 6;

    @Override
    public KeyChunk createInstance() {
        return KeyChunk.builder().column(0).seq(0).keys(new long[0]).size(0).build();
    }

    @Override
    public KeyChunk copy(KeyChunk from) {
        return from;
    }

    @Override
    public void serialize(KeyChunk r, DataOutputView out) throws IOException {
        writeFormat3(r, out);
        writePolicy(r.policy(), out, true);
        writeOffsets(r.offsets(), out);
        writeTimes(r.times(), out);
    }

    private static void writeTimes(long[] times, DataOutputView out) throws IOException {
        if (times == null) {
            out.writeInt(-1);
        } else {
            ArrayIO.writeLongs(out, times, times.length);
        }
    }

    private static long[] readTimes(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n == -1) {
            return null;
        }
        if (n < 0) {
            throw new IOException("corrupt key chunk: " + n + " event times");
        }
        return ArrayIO.readLongs(in, n);
    }

    private static void writeOffsets(int[] offsets, DataOutputView out) throws IOException {
        if (offsets == null) {
            out.writeInt(-1);
        } else {
            ArrayIO.writeInts(out, offsets, offsets.length);
        }
    }

    private static int[] readOffsets(DataInputView in) throws IOException {
        int n = in.readInt();
        if (n == -1) {
            return null;
        }
        if (n < 1) {
            throw new IOException("corrupt key chunk: " + n + " list offsets");
        }
        return ArrayIO.readInts(in, n);
    }

    /** Format 3's fields: everything but the policy. */
    private static void writeFormat3(KeyChunk r, DataOutputView out) throws IOException {
        out.writeInt(r.lane());
        out.writeInt(r.column());
        out.writeLong(r.seq());
        ArrayIO.writeLongs(out, r.keys(), r.size());
        out.writeInt(r.epoch());
    }

    /** Format 3's fields, as a chunk under the default policy. */
    private static KeyChunk readFormat3(DataInputView in) throws IOException {
        int lane = in.readInt();
        int column = in.readInt();
        long seq = in.readLong();
        long[] keys = ArrayIO.readLongs(in);
        return KeyChunk.builder()
                .lane(lane)
                .column(column)
                .seq(seq)
                .keys(keys)
                .size(keys.length)
                .epoch(in.readInt())
                .build();
    }

    /** The policy; with {@code ms} (format 6) its ttl in event time too. */
    private static void writePolicy(VocabularyPolicy p, DataOutputView out, boolean ms)
            throws IOException {
        if (p.isFirstAppearance()) {
            out.writeByte(0);
            return;
        }
        out.writeByte(p.evicts() ? 2 : 1);
        out.writeInt(p.minCount());
        out.writeInt(p.oovBuckets());
        out.writeInt(p.maxSize());
        out.writeBoolean(p.importPath() != null);
        if (p.importPath() != null) {
            out.writeUTF(p.importPath());
        }
        if (p.evicts()) {
            out.writeInt(p.capacity());
            out.writeByte(p.eviction().ordinal());
            out.writeLong(p.ttlRows());
            if (ms) {
                out.writeLong(p.ttlMs());
            } else if (p.ttlInEventTime()) {
                throw new IOException("key chunk format 5 cannot hold a ttl in event time");
            }
        }
    }

    private static VocabularyPolicy readPolicy(DataInputView in, boolean ms) throws IOException {
        byte tag = in.readByte();
        if (tag == 0) {
            return VocabularyPolicy.FIRST_APPEARANCE;
        }
        if (tag != 1 && tag != 2) {
            throw new IOException("corrupt key chunk: vocabulary policy tag " + tag);
        }
        int minCount = in.readInt();
        int oov = in.readInt();
        int maxSize = in.readInt();
        String path = in.readBoolean() ? in.readUTF() : null;
        int capacity = 0;
        VocabularyPolicy.Eviction eviction = VocabularyPolicy.Eviction.NONE;
        long ttl = 0;
        long ttlMs = 0;
        if (tag == 2) {
            capacity = in.readInt();
            int kind = in.readByte();
            VocabularyPolicy.Eviction[] kinds = VocabularyPolicy.Eviction.values();
            if (kind < 1 || kind >= kinds.length) {
                throw new IOException("corrupt key chunk: eviction kind " + kind);
            }
            eviction = kinds[kind];
            ttl = in.readLong();
            ttlMs = ms ? in.readLong() : 0;
        }
        try {
            return new VocabularyPolicy(
                    minCount, oov, maxSize, path, capacity, eviction, ttl, ttlMs);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt key chunk: " + e.getMessage(), e);
        }
    }

    @Override
    public KeyChunk deserialize(DataInputView in) throws IOException {
        return readFormat4(in, 6);
    }

    /** Format 4's fields, and of {@code format} 5 or 6 what those add. */
    private static KeyChunk readFormat4(DataInputView in, int format) throws IOException {
        KeyChunk k = readFormat3(in);
        VocabularyPolicy policy = readPolicy(in, format >= 6);
        int[] o = format >= 5 ? readOffsets(in) : null;
        long[] times = format >= 6 ? readTimes(in) : null;
        try {
            return KeyChunk.builder()
                    .lane(k.lane())
                    .column(k.column())
                    .seq(k.seq())
                    .keys(k.keys())
                    .size(k.size())
                    .epoch(k.epoch())
                    .policy(policy)
                    .offsets(o)
                    .times(times)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt key chunk: " + e.getMessage(), e);
        }
    }

    /** Format 5, for restoring state written before event times: none, and ttls in rows. */
    static final class Format5 extends LegacyFormat<KeyChunk> {
        private static final long serialVersionUID = 1L;

        static final Format5 INSTANCE = new Format5();

        private Format5() {
            super("key chunk", 5, KeyChunkSerializer.INSTANCE);
        }

        @Override
        public void serialize(KeyChunk r, DataOutputView out) throws IOException {
            if (r.times() != null) {
                throw cannotHold("event times");
            }
            writeFormat3(r, out);
            writePolicy(r.policy(), out, false);
            writeOffsets(r.offsets(), out);
        }

        @Override
        public KeyChunk deserialize(DataInputView in) throws IOException {
            return readFormat4(in, 5);
        }
    }

    /** Format 4, for restoring state written before list columns: no offsets. */
    static final class Format4 extends LegacyFormat<KeyChunk> {
        private static final long serialVersionUID = 1L;

        static final Format4 INSTANCE = new Format4();

        private Format4() {
            super("key chunk", 4, KeyChunkSerializer.INSTANCE);
        }

        @Override
        public void serialize(KeyChunk r, DataOutputView out) throws IOException {
            if (r.offsets() != null) {
                throw cannotHold("list columns");
            }
            if (r.times() != null) {
                throw cannotHold("event times");
            }
            writeFormat3(r, out);
            writePolicy(r.policy(), out, false);
        }

        @Override
        public KeyChunk deserialize(DataInputView in) throws IOException {
            return readFormat4(in, 4);
        }
    }

    /** Format 3, for restoring state written before vocabulary policies: no policy. */
    static final class Format3 extends LegacyFormat<KeyChunk> {
        private static final long serialVersionUID = 1L;

        static final Format3 INSTANCE = new Format3();

        private Format3() {
            super("key chunk", 3, KeyChunkSerializer.INSTANCE);
        }

        @Override
        public void serialize(KeyChunk r, DataOutputView out) throws IOException {
            if (!r.policy().isFirstAppearance()) {
                throw cannotHold("vocabulary policy");
            }
            writeFormat3(r, out);
        }

        @Override
        public KeyChunk deserialize(DataInputView in) throws IOException {
            return readFormat3(in);
        }
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        out.writeInt(in.readInt());
        out.writeInt(in.readInt());
        out.writeLong(in.readLong());
        ArrayIO.copyArray(in, out, Long.BYTES);
        out.writeInt(in.readInt());
        writePolicy(readPolicy(in, true), out, true);
        writeOffsets(readOffsets(in), out);
        writeTimes(readTimes(in), out);
    }

    @Override
    public TypeSerializerSnapshot<KeyChunk> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link KeyChunkSerializer}; its version is the byte format, 3 to 6. */
    public static final class Snapshot extends FormatSnapshot<KeyChunk> {
        public Snapshot() {
            super(
                    "key chunk",
                    FORMAT,
                    3,
                    (IntFunction<TypeSerializer<KeyChunk>>)
                            f ->
                                    switch (f) {
                                        case FORMAT -> INSTANCE;
                                        case 5 -> Format5.INSTANCE;
                                        case 4 -> Format4.INSTANCE;
                                        default -> Format3.INSTANCE;
                                    });
        }
    }
}
