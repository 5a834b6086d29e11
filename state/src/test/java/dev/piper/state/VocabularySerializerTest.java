package dev.piper.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.HexFormat;
import java.util.SplittableRandom;
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

    /** The serializer snapshot as Flink writes it into a savepoint, for format version 1. */
    private static final String FROZEN_SNAPSHOT_V1 =
            "002c" + hex("dev.piper.state.VocabularySerializerSnapshot") + "00000001";

    /** The same for format version 2. */
    private static final String FROZEN_SNAPSHOT_V2 =
            "002c" + hex("dev.piper.state.VocabularySerializerSnapshot") + "00000002";

    private static final long[] FROZEN_KEYS = {0, 0xdeadbeefL, -1L, 42};

    private static Vocabulary frozenV2() {
        Vocabulary v = Vocabulary.ofKeys(FROZEN_KEYS, 4);
        v.putCount(7, 2);
        return v;
    }

    @Test
    void writesVersion2Bytes() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        SERIALIZER.serialize(frozenV2(), out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(FROZEN_V2);
    }

    @Test
    void readsFrozenVersion2Bytes() throws IOException {
        Vocabulary v =
                SERIALIZER.deserialize(
                        new DataInputDeserializer(HexFormat.of().parseHex(FROZEN_V2)));
        assertThat(v).isEqualTo(frozenV2());
        assertThat(v.countOf(7)).isEqualTo(2);
        assertThat(v.indexOf(-1L)).isEqualTo(2);
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
    void readsFrozenVersion2SnapshotAndResolvesAsIs() throws IOException {
        TypeSerializerSnapshot<Vocabulary> restored = readSnapshot(FROZEN_SNAPSHOT_V2);
        assertThat(((VocabularySerializerSnapshot) restored).formatVersion()).isEqualTo(2);
        assertThat(restored.restoreSerializer()).isEqualTo(SERIALIZER);
        TypeSerializerSchemaCompatibility<Vocabulary> compatibility =
                SERIALIZER.snapshotConfiguration().resolveSchemaCompatibility(restored);
        assertThat(compatibility.isCompatibleAsIs()).isTrue();
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
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(FROZEN_SNAPSHOT_V2);
    }

    @Test
    void rejectsUnknownFutureVersion() {
        assertThatThrownBy(
                        () ->
                                new VocabularySerializerSnapshot()
                                        .readSnapshot(
                                                3,
                                                new DataInputDeserializer(new byte[0]),
                                                getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("unknown vocabulary format version 3");
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
        assertThat(out.length()).isEqualTo(4 + 8 * 100 + 4 + 12 * counted);
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
        assertThat(out.length()).isEqualTo(4 + 8 * v.size() + 4);
        byte[] bytes = out.getCopyOfBuffer();
        assertThat(SERIALIZER.deserialize(new DataInputDeserializer(bytes))).isEqualTo(v);

        DataOutputSerializer copied = new DataOutputSerializer(1024);
        SERIALIZER.copy(new DataInputDeserializer(bytes), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);
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
