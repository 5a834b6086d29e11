package dev.piper.operators.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.join.JoinDeadLetter;
import dev.piper.core.join.JoinInput;
import dev.piper.core.join.JoinRead;
import dev.piper.core.join.JoinedLine;
import dev.piper.core.join.StreamJoinOutput;
import dev.piper.pipeline.join.ActionStream;
import dev.piper.pipeline.join.EmitPolicy;
import dev.piper.pipeline.join.JoinOutput;
import dev.piper.pipeline.join.JoinSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * The label join's records and its keyed state: each read back as written, and their bytes frozen
 * (a change of these bytes raises the serializer's format and these expectations), since a
 * savepoint holds a key's waiting impressions for as long as its window is open.
 */
class JoinSerializersTest {

    private static final JoinSettings SETTINGS =
            new JoinSettings(
                    List.of(
                            new ActionStream("click", 60_000, EmitPolicy.WAIT),
                            new ActionStream("buy", 300_000, EmitPolicy.NEGATIVE_FIRST)),
                    2_000,
                    0,
                    0.5);

    private static final JoinInput IMPRESSION =
            new JoinInput(
                    -1,
                    "r1",
                    1_000,
                    1,
                    7,
                    Long.MIN_VALUE,
                    null,
                    0,
                    bytes("{\"rid\":\"r1\"}"),
                    false);

    private static final JoinInput DUPLICATE =
            new JoinInput(
                    -1,
                    IMPRESSION.key(),
                    IMPRESSION.timeMs(),
                    IMPRESSION.partition(),
                    IMPRESSION.offset() + 1,
                    IMPRESSION.watermark(),
                    null,
                    0,
                    IMPRESSION.bytes(),
                    false);

    private static final JoinInput CLICK =
            new JoinInput(0, "r1", 5_000, 0, 3, 900, "c1", 2.5, bytes("{\"c\":1}"), true);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static <T> String hex(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(value, out);
        return HexFormat.of().formatHex(out.getCopyOfBuffer());
    }

    private static <T> T back(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(value, out);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        T read = serializer.deserialize(in);
        assertThat(in.available()).isZero();
        return read;
    }

    /** A key with a placed impression (its click joined) and a click waiting for the watermark. */
    private static JoinKey key() {
        JoinKey key = JoinKey.empty(SETTINGS);
        JoinOutput<byte[]> out =
                new StreamJoinOutput(
                                new dev.piper.pipeline.join.LabelSpec(
                                        "rid", SETTINGS, List.of(source(), source())),
                                100)
                        .of(key.pending, new Collecting());
        key.join.impression(StreamJoinOutput.impression(IMPRESSION), out);
        // a second of its time (a duplicate, refused at 1000) has the first placed at 1001
        key.join.impression(StreamJoinOutput.impression(DUPLICATE), out);
        key.pending.put(StreamJoinOutput.action(CLICK).position(), CLICK);
        key.join.action(StreamJoinOutput.action(CLICK), out);
        key.join.advance(1_001, out); // the impression placed, the click still waiting
        return key;
    }

    /** A JSON action stream keyed by {@code rid}, timed by {@code ts}, its ids in {@code cid}. */
    static dev.piper.pipeline.join.ActionSource source() {
        return new dev.piper.pipeline.join.ActionSource(
                "json",
                "rid",
                new dev.piper.pipeline.input.EventTime(
                        "ts", dev.piper.pipeline.input.EventTime.Unit.MILLIS),
                "cid",
                null,
                null);
    }

    private static final class Collecting implements StreamJoinOutput.Sink {
        final List<Object> out = new ArrayList<>();

        @Override
        public void row(JoinedLine row) {
            out.add(row);
        }

        @Override
        public void deadLetter(JoinDeadLetter d) {
            out.add(d);
        }

        @Override
        public void joined(int stream, long delayMs) {
            out.add(stream);
        }

        @Override
        public void sampledOut() {
            out.add("sampled out");
        }
    }

    @Test
    void theRecordsReadBackAsWritten() throws IOException {
        assertThat(back(JoinRecordSerializers.InputSerializer.INSTANCE, CLICK))
                .usingRecursiveComparison()
                .isEqualTo(CLICK);
        JoinDeadLetter d =
                new JoinDeadLetter("click", 1, 0, 3, "late_action", "behind", bytes("x"), false);
        assertThat(back(JoinRecordSerializers.DeadLetterSerializer.INSTANCE, d))
                .usingRecursiveComparison()
                .isEqualTo(d);
        for (JoinRead r : List.<JoinRead>of(IMPRESSION, d)) {
            assertThat(back(JoinRecordSerializers.ReadSerializer.INSTANCE, r))
                    .usingRecursiveComparison()
                    .isEqualTo(r);
        }
        JoinedLine line = new JoinedLine(61_000, "r1", -1, 1, 7, bytes("{}\n"));
        assertThat(back(JoinRecordSerializers.LineSerializer.INSTANCE, line))
                .usingRecursiveComparison()
                .isEqualTo(line);
    }

    @Test
    void aKeysStateReadsBackAndItsBytesAreFrozen() throws IOException {
        JoinKeySerializer serializer = new JoinKeySerializer(SETTINGS);
        JoinKey key = key();
        assertThat(hex(serializer, back(serializer, key))).isEqualTo(hex(serializer, key));
        assertThat(hex(serializer, serializer.copy(key))).isEqualTo(hex(serializer, key));
        assertThat(JoinKeySerializer.FORMAT).isEqualTo(1);
        assertThat(hex(serializer, key)).isEqualTo(KEY_FROZEN);
    }

    /**
     * Format 1 of {@link #key()}: watermark 1001; no impression arrived; one action arrived (stream
     * 0, "r1", 5000, "c1", 2.5, at 1/0@3, watermark 900); one placed impression ("r1", 1000, at
     * 0/1@7, watermark MIN, its 12-byte line), not emitted, two streams of nothing; one waiting
     * record (the click as read).
     */
    private static final String KEY_FROZEN =
            "00000000000003e9"
                    + "00000000"
                    + "00000001"
                    + "00000000"
                    + "00000002"
                    + "7231"
                    + "0000000000001388"
                    + "00000002"
                    + "6331"
                    + "4004000000000000"
                    + "00000001"
                    + "00000000"
                    + "0000000000000003"
                    + "0000000000000384"
                    + "00000001"
                    + "00000002"
                    + "7231"
                    + "00000000000003e8"
                    + "00000000"
                    + "00000001"
                    + "0000000000000007"
                    + "8000000000000000"
                    + "0000000c"
                    + "7b22726964223a227231227d"
                    + "00"
                    + "00000002"
                    + "ffffffffffffffff"
                    + "00000000"
                    + "0000000000000000"
                    + "ffffffff"
                    + "8000000000000000"
                    + "00"
                    + "ffffffffffffffff"
                    + "00000000"
                    + "0000000000000000"
                    + "ffffffff"
                    + "8000000000000000"
                    + "00"
                    + "00000001"
                    + "00000000"
                    + "00000002"
                    + "7231"
                    + "0000000000001388"
                    + "00000000"
                    + "0000000000000003"
                    + "0000000000000384"
                    + "00000002"
                    + "6331"
                    + "4004000000000000"
                    + "00000007"
                    + "7b2263223a317d"
                    + "01";

    @Test
    void theSnapshotHoldsTheSettingsAndRefusesOthers() throws IOException {
        JoinKeySerializer serializer = new JoinKeySerializer(SETTINGS);
        TypeSerializerSnapshot<JoinKey> written = serializer.snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(64);
        written.writeSnapshot(out);
        JoinKeySerializer.Snapshot read = new JoinKeySerializer.Snapshot();
        read.readSnapshot(
                written.getCurrentVersion(),
                new DataInputDeserializer(out.getCopyOfBuffer()),
                getClass().getClassLoader());
        assertThat(read.restoreSerializer()).isEqualTo(serializer);
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(read)
                                .isCompatibleAsIs())
                .isTrue();
        JoinSettings wider =
                new JoinSettings(SETTINGS.streams(), SETTINGS.maxOutOfOrdernessMs(), 0, 1);
        assertThat(
                        new JoinKeySerializer(wider)
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(read)
                                .isIncompatible())
                .isTrue();
    }
}
