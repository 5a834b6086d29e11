package dev.piper.pipeline.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A key's join written and read back at any point goes on exactly as the one never written: the
 * stream's keyed state holds every part of it (impressions and actions waiting for the watermark,
 * the placed impressions with their joined actions, ids and copies due).
 */
class KeyJoinStateTest {

    private static final JoinSettings SETTINGS =
            new JoinSettings(
                    List.of(
                            new ActionStream("click", 60_000, EmitPolicy.WAIT),
                            new ActionStream("buy", 300_000, EmitPolicy.NEGATIVE_FIRST)),
                    2_000,
                    30_000,
                    0.5);

    private static final KeyJoinState.PayloadIO<String> TEXT =
            new KeyJoinState.PayloadIO<>() {
                @Override
                public void write(String payload, DataOutput out) throws IOException {
                    KeyJoinState.writeString(payload, out);
                }

                @Override
                public String read(DataInput in) throws IOException {
                    return KeyJoinState.readString(in);
                }
            };

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void aJoinReadBackGoesOnAsTheOneNeverWritten(int seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed);
        KeyJoin<String> kept = new KeyJoin<>(SETTINGS);
        KeyJoin<String> restored = new KeyJoin<>(SETTINGS);
        List<String> keptOut = new ArrayList<>();
        List<String> restoredOut = new ArrayList<>();
        JoinOutput<String> a = record(keptOut);
        JoinOutput<String> b = record(restoredOut);
        long t = 1_795_737_600_000L;
        long watermark = Long.MIN_VALUE;
        int roundTrips = 0;
        for (int step = 0; step < 400; step++) {
            t += rnd.nextInt(0, 20_000);
            int what = rnd.nextInt(10);
            Position at = new Position(what < 3 ? 0 : 1 + rnd.nextInt(2), 0, step);
            long wm = watermark;
            if (what < 3) {
                String payload = "{\"rid\":\"k\",\"n\":" + step + "}";
                Impression<String> m = new Impression<>("k", t, at, wm, payload);
                kept.impression(m, a);
                restored.impression(m, b);
            } else if (what < 9) {
                int stream = at.source() - 1;
                String id = rnd.nextInt(4) == 0 ? null : "a" + rnd.nextInt(step + 1);
                long time = t - rnd.nextInt(0, 3_000);
                Action x = new Action(stream, "k", time, id, rnd.nextInt(5), at, wm);
                kept.action(x, a);
                restored.action(x, b);
            } else {
                watermark = t - rnd.nextInt(0, 2_000);
                kept.advance(watermark, a);
                restored.advance(watermark, b);
            }
            if (rnd.nextInt(3) == 0) {
                restored = roundTrip(restored);
                roundTrips++;
            }
            assertThat(restoredOut).as("step %d", step).isEqualTo(keptOut);
            assertThat(restored.nextDueMs()).isEqualTo(kept.nextDueMs());
        }
        kept.advance(Long.MAX_VALUE, a);
        roundTrip(restored).advance(Long.MAX_VALUE, b);
        assertThat(restoredOut).isEqualTo(keptOut);
        assertThat(keptOut).anyMatch(o -> o.startsWith("row"));
        assertThat(keptOut).anyMatch(o -> o.startsWith("joined"));
        assertThat(roundTrips).isGreaterThan(50);
    }

    @Test
    void aStateOfOtherStreamsIsRefusedNamingTheCause() throws IOException {
        KeyJoin<String> join = new KeyJoin<>(SETTINGS);
        join.impression(
                new Impression<>("k", 1_000, new Position(0, 0, 0), Long.MIN_VALUE, "m"),
                record(new ArrayList<>()));
        // a click places the impression: its state then holds its joins with 2 streams
        join.action(
                new Action(0, "k", 1_500, null, 0, new Position(1, 0, 0), Long.MIN_VALUE),
                record(new ArrayList<>()));
        join.advance(2_000, record(new ArrayList<>()));
        byte[] bytes = bytes(join);
        JoinSettings one =
                new JoinSettings(
                        List.of(new ActionStream("click", 60_000, EmitPolicy.WAIT)), 0, 0, 1);
        assertThatThrownBy(
                        () ->
                                KeyJoinState.read(
                                        one,
                                        "k",
                                        new DataInputStream(new ByteArrayInputStream(bytes)),
                                        TEXT))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("joined to 2 action streams, but the join has 1");
    }

    /**
     * A record whose key is not the state's (the stream keys every record by its own, so none is; a
     * state read from format 1, which wrote each record's key, is written under the first one's)
     * keeps its key; the others are written without theirs.
     */
    @Test
    void aRecordOfAnotherKeyKeepsItsKey() throws IOException {
        KeyJoin<String> join = new KeyJoin<>(SETTINGS);
        List<String> out = new ArrayList<>();
        join.impression(
                new Impression<>("k", 1_000, new Position(0, 0, 0), Long.MIN_VALUE, "m"),
                record(out));
        join.action(
                new Action(0, "other", 1_500, "c", 0, new Position(1, 0, 0), Long.MIN_VALUE),
                record(out));
        byte[] asK = bytes(join, "k");
        byte[] asNone = bytes(join, null);
        assertThat(asNone.length).isEqualTo(asK.length + 2); // "k" once more: its length and byte
        KeyJoin<String> back =
                KeyJoinState.read(
                        SETTINGS, "k", new DataInputStream(new ByteArrayInputStream(asK)), TEXT);
        assertThat(back.arrivedImpressions.get(0).key()).isEqualTo("k");
        assertThat(back.arrivedActions.get(0).key()).isEqualTo("other");
        assertThat(bytes(back, "k")).isEqualTo(asK);
        assertThat(KeyJoinState.keyOf(back)).isEqualTo("k");
    }

    @ParameterizedTest
    @ValueSource(
            longs = {
                0,
                1,
                -1,
                63,
                -64,
                64,
                127,
                128,
                300,
                -300,
                1_795_737_600_000L,
                Long.MAX_VALUE,
                Long.MIN_VALUE
            })
    void varintsReadBackWhatWasWritten(long v) throws IOException {
        ByteArrayOutputStream signed = new ByteArrayOutputStream();
        KeyJoinState.writeSigned(v, new DataOutputStream(signed));
        ByteArrayOutputStream unsigned = new ByteArrayOutputStream();
        KeyJoinState.writeVarLong(v, new DataOutputStream(unsigned));
        assertThat(KeyJoinState.readSigned(in(signed))).isEqualTo(v);
        assertThat(KeyJoinState.readVarLong(in(unsigned))).isEqualTo(v);
        // 7 bits a byte: small magnitudes either side of 0 in one byte, a long in at most 10
        assertThat(signed.size()).isBetween(1, 10);
        if (v >= -64 && v <= 63) {
            assertThat(signed.size()).isEqualTo(1);
        }
    }

    @Test
    void aVarintOfMoreThanTenBytesIsRefused() {
        byte[] b = new byte[11];
        Arrays.fill(b, (byte) 0x80);
        assertThatThrownBy(
                        () ->
                                KeyJoinState.readVarLong(
                                        new DataInputStream(new ByteArrayInputStream(b))))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("more than 10 bytes");
    }

    private static DataInputStream in(ByteArrayOutputStream out) {
        return new DataInputStream(new ByteArrayInputStream(out.toByteArray()));
    }

    private static byte[] bytes(KeyJoin<String> join) throws IOException {
        return bytes(join, "k");
    }

    private static byte[] bytes(KeyJoin<String> join, String key) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        KeyJoinState.write(join, key, new DataOutputStream(out), TEXT);
        return out.toByteArray();
    }

    private static KeyJoin<String> roundTrip(KeyJoin<String> join) throws IOException {
        byte[] b = bytes(join);
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(b));
        KeyJoin<String> back = KeyJoinState.read(SETTINGS, "k", in, TEXT);
        assertThat(in.read()).as("every byte read").isEqualTo(-1);
        assertThat(bytes(back)).isEqualTo(b);
        return back;
    }

    private static JoinOutput<String> record(List<String> out) {
        return new JoinOutput<>() {
            @Override
            public void row(JoinedRow<String> row) {
                out.add("row " + row);
            }

            @Override
            public void sampledOut(Impression<String> impression) {
                out.add("sampled out " + impression);
            }

            @Override
            public void rejected(Impression<String> impression, JoinReason reason) {
                out.add(reason.code() + " " + impression);
            }

            @Override
            public void joined(Action action, Impression<String> impression) {
                out.add("joined " + action + " to " + impression);
            }

            @Override
            public void rejected(Action action, JoinReason reason) {
                out.add(reason.code() + " " + action);
            }
        };
    }
}
