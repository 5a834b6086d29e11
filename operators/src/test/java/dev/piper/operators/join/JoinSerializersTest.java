package dev.piper.operators.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        JoinOutput<byte[]> out = output(key, new Collecting());
        key.join.impression(StreamJoinOutput.impression(IMPRESSION), out);
        // a second of its time (a duplicate, refused at 1000) has the first placed at 1001
        key.join.impression(StreamJoinOutput.impression(DUPLICATE), out);
        key.pending.put(StreamJoinOutput.action(CLICK).position(), CLICK);
        key.join.action(StreamJoinOutput.action(CLICK), out);
        key.join.advance(1_001, out); // the impression placed, the click still waiting
        return key;
    }

    private static JoinOutput<byte[]> output(JoinKey key, Collecting sink) {
        return new StreamJoinOutput(
                        new dev.piper.pipeline.join.LabelSpec(
                                "rid", SETTINGS, List.of(source(), source())),
                        100)
                .of(key.pending, sink);
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

    /**
     * A row's bytes, format 2: a labels-only row ends in 01, a whole one in 00; a row of format 1
     * (an order lane's state of an earlier build, without the last byte) is read as a whole one.
     */
    @Test
    void aRowsBytesAreFrozenAndFormatOneIsRead() throws IOException {
        String head = "000000000000ee48" + "00000002" + "7231" + "ffffffff" + "00000001";
        String whole = head + "0000000000000007" + "00000002" + "7b7d";
        JoinedLine labels = new JoinedLine(61_000, "r1", -1, 1, 7, bytes("\"labels\":{}"), true);
        assertThat(JoinRecordSerializers.LineSerializer.FORMAT).isEqualTo(2);
        assertThat(hex(JoinRecordSerializers.LineSerializer.INSTANCE, labels))
                .isEqualTo(
                        head + "0000000000000007" + "0000000b" + "226c6162656c73223a7b7d" + "01");
        assertThat(
                        hex(
                                JoinRecordSerializers.LineSerializer.INSTANCE,
                                new JoinedLine(61_000, "r1", -1, 1, 7, bytes("{}"))))
                .isEqualTo(whole + "00");
        assertThat(back(JoinRecordSerializers.LineSerializer.INSTANCE, labels))
                .usingRecursiveComparison()
                .isEqualTo(labels);

        var one =
                readAs(
                        JoinRecordSerializers.LineSerializer.INSTANCE.snapshotConfiguration(),
                        new JoinRecordSerializers.LineSerializer.Snapshot(),
                        1);
        DataInputDeserializer in = new DataInputDeserializer(HexFormat.of().parseHex(whole));
        JoinedLine restored = one.restoreSerializer().deserialize(in);
        assertThat(in.available()).isZero();
        assertThat(restored.labelsOnly()).isFalse();
        assertThat(new String(restored.line(), StandardCharsets.UTF_8)).isEqualTo("{}");
        assertThat(
                        JoinRecordSerializers.LineSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(one)
                                .isCompatibleAfterMigration())
                .isTrue();
    }

    @Test
    void aKeysStateReadsBackAndItsBytesAreFrozen() throws IOException {
        JoinKeyCodec codec = new JoinKeyCodec(SETTINGS);
        byte[] encoded = codec.encode(key(), "r1");
        assertThat(codec.encode(codec.decode(encoded, "r1"), "r1")).isEqualTo(encoded);
        JoinKeySerializer serializer = new JoinKeySerializer(SETTINGS);
        assertThat(back(serializer, encoded)).isEqualTo(encoded);
        assertThat(serializer.copy(encoded)).isSameAs(encoded); // never changed once kept
        assertThat(JoinKeySerializer.FORMAT).isEqualTo(3);
        assertThat(HexFormat.of().formatHex(encoded)).isEqualTo(KEY_FROZEN);
        assertThat(encoded).hasSize(123); // 198 bytes in format 1
        assertThat(hex(serializer, encoded)).isEqualTo("7b" + KEY_FROZEN); // a varint of 123
    }

    /** A savepoint of format 1 (the key's objects) is read into format 3 as it is restored. */
    @Test
    void aKeyOfFormatOneIsReadIntoFormatThree() throws IOException {
        assertMigrated(JoinKeySerializer.FORMAT_OBJECTS, KEY_FORMAT_1, key());
    }

    /** A savepoint of format 2 (int32 length, fixed widths) is read into format 3 as restored. */
    @Test
    void aKeyOfFormatTwoIsReadIntoFormatThree() throws IOException {
        assertMigrated(
                JoinKeySerializer.FORMAT_FIXED,
                "%08x".formatted(KEY_FORMAT_1.length() / 2) + KEY_FORMAT_1,
                key());
    }

    /**
     * What a key of format {@code version} whose bytes are {@code hex} restores to: {@code key}.
     */
    private static void assertMigrated(int version, String hex, JoinKey key) throws IOException {
        JoinKeySerializer.Snapshot old = snapshotAs(version);
        TypeSerializer<byte[]> restoring = old.restoreSerializer();
        DataInputDeserializer in = new DataInputDeserializer(HexFormat.of().parseHex(hex));
        assertThat(restoring.deserialize(in))
                .isEqualTo(new JoinKeyCodec(SETTINGS).encode(key, "r1"));
        assertThat(in.available()).isZero();
        assertThat(
                        new JoinKeySerializer(SETTINGS)
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(old)
                                .isCompatibleAfterMigration())
                .isTrue();
    }

    /**
     * Once the impression's rows are out (its first at the click window's close, then its positive
     * copy for a purchase), its line is released: 0 where its 12 bytes were. What a decided key
     * keeps for the rest of its retention: 63 bytes, against 134 in format 1.
     */
    @Test
    void aReleasedLineIsFrozenToo() throws IOException {
        JoinKey key = released();
        byte[] encoded = new JoinKeyCodec(SETTINGS).encode(key, "r1");
        assertThat(HexFormat.of().formatHex(encoded))
                .isEqualTo(
                        "c29a0c" // watermark 100,001
                                + "00" // no impression arrived
                                + "00" // no action arrived
                                + "01" // one placed: "r1" (the state's key)
                                + "00"
                                + "f18a0c" // at 1,000 (-99,001)
                                + "00020e" // 0/1@7
                                + "b0f0ffffffffffffff01" // watermark MIN (- 1,000)
                                + "00" // its line, released
                                + "01" // its first row out
                                + "02" // two streams
                                + "0f" // the click: a first time, count, value, ids
                                + "c03e" // at 5,000 (+4,000)
                                + "02" // 1
                                + "4004000000000000" // 2.5
                                + "01026331" // "c1"
                                + "3f" // the purchase: every flag, its positive copy out
                                + "f08a0c" // at 100,000 (+99,000)
                                + "f08a0c" // its copy at 100,000
                                + "02" // 1
                                + "401c000000000000" // 7
                                + "01026f31" // "o1"
                                + "00"); // no action waits
        assertThat(
                        new JoinKeyCodec(SETTINGS)
                                .encode(new JoinKeyCodec(SETTINGS).decode(encoded, "r1"), "r1"))
                .isEqualTo(encoded);
        assertMigrated(JoinKeySerializer.FORMAT_OBJECTS, RELEASED_FORMAT_1, released());
    }

    /** {@link #key()} once a purchase has come and the watermark passed its copy. */
    private static JoinKey released() {
        JoinKey key = key();
        Collecting sink = new Collecting();
        JoinOutput<byte[]> out = output(key, sink);
        JoinInput buy =
                new JoinInput(1, "r1", 100_000, 0, 4, 900, "o1", 7, bytes("{\"o\":1}"), false);
        key.pending.put(StreamJoinOutput.action(buy).position(), buy);
        key.join.action(StreamJoinOutput.action(buy), out);
        key.join.advance(100_001, out);
        assertThat(sink.out).filteredOn(JoinedLine.class::isInstance).hasSize(2);
        return key;
    }

    /** {@link #released()} in format 1, as format 2 held it after its length. */
    private static final String RELEASED_FORMAT_1 =
            "00000000000186a1" // watermark 100,001
                    + "00000000"
                    + "00000000"
                    + "00000001"
                    + "00000002"
                    + "7231"
                    + "00000000000003e8"
                    + "00000000"
                    + "00000001"
                    + "0000000000000007"
                    + "8000000000000000"
                    + "ffffffff" // its line, released
                    + "01" // its first row out
                    + "00000002"
                    + "0000000000001388" // the click at 5,000, 2.5, "c1"
                    + "00000001"
                    + "4004000000000000"
                    + "00000001"
                    + "00000002"
                    + "6331"
                    + "8000000000000000"
                    + "00"
                    + "00000000000186a0" // the purchase at 100,000, 7, "o1"
                    + "00000001"
                    + "401c000000000000"
                    + "00000001"
                    + "00000002"
                    + "6f31"
                    + "00000000000186a0" // its positive copy at 100,000, out
                    + "01"
                    + "00000000"; // no action waits

    private static JoinKeySerializer.Snapshot snapshotAs(int version) throws IOException {
        return readAs(
                new JoinKeySerializer(SETTINGS).snapshotConfiguration(),
                new JoinKeySerializer.Snapshot(),
                version);
    }

    /** {@code written}'s bytes read into {@code into} as a snapshot of version {@code version}. */
    private static <S extends TypeSerializerSnapshot<?>> S readAs(
            TypeSerializerSnapshot<?> written, S into, int version) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        written.writeSnapshot(out);
        into.readSnapshot(
                version,
                new DataInputDeserializer(out.getCopyOfBuffer()),
                JoinSerializersTest.class.getClassLoader());
        return into;
    }

    /**
     * The click waiting in {@link #key()} as its record was read, in the records' fixed widths
     * (stream 0, "r1", 5000, partition 0, offset 3, watermark 900, "c1", 2.5, its 7 bytes, cut
     * short), as every format of the key's state holds it.
     */
    private static final String CLICK_AS_READ =
            "00000000"
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

    /**
     * The encoding of {@link #key()} in format 3 after its length: watermark 1001 (zigzag varint);
     * no impression arrived; one action arrived (flags: an id and a value; stream 0; its key the
     * state's, "r1"; 5000, +3999 from the watermark; "c1"; 2.5; at 1/0@3; watermark 900, -4100);
     * one placed impression (its key the state's; 1000, -4000; at 0/1@7; watermark MIN; its 12-byte
     * line), not emitted, two streams of nothing; one waiting record (the click as read, in the
     * records' fixed widths).
     */
    private static final String KEY_FROZEN =
            "d20f"
                    + "00"
                    + "01"
                    + "06"
                    + "00"
                    + "be3e"
                    + "026331"
                    + "4004000000000000"
                    + "020006"
                    + "8740"
                    + "01"
                    + "00"
                    + "bf3e"
                    + "00020e"
                    + "b0f0ffffffffffffff01"
                    + "0d7b22726964223a227231227d"
                    + "00"
                    + "02"
                    + "00"
                    + "00"
                    + "01"
                    + CLICK_AS_READ;

    /**
     * The encoding of {@link #key()} in format 1 as it stands and format 2 after its length:
     * watermark 1001; no impression arrived; one action arrived (stream 0, "r1", 5000, "c1", 2.5,
     * at 1/0@3, watermark 900); one placed impression ("r1", 1000, at 0/1@7, watermark MIN, its
     * 12-byte line), not emitted, two streams of nothing; one waiting record (the click as read).
     */
    private static final String KEY_FORMAT_1 =
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
                    + CLICK_AS_READ;

    @Test
    void theSnapshotHoldsTheSettingsAndRefusesOthers() throws IOException {
        JoinKeySerializer serializer = new JoinKeySerializer(SETTINGS);
        JoinKeySerializer.Snapshot read =
                snapshotAs(serializer.snapshotConfiguration().getCurrentVersion());
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
        assertThatThrownBy(() -> snapshotAs(4).restoreSerializer())
                .hasMessage(
                        "label join state was written in format 4; this build reads formats 1"
                                + " to 3");
    }
}
