package dev.piper.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.ops.VocabularyPolicy;
import java.io.IOException;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class VocabularySerializerTest {

    private static final VocabularySerializer SERIALIZER = VocabularySerializer.INSTANCE;

    /**
     * Format version 1 of a vocabulary holding 0, 0xdeadbeef, 2^64-1 and 42 at indices 0..3.
     * Frozen: never regenerate these bytes; add a constant for a new version instead.
     */
    private static final String FROZEN_V1 =
            "00000004"
                    + "0000000000000000"
                    + "efbeadde00000000"
                    + "ffffffffffffffff"
                    + "2a00000000000000";

    /**
     * Format version 2 of the same vocabulary with key 7 counted twice (frequency threshold, not
     * admitted yet). Frozen.
     */
    private static final String FROZEN_V2 =
            FROZEN_V1 + "00000001" + "0700000000000000" + "02000000";

    /** Format version 3 of {@link #frozenV2()}: a vocabulary that does not evict. Frozen. */
    private static final String FROZEN_V3_PLAIN = FROZEN_V2 + "00";

    /**
     * Format version 3 of {@link #frozenLfu()}: keys 10, 20, 40 at indices 0..2 under LFU, the
     * order 40 (count 1, last row 7), 20 (2, row 6), 10 (3, row 5), 7 rows, 4 assignments. Frozen.
     */
    private static final String FROZEN_V3_LFU =
            "00000003"
                    + "0a00000000000000"
                    + "1400000000000000"
                    + "2800000000000000"
                    + "00000000"
                    + "01"
                    + "0000000000000007"
                    + "0000000000000004"
                    + "02000000"
                    + "0100000000000000"
                    + "07000000"
                    + "01000000"
                    + "0200000000000000"
                    + "06000000"
                    + "00000000"
                    + "0300000000000000"
                    + "05000000";

    /** Format version 4 of {@link #frozenLfu()}: version 3's, with no clock after the counters. */
    private static final String FROZEN_V4_LFU =
            FROZEN_V3_LFU.replace(
                    "0000000000000007" + "0000000000000004",
                    "0000000000000007" + "0000000000000004" + "8000000000000000");

    /**
     * Format version 4 of {@link #frozenTimed()}: capacity 2, a ttl of 1 s of event time; keys 10,
     * 20, 30 at 0, 0.5 s and 1.6 s: 30 evicts 10 (unseen for 1.6 s) and takes its index 0. The
     * order: 20 (stamp and last row 500 ms), 30 (1,600 ms); 3 rows, 3 assignments, the clock at
     * 1,600 ms. Frozen.
     */
    private static final String FROZEN_V4_TIMED =
            "00000002"
                    + "1e00000000000000"
                    + "1400000000000000"
                    + "00000000"
                    + "02"
                    + "0000000000000003"
                    + "0000000000000003"
                    + "0000000000000640"
                    + ("01000000" + "f401000000000000" + "f4010000")
                    + ("00000000" + "4006000000000000" + "40060000");

    /** The serializer snapshot as Flink writes it into a savepoint, for format version 1. */
    private static final String FROZEN_SNAPSHOT_V1 =
            "002c" + hex("dev.piper.state.VocabularySerializerSnapshot") + "00000001";

    /** The same for format version 2. */
    private static final String FROZEN_SNAPSHOT_V2 =
            "002c" + hex("dev.piper.state.VocabularySerializerSnapshot") + "00000002";

    /** The same for format version 3. */
    private static final String FROZEN_SNAPSHOT_V3 =
            "002c" + hex("dev.piper.state.VocabularySerializerSnapshot") + "00000003";

    /** The same for format version 4. */
    private static final String FROZEN_SNAPSHOT_V4 =
            "002c" + hex("dev.piper.state.VocabularySerializerSnapshot") + "00000004";

    private static final long[] FROZEN_KEYS = {0, 0xdeadbeefL, -1L, 42};

    private static Vocabulary frozenV2() {
        Vocabulary v = Vocabulary.ofKeys(FROZEN_KEYS, 4);
        v.putCount(7, 2);
        return v;
    }

    /** The LFU vocabulary of {@link #FROZEN_V3_LFU}, built by applying keys. */
    private static Vocabulary frozenLfu() {
        Vocabulary v = new Vocabulary();
        VocabularyPolicy lfu =
                new VocabularyPolicy(
                        1, 4, VocabularyPolicy.MAX_SIZE, null, 3, VocabularyPolicy.Eviction.LFU, 0);
        long[] keys = {10, 20, 30, 10, 10, 20, 40};
        v.apply(keys, keys.length, new int[keys.length], lfu, null, new VocabularyEvents());
        return v;
    }

    /** The TTL vocabulary in event time of {@link #FROZEN_V4_TIMED}, built by applying keys. */
    private static Vocabulary frozenTimed() {
        Vocabulary v = new Vocabulary();
        VocabularyPolicy ttl =
                new VocabularyPolicy(
                        1,
                        4,
                        VocabularyPolicy.MAX_SIZE,
                        null,
                        2,
                        VocabularyPolicy.Eviction.TTL,
                        0,
                        1_000);
        long[] keys = {10, 20, 30};
        v.apply(
                keys,
                keys.length,
                new int[keys.length],
                ttl,
                null,
                new long[] {0, 500, 1_600},
                new VocabularyEvents());
        return v;
    }

    @Test
    void writesVersion4Bytes() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        SERIALIZER.serialize(frozenV2(), out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(FROZEN_V3_PLAIN);
        out.clear();
        SERIALIZER.serialize(frozenLfu(), out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(FROZEN_V4_LFU);
        out.clear();
        SERIALIZER.serialize(frozenTimed(), out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(FROZEN_V4_TIMED);
        Vocabulary timed =
                SERIALIZER.deserialize(
                        new DataInputDeserializer(HexFormat.of().parseHex(FROZEN_V4_TIMED)));
        assertThat(timed).isEqualTo(frozenTimed());
        assertThat(timed.eventClock()).isEqualTo(1_600);
        assertThat(timed.keyAt(0)).isEqualTo(30);
    }

    @Test
    void aVersion3SerializerCannotWriteATtlInEventTime() throws IOException {
        TypeSerializer<Vocabulary> v3 = readSnapshot(FROZEN_SNAPSHOT_V3).restoreSerializer();
        DataOutputSerializer out = new DataOutputSerializer(64);
        v3.serialize(frozenLfu(), out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(FROZEN_V3_LFU);
        assertThatThrownBy(() -> v3.serialize(frozenTimed(), new DataOutputSerializer(64)))
                .isInstanceOf(IOException.class)
                .hasMessage("vocabulary format 3 cannot hold a ttl in event time");
    }

    @Test
    void readsFrozenVersion3Bytes() throws IOException {
        Vocabulary v =
                readSnapshot(FROZEN_SNAPSHOT_V3)
                        .restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(HexFormat.of().parseHex(FROZEN_V3_LFU)));
        assertThat(v).isEqualTo(frozenLfu());
        assertThat(v.eviction()).isEqualTo(VocabularyPolicy.Eviction.LFU);
        assertThat(v.evictionStamp(0)).isEqualTo(3);
        assertThat(v.assignments()).isEqualTo(4);
        assertThat(v.rowsApplied()).isEqualTo(7);
        assertThat(v.eventClock()).isEqualTo(Vocabulary.NO_CLOCK);
        Vocabulary plain =
                SERIALIZER.deserialize(
                        new DataInputDeserializer(HexFormat.of().parseHex(FROZEN_V3_PLAIN)));
        assertThat(plain).isEqualTo(frozenV2());
        assertThat(plain.evicting()).isFalse();
    }

    @Test
    void readsFrozenVersion2Bytes() throws IOException {
        VocabularySerializer reader =
                (VocabularySerializer) readSnapshot(FROZEN_SNAPSHOT_V2).restoreSerializer();
        assertThat(reader.format()).isEqualTo(2);
        Vocabulary v =
                reader.deserialize(new DataInputDeserializer(HexFormat.of().parseHex(FROZEN_V2)));
        assertThat(v).isEqualTo(frozenV2());
        assertThat(v.countOf(7)).isEqualTo(2);
        assertThat(v.indexOf(-1L)).isEqualTo(2);
        DataOutputSerializer out = new DataOutputSerializer(64);
        reader.serialize(frozenV2(), out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(FROZEN_V2);
        assertThatThrownBy(() -> reader.serialize(frozenLfu(), new DataOutputSerializer(64)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("cannot hold an eviction order");
    }

    @Test
    void rejectsACorruptEvictionOrder() {
        // index 0 twice in the order
        String bad =
                FROZEN_V4_LFU.substring(0, FROZEN_V4_LFU.length() - 32)
                        + "00000000"
                        + "0300000000000000"
                        + "05000000";
        String twice =
                bad.substring(0, bad.length() - 64)
                        + "00000000"
                        + "0200000000000000"
                        + "06000000"
                        + bad.substring(bad.length() - 32);
        assertThatThrownBy(
                        () ->
                                SERIALIZER.deserialize(
                                        new DataInputDeserializer(HexFormat.of().parseHex(twice))))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("corrupt vocabulary");
    }

    @Test
    void aVersion1SnapshotRestoresAFormat1ReaderAndMigrates() throws IOException {
        TypeSerializerSnapshot<Vocabulary> restored = readSnapshot(FROZEN_SNAPSHOT_V1);
        assertThat(((VocabularySerializerSnapshot) restored).formatVersion()).isEqualTo(1);
        VocabularySerializer reader = (VocabularySerializer) restored.restoreSerializer();
        assertThat(reader.format()).isEqualTo(1);
        assertThat(reader).isNotEqualTo(SERIALIZER);

        Vocabulary v =
                reader.deserialize(new DataInputDeserializer(HexFormat.of().parseHex(FROZEN_V1)));
        assertThat(v).isEqualTo(Vocabulary.ofKeys(FROZEN_KEYS, 4));
        assertThat(v.getOrAdd(43)).isEqualTo(4);
        DataOutputSerializer out = new DataOutputSerializer(64);
        reader.serialize(Vocabulary.ofKeys(FROZEN_KEYS, 4), out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(FROZEN_V1);
        assertThatThrownBy(() -> reader.serialize(frozenV2(), new DataOutputSerializer(64)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("format 1 cannot hold the counts");

        TypeSerializerSchemaCompatibility<Vocabulary> compatibility =
                SERIALIZER.snapshotConfiguration().resolveSchemaCompatibility(restored);
        assertThat(compatibility.isCompatibleAfterMigration()).isTrue();
    }

    @Test
    void readsFrozenVersion4SnapshotAsIsAndVersion3ByMigration() throws IOException {
        TypeSerializerSnapshot<Vocabulary> restored = readSnapshot(FROZEN_SNAPSHOT_V4);
        assertThat(((VocabularySerializerSnapshot) restored).formatVersion()).isEqualTo(4);
        assertThat(restored.restoreSerializer()).isEqualTo(SERIALIZER);
        TypeSerializerSchemaCompatibility<Vocabulary> compatibility =
                SERIALIZER.snapshotConfiguration().resolveSchemaCompatibility(restored);
        assertThat(compatibility.isCompatibleAsIs()).isTrue();
        assertThat(
                        SERIALIZER
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(readSnapshot(FROZEN_SNAPSHOT_V3))
                                .isCompatibleAfterMigration())
                .isTrue();
        assertThat(
                        SERIALIZER
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(readSnapshot(FROZEN_SNAPSHOT_V2))
                                .isCompatibleAfterMigration())
                .isTrue();
    }

    private TypeSerializerSnapshot<Vocabulary> readSnapshot(String hex) throws IOException {
        TypeSerializerSnapshot<Vocabulary> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(HexFormat.of().parseHex(hex)),
                        getClass().getClassLoader());
        assertThat(restored).isInstanceOf(VocabularySerializerSnapshot.class);
        return restored;
    }

    @Test
    void writesTheFrozenSnapshot() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, SERIALIZER.snapshotConfiguration());
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(FROZEN_SNAPSHOT_V4);
    }

    @Test
    void rejectsUnknownFutureVersion() {
        assertThatThrownBy(
                        () ->
                                new VocabularySerializerSnapshot()
                                        .readSnapshot(
                                                5,
                                                new DataInputDeserializer(new byte[0]),
                                                getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("unknown vocabulary format version 5");
    }

    @Test
    void roundTripsCountsAcrossBlockBoundaries() throws IOException {
        SplittableRandom random = new SplittableRandom(12);
        Vocabulary v = new Vocabulary();
        for (int i = 0; i < 100; i++) {
            v.getOrAdd(random.nextLong());
        }
        int counted = 2 * VocabularySerializer.BLOCK_ENTRIES + 5;
        while (v.countedKeys() < counted) {
            long key = random.nextLong();
            if (v.indexOf(key) < 0 && v.countOf(key) == 0) {
                v.putCount(key, 1 + random.nextInt(1000));
            }
        }
        DataOutputSerializer out = new DataOutputSerializer(1024);
        SERIALIZER.serialize(v, out);
        assertThat(out.length()).isEqualTo(4 + 8 * 100 + 4 + 12 * counted + 1);
        byte[] bytes = out.getCopyOfBuffer();
        Vocabulary back = SERIALIZER.deserialize(new DataInputDeserializer(bytes));
        assertThat(back).isEqualTo(v);
        assertThat(back.countedKeys()).isEqualTo(counted);

        DataOutputSerializer copied = new DataOutputSerializer(1024);
        SERIALIZER.copy(new DataInputDeserializer(bytes), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);
    }

    @Test
    void roundTripsLargeVocabularyAcrossBlockBoundariesAndCopiesViewToView() throws IOException {
        SplittableRandom random = new SplittableRandom(11);
        Vocabulary v = new Vocabulary();
        while (v.size() < 3 * VocabularySerializer.BLOCK_ENTRIES + 17) {
            v.getOrAdd(random.nextLong());
        }
        DataOutputSerializer out = new DataOutputSerializer(1024);
        SERIALIZER.serialize(v, out);
        assertThat(out.length()).isEqualTo(4 + 8 * v.size() + 4 + 1);
        byte[] bytes = out.getCopyOfBuffer();
        assertThat(SERIALIZER.deserialize(new DataInputDeserializer(bytes))).isEqualTo(v);

        DataOutputSerializer copied = new DataOutputSerializer(1024);
        SERIALIZER.copy(new DataInputDeserializer(bytes), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);
    }

    @Test
    void roundTripsAnEvictionOrderAcrossBlockBoundaries() throws IOException {
        for (VocabularyPolicy.Eviction kind :
                new VocabularyPolicy.Eviction[] {
                    VocabularyPolicy.Eviction.LFU, VocabularyPolicy.Eviction.TTL
                }) {
            int capacity = 3 * VocabularySerializer.BLOCK_ENTRIES + 17;
            VocabularyPolicy policy =
                    new VocabularyPolicy(
                            1,
                            8,
                            VocabularyPolicy.MAX_SIZE,
                            null,
                            capacity,
                            kind,
                            kind == VocabularyPolicy.Eviction.TTL ? 5000 : 0);
            SplittableRandom random = new SplittableRandom(13);
            Vocabulary v = new Vocabulary();
            long[] keys = new long[50_000];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = random.nextInt(40_000);
            }
            v.apply(keys, keys.length, new int[keys.length], policy, null, new VocabularyEvents());
            assertThat(v.size()).isEqualTo(capacity);
            DataOutputSerializer out = new DataOutputSerializer(1024);
            SERIALIZER.serialize(v, out);
            assertThat(out.length()).isEqualTo(4 + 8 * capacity + 4 + 1 + 24 + 16 * capacity);
            byte[] bytes = out.getCopyOfBuffer();
            assertThat(SERIALIZER.deserialize(new DataInputDeserializer(bytes))).isEqualTo(v);
            DataOutputSerializer copied = new DataOutputSerializer(1024);
            SERIALIZER.copy(new DataInputDeserializer(bytes), copied);
            assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);
        }
    }

    @Test
    void rejectsCorruptDuplicateKeys() {
        byte[] bytes =
                HexFormat.of()
                        .parseHex(
                                "00000002" + "0100000000000000" + "0100000000000000" + "00000000");
        assertThatThrownBy(() -> SERIALIZER.deserialize(new DataInputDeserializer(bytes)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("corrupt vocabulary");
    }

    private static String hex(String s) {
        return HexFormat.of().formatHex(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
