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

    private static Hotline frozen() {
        HotlineSettings s =
                new HotlineSettings(32, 4, 2, 1.0, 1, HotlineSettings.Tracker.EXACT, 16, 1.0);
        Hotline h = new Hotline(s, 2);
        // rows (C1, C2): (5, 7) (7, 8) then (5, 7): window 1 hot = top 2 of {5:1, 7:1 / C2 7:1,
        // 8:1}
        ByteBuffer b = ByteBuffer.allocate(3 * 8).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(5).putInt(7).putInt(7).putInt(8).putInt(5).putInt(7);
        Split split =
                h.apply(3, b.array(), 2, new int[] {0, 1}, new int[0], new int[0][], new int[0][]);
        assertThat(split.windows()).hasSize(2);
        return h;
    }

    @Test
    void writesFormat1Bytes() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        SERIALIZER.serialize(frozen(), out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(FROZEN_V1);
    }

    @Test
    void readsFrozenFormat1BytesAndContinuesAlike() throws IOException {
        Hotline original = frozen();
        Hotline restored =
                SERIALIZER.deserialize(
                        new DataInputDeserializer(HexFormat.of().parseHex(FROZEN_V1)));
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
                                + "00000001");
        TypeSerializerSnapshot<Hotline> read =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        getClass().getClassLoader());
        assertThat(read.resolveSchemaCompatibility(snapshot))
                .extracting(TypeSerializerSchemaCompatibility::isCompatibleAsIs)
                .isEqualTo(true);
        assertThat(read.restoreSerializer()).isEqualTo(SERIALIZER);
    }

    private static String roundTripBytes(Hotline h) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        SERIALIZER.serialize(h, out);
        return HexFormat.of().formatHex(out.getCopyOfBuffer());
    }
}
