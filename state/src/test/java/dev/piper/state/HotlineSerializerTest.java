package dev.piper.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.hotline.Hotline;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.hotline.Split;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class HotlineSerializerTest {

    private static final HotlineSerializer SERIALIZER = HotlineSerializer.INSTANCE;

    /**
     * Format 1 of {@link #frozen()}: two columns, 3 rows seen, window 1 in force with C1's 5 and 7
     * hot, exact counts of (C1, 5) x 2, (C1, 7), (C2, 7) x 2, (C2, 8), and a 16-entry tracker
     * holding the same four. Frozen: never regenerate these bytes; add a constant for a new version
     * instead.
     */
    private static final String FROZEN_V1 =
            "00000002" // columns
                    + "0000000000000020" // budget 32 bytes
                    + "00000004" // dim 4
                    + "0000000000000002" // window 2 rows
                    + "3ff0000000000000" // sample 1.0
                    + "00000001" // sample rows 1
                    + "00" // exact
                    + "00000010" // tracker entries 16
                    + "3ff0000000000000" // decay 1.0
                    + "0000000000000003" // rows
                    + "00000001" // window
                    + "0000000000000004" // next window
                    + "0000000000000000" // popular rows
                    + "3ff0000000000000" // capture sum 1.0
                    + "00000001" // windows with a capture
                    + "00000002" // largest hot set
                    + "00000002"
                    + "00000005"
                    + "00000007" // C1: 5, 7
                    + "00000000" // C2: none
                    + "00000004" // exact entries
                    + "0000000000000005"
                    + "00000002"
                    + "0000000000000007"
                    + "00000001"
                    + "0000000100000007"
                    + "00000002"
                    + "0000000100000008"
                    + "00000001"
                    + "00000010" // capacity
                    + "00000004" // occupied, then (slot, key, RRPV, count) by slot
                    + ("00000000" + "0000000000000005" + "00" + "00000002")
                    + ("00000001" + "0000000100000007" + "00" + "00000002")
                    + ("00000002" + "0000000000000007" + "02" + "00000001")
                    + ("00000003" + "0000000100000008" + "02" + "00000001");

    /** Format 2 of {@link #frozen()}: format 1's bytes with no window in event time. */
    private static final String FROZEN_V2 =
            FROZEN_V1.replace(
                    "3ff0000000000000" + "0000000000000003", // decay, rows
                    "3ff0000000000000" + "0000000000000000" + "0000000000000003");

    /**
     * Format 2 of {@link #frozenInEventTime()}: windows of 1 s of event time, so no window of rows,
     * the window of 1,000 ms after the decay, and the next window at event time 3,000 ms.
     */
    private static final String FROZEN_V2_EVENT_TIME =
            FROZEN_V2
                    .replace(
                            "0000000000000002" + "3ff0000000000000", // window rows, sample
                            "0000000000000000" + "3ff0000000000000")
                    .replace(
                            "3ff0000000000000" + "0000000000000000" + "0000000000000003",
                            "3ff0000000000000" + "00000000000003e8" + "0000000000000003")
                    .replace(
                            "00000001" + "0000000000000004", // window, next window
                            "00000001" + "0000000000000bb8");

    private static Hotline frozen() {
        return frozen(
                new HotlineSettings(32, 4, 2, 0, 1.0, 1, HotlineSettings.Tracker.EXACT, 16, 1.0),
                null);
    }

    /** {@link #frozen()}'s rows at event times 1.5 s, 1.7 s and 2.1 s, in windows of 1 s. */
    private static Hotline frozenInEventTime() {
        return frozen(
                new HotlineSettings(32, 4, 0, 1000, 1.0, 1, HotlineSettings.Tracker.EXACT, 16, 1.0),
                new long[] {1500, 1700, 2100});
    }

    private static Hotline frozen(HotlineSettings s, long[] times) {
        Hotline h = new Hotline(s, 2);
        // rows (C1, C2): (5, 7) (7, 8) then (5, 7): window 1 hot = top 2 of {5:1, 7:1 / C2 7:1,
        // 8:1}
        ByteBuffer b = ByteBuffer.allocate(3 * 8).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(5).putInt(7).putInt(7).putInt(8).putInt(5).putInt(7);
        Split split =
                h.apply(
                        3,
                        b.array(),
                        2,
                        new int[] {0, 1},
                        new int[0],
                        new int[0][],
                        new int[0][],
                        times,
                        true);
        assertThat(split.windows()).hasSize(2);
        assertThat(split.windows().get(1).firstRow()).isEqualTo(2);
        return h;
    }

    @Test
    void writesFormat2Bytes() throws IOException {
        assertThat(bytes(SERIALIZER, frozen())).isEqualTo(FROZEN_V2);
        assertThat(bytes(SERIALIZER, frozenInEventTime())).isEqualTo(FROZEN_V2_EVENT_TIME);
        Hotline timed =
                SERIALIZER.deserialize(
                        new DataInputDeserializer(HexFormat.of().parseHex(FROZEN_V2_EVENT_TIME)));
        assertThat(timed.settings()).isEqualTo(frozenInEventTime().settings());
        assertThat(timed.progress()).isEqualTo(frozenInEventTime().progress());
    }

    @Test
    void aFormat1SerializerReadsAndWritesItsBytesButNoWindowInEventTime() throws IOException {
        HotlineSerializer v1 = HotlineSerializer.ofFormat(1);
        assertThat(bytes(v1, frozen())).isEqualTo(FROZEN_V1);
        assertThatThrownBy(() -> bytes(v1, frozenInEventTime()))
                .isInstanceOf(IOException.class)
                .hasMessage("Hotline state format 1 cannot hold windows in event time (1s)");
    }

    private static String bytes(HotlineSerializer serializer, Hotline h) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(h, out);
        return HexFormat.of().formatHex(out.getCopyOfBuffer());
    }

    @Test
    void readsFrozenFormat1BytesAndContinuesAlike() throws IOException {
        Hotline original = frozen();
        Hotline restored =
                HotlineSerializer.ofFormat(1)
                        .deserialize(new DataInputDeserializer(HexFormat.of().parseHex(FROZEN_V1)));
        assertThat(restored.progress()).isEqualTo(original.progress());
        assertThat(restored.hot()).isEqualTo(original.hot());
        assertThat(restored.exact().entries()).isEqualTo(original.exact().entries());
        ByteBuffer b = ByteBuffer.allocate(4 * 8).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(5).putInt(8).putInt(9).putInt(7).putInt(5).putInt(7).putInt(5).putInt(8);
        Split a = original.apply(4, b.array(), 2, new int[] {0, 1}, new int[0], null, null);
        Split c = restored.apply(4, b.array(), 2, new int[] {0, 1}, new int[0], null, null);
        assertThat(c.popular()).isEqualTo(a.popular());
        assertThat(c.windows()).isEqualTo(a.windows());
        assertThat(roundTripBytes(restored)).isEqualTo(roundTripBytes(original));
        // a copy is independent of its original
        Hotline copy = SERIALIZER.copy(original);
        original.apply(1, new byte[8], 2, new int[] {0, 1}, new int[0], null, null);
        assertThat(copy.progress().rows()).isEqualTo(7);
    }

    @Test
    void corruptStateIsRefusedNamingWhatIsWrong() {
        byte[] bytes = HexFormat.of().parseHex("00000000");
        assertThatThrownBy(() -> SERIALIZER.deserialize(new DataInputDeserializer(bytes)))
                .isInstanceOf(IOException.class)
                .hasMessage("corrupt Hotline state: 0 columns");
    }

    @Test
    void theSnapshotIsCompatibleWithItself() throws IOException {
        TypeSerializerSnapshot<Hotline> snapshot = SERIALIZER.snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer()))
                .isEqualTo(
                        "0029"
                                + HexFormat.of()
                                        .formatHex(
                                                "dev.piper.state.HotlineSerializerSnapshot"
                                                        .getBytes())
                                + "00000002");
        TypeSerializerSnapshot<Hotline> read =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        getClass().getClassLoader());
        assertThat(read.resolveSchemaCompatibility(snapshot))
                .extracting(TypeSerializerSchemaCompatibility::isCompatibleAsIs)
                .isEqualTo(true);
        assertThat(read.restoreSerializer()).isEqualTo(SERIALIZER);
    }

    /** A savepoint of format 1 restores: read as format 1, written as format 2. */
    @Test
    void aFormat1SnapshotMigrates() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, SERIALIZER.snapshotConfiguration());
        byte[] v1 = out.getCopyOfBuffer();
        v1[v1.length - 1] = 1; // the version, as format 1's build wrote it
        TypeSerializerSnapshot<Hotline> old =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(v1), getClass().getClassLoader());
        assertThat(SERIALIZER.snapshotConfiguration().resolveSchemaCompatibility(old))
                .extracting(TypeSerializerSchemaCompatibility::isCompatibleAfterMigration)
                .isEqualTo(true);
        Hotline restored =
                old.restoreSerializer()
                        .deserialize(new DataInputDeserializer(HexFormat.of().parseHex(FROZEN_V1)));
        assertThat(bytes(SERIALIZER, restored)).isEqualTo(FROZEN_V2);
    }

    private static String roundTripBytes(Hotline h) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        SERIALIZER.serialize(h, out);
        return HexFormat.of().formatHex(out.getCopyOfBuffer());
    }
}
