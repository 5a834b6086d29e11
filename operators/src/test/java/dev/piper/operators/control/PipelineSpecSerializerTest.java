package dev.piper.operators.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.esotericsoftware.kryo.io.Output;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.Chains.Kind;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.PipelineSpec.Column;
import dev.piper.pipeline.spec.SpecParser;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

public class PipelineSpecSerializerTest {

    private final PipelineSpecSerializer serializer = new PipelineSpecSerializer();

    /**
     * A small spec (not a valid Criteo one: the serializer does not validate) for frozen bytes;
     * also the spec inside {@code ActiveSpecTest}'s frozen bytes.
     */
    public static PipelineSpec small() {
        return new PipelineSpec(
                "p",
                2,
                PipelineSpec.Input.builder()
                        .format("criteo-tsv")
                        .topic(Optional.of("t"))
                        .routeField(Optional.empty())
                        .routeValue(Optional.empty())
                        .build(),
                List.of(
                        new Column(
                                "I5",
                                Kind.dense,
                                List.of(
                                        new Op.Decode(),
                                        new Op.FillMissing(),
                                        new DenseOp.Neg2Zero(),
                                        new DenseOp.Log())),
                        new Column(
                                "C3",
                                Kind.sparse,
                                List.of(
                                        new Op.Decode(),
                                        new Op.FillMissing(),
                                        new Op.Hex2Int(),
                                        new IdOp.Modulus(1000),
                                        new Op.Vocab()))),
                new PipelineSpec.Output("dlrm-rows", true, 65536));
    }

    /** {@link #small()} with format 2's operators (not a valid chain either). */
    static PipelineSpec withNewOperators() {
        return new PipelineSpec(
                "p",
                3,
                PipelineSpec.Input.builder()
                        .format("criteo-tsv")
                        .topic(Optional.empty())
                        .routeField(Optional.of("C1"))
                        .routeValue(Optional.of("x"))
                        .build(),
                List.of(
                        new Column(
                                "I1",
                                Kind.dense,
                                List.of(
                                        new Op.Decode(),
                                        new Op.FillNull(-5),
                                        new DenseOp.ClampOp(-1.5, 100),
                                        new DenseOp.BucketizeOp(new double[] {0, 2.5, 1e9}, false),
                                        new DenseOp.Cast(Op.ValueType.float32),
                                        new DenseOp.BoxCoxOp(0.25),
                                        new DenseOp.LogitOp(1e-6),
                                        DenseOp.LogitOp.unclamped())),
                        new Column(
                                "C1",
                                Kind.sparse,
                                List.of(
                                        new Op.Decode(),
                                        new Op.FillNull(7),
                                        new Op.Hex2Int(),
                                        new IdOp.SigridHashOp(-3, 1L << 40),
                                        new Op.Vocab()))),
                new PipelineSpec.Output("dlrm-rows", false, 1024));
    }

    /** Format 2 of {@link #withNewOperators()}, frozen. */
    private static final String NEW_OPERATORS_FORMAT_2 =
            "0282700363726974656f2d7473f68043b182780249b1010870770978000000000000f8bf"
                    + "0000000000005940790003000000000000000000000000000004400000000065cdcd41"
                    + "7c017a000000000000d03f7b8dedb5a0f7c6b03e7b000000000000f87f43b1020570770e"
                    + "747d0580808080802076646c726d2d726f77f3008008";

    /**
     * Format 1, frozen: a change of these bytes is a new format (and needs a reader for this one).
     */
    private static final String SMALL_FORMAT_1 =
            "0182700263726974656f2d7473f6827480800249b501047071727343b3020570"
                    + "717475e80776646c726d2d726f77f301808004";

    private PipelineSpec roundTrip(PipelineSpec spec) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(spec, out);
        DataOutputSerializer copied = new DataOutputSerializer(64);
        serializer.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
        return serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    @Test
    void specsSurviveTheRoundTrip() throws Exception {
        assertThat(roundTrip(SpecParser.builtin())).isEqualTo(SpecParser.builtin());
        assertThat(roundTrip(small())).isEqualTo(small());
    }

    /**
     * Every operator is registered under its definition's tag (unique), so that a new operator
     * needs no entry here: one without parameters round-trips as its one value.
     */
    @Test
    void everyOperatorIsRegisteredUnderItsTag() {
        com.esotericsoftware.kryo.Kryo kryo = PipelineSpecSerializer.newKryo();
        java.util.Set<Integer> tags = new java.util.HashSet<>();
        for (dev.piper.pipeline.ops.OpDefinition d : dev.piper.pipeline.ops.OpDefinition.all()) {
            assertThat(tags.add(d.tag())).as("the tag of %s is its own", d.name()).isTrue();
            assertThat(kryo.getRegistration(d.type()).getId()).as(d.name()).isEqualTo(d.tag());
            if (d.params().isEmpty()) {
                Op op = d.parse().apply(dev.piper.pipeline.ops.OpParams.none());
                com.esotericsoftware.kryo.io.Output out =
                        new com.esotericsoftware.kryo.io.Output(16, -1);
                kryo.writeObject(out, op);
                assertThat(
                                kryo.readObject(
                                        new com.esotericsoftware.kryo.io.Input(out.toBytes()),
                                        d.type()))
                        .as(d.name())
                        .isEqualTo(op);
            }
        }
    }

    @Test
    void formatOneIsStillRead() throws Exception {
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(SMALL_FORMAT_1)))
                .isEqualTo(small());
    }

    @Test
    void formatTwoIsStillRead() throws Exception {
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(NEW_OPERATORS_FORMAT_2)))
                .isEqualTo(withNewOperators());
        // in format 2 a spec of format 1's operators had format 1's bytes but for the version
        assertThat(
                        serializer.fromBytes(
                                HexFormat.of().parseHex("02" + SMALL_FORMAT_1.substring(2))))
                .isEqualTo(small());
    }

    /** {@link #small()} with a vocabulary policy on C3. */
    static PipelineSpec withVocabularyPolicy() {
        List<Op> ops = new java.util.ArrayList<>(small().columns().get(1).ops());
        ops.set(ops.size() - 1, new Op.Vocab(new VocabularyPolicy(3, 8, 1000, "/v/C3.tsv")));
        return withC3(ops);
    }

    /** {@link #small()} with C3's chain replaced by {@code ops}. */
    private static PipelineSpec withC3(List<Op> ops) {
        PipelineSpec s = small();
        return new PipelineSpec(
                s.name(),
                s.version(),
                s.input(),
                List.of(s.columns().get(0), new Column("C3", Kind.sparse, List.copyOf(ops))),
                s.output());
    }

    /** {@link #small()} in format 3: format 1's bytes with vocab's policy tag 0 after its id. */
    private static final String SMALL_FORMAT_3 =
            "03" + SMALL_FORMAT_1.substring(2).replace("e80776", "e8077600");

    /**
     * Format 3, still read. A default vocab is format 1's bytes with one more: the policy tag 0
     * after vocab's registration id (0x76); a policy is tag 1, then min_count 3, oov_buckets 8,
     * max_size 1000 (varints) and the import path.
     */
    @Test
    void formatThreeIsStillRead() throws Exception {
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(SMALL_FORMAT_3)))
                .isEqualTo(small());
        String policy3 =
                SMALL_FORMAT_3.replace(
                        "e8077600", "e807760103" + "08" + "e807" + "2f762f43332e7473f6");
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(policy3)))
                .isEqualTo(withVocabularyPolicy());
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(mapidFormat3())))
                .isEqualTo(withMapid());
    }

    /** {@link #small()} with two mapids on C3 (with and without a default) before its modulus. */
    static PipelineSpec withMapid() {
        List<Op> ops = new java.util.ArrayList<>(small().columns().get(1).ops());
        ops.add(3, new IdOp.MapIdOp("/m", 300L));
        ops.add(4, new IdOp.MapIdOp("/m", null));
        return withC3(ops);
    }

    /**
     * mapid in format 3: registration id 124 (0x7e as Kryo writes it), the table's path, the
     * default flag and the default as a varlong; without a default, the flag alone. The op count
     * goes from 5 to 7.
     */
    private static String mapidFormat3() {
        return SMALL_FORMAT_3.replace("05707174", "07707174" + "7e2fed01ac02" + "7e2fed00");
    }

    /**
     * {@link #small()} reading its label from column "click" and C3 from "cat_3" of a Parquet file.
     */
    static PipelineSpec withParquetColumns() {
        PipelineSpec s = small();
        PipelineSpec.Input in = s.input();
        return new PipelineSpec(
                s.name(),
                s.version(),
                in.toBuilder()
                        .parquetColumns(java.util.Map.of("label", "click", "C3", "cat_3"))
                        .build(),
                s.columns(),
                s.output());
    }

    /** {@link #small()} in format 4: format 3's bytes and no Parquet column names. */
    private static final String SMALL_FORMAT_4 = "04" + SMALL_FORMAT_3.substring(2) + "00";

    /**
     * Format 4, still read: format 3's bytes, then the count of Parquet column names (varint) and
     * each (field, column) pair as strings, sorted by field ("C3" before "label"); no layout, so
     * Criteo's.
     */
    @Test
    void formatFourIsStillRead() throws Exception {
        String policy4 =
                SMALL_FORMAT_4.replace(
                        "e8077600", "e807760103" + "08" + "e807" + "2f762f43332e7473f6");
        String mapid4 = "04" + mapidFormat3().substring(2) + "00";
        String parquet4 =
                "04"
                        + SMALL_FORMAT_3.substring(2)
                        + "02"
                        + "43b3" // C3
                        + "6361745fb3" // cat_3
                        + "6c616265ec" // label
                        + "636c6963eb"; // click
        Map<String, PipelineSpec> specs =
                Map.of(
                        SMALL_FORMAT_4, small(),
                        policy4, withVocabularyPolicy(),
                        mapid4, withMapid(),
                        parquet4, withParquetColumns());
        for (Map.Entry<String, PipelineSpec> e : specs.entrySet()) {
            PipelineSpec read = serializer.fromBytes(HexFormat.of().parseHex(e.getKey()));
            assertThat(read).isEqualTo(e.getValue());
            assertThat(read.layout()).isEqualTo(RowLayout.CRITEO);
            // written anew: format 6, the same bytes then Criteo's layout (13, 26, no lists, ',')
            // and no Hotline section
            assertThat(HexFormat.of().formatHex(serializer.toBytes(read)))
                    .isEqualTo(
                            writtenNow(
                                    "05" + e.getKey().substring(2) + "0d1a" + "00" + "2c" + "00"));
        }
    }

    /** {@link #small()} declaring PreSto's layout of 504 dense and 42 sparse columns. */
    static PipelineSpec wide() {
        PipelineSpec s = small();
        PipelineSpec.Input in = s.input();
        return new PipelineSpec(
                s.name(),
                s.version(),
                in.toBuilder().layout(new RowLayout(504, 42)).build(),
                s.columns(),
                s.output());
    }

    /** {@link #wide()} whose C1..C42 hold lists separated by '|'. */
    static PipelineSpec withLists() {
        PipelineSpec s = wide();
        PipelineSpec.Input in = s.input();
        List<Integer> all = new java.util.ArrayList<>();
        for (int c = 0; c < 42; c++) {
            all.add(c);
        }
        return new PipelineSpec(
                s.name(),
                s.version(),
                in.toBuilder().layout(new RowLayout(504, 42, all, '|')).build(),
                s.columns(),
                s.output());
    }

    /** Format 6 of a spec without Hotline: its format 5 bytes with the version, then false. */
    private static String format6(String format5) {
        assertThat(format5).startsWith("05");
        return "06" + format5.substring(2) + "00";
    }

    /**
     * What this build writes for a spec given in format 5: format 11, which for a spec without an
     * evicting vocabulary and of positional input is format 6's bytes but for the version, then no
     * field paths (a varint 0), no CSV layout, no Avro schemas and no Protobuf message (false
     * each).
     */
    private static String writtenNow(String format5) {
        return "0e" + format6(format5).substring(2) + "00" + "00" + "00" + "00" + "00" + "00";
    }

    /**
     * Format 7, frozen: vocab's evicting policy is tag 2, tag 1's fields, then capacity 1000 (e8
     * 07), LFU (01) and no ttl (00), or TTL (02) and 5,000,000 rows (c0 96 b1 02); format 6 bytes
     * of a spec without one still read.
     */
    @Test
    void formatSevenHoldsAnEvictingPolicy() throws Exception {
        String now = HexFormat.of().formatHex(serializer.toBytes(small()));
        // no Hotline, field paths, CSV, Avro, Protobuf
        assertThat(now).startsWith("0e").endsWith("00000000000000");
        String format7 = "07" + now.substring(2, now.length() - 10);
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(format7))).isEqualTo(small());
        assertThat(serializer.fromBytes(HexFormat.of().parseHex("06" + format7.substring(2))))
                .isEqualTo(small());
        Map<String, VocabularyPolicy> frozen =
                Map.of(
                        "76" + "02" + "01" + "04" + "8080808002" + "80" + "e807" + "01" + "00",
                        new VocabularyPolicy(
                                1,
                                4,
                                VocabularyPolicy.MAX_SIZE,
                                null,
                                1000,
                                VocabularyPolicy.Eviction.LFU,
                                0),
                        "76"
                                + "02"
                                + "02"
                                + "04"
                                + "8080808002"
                                + "80"
                                + "e807"
                                + "02"
                                + "c096b102",
                        new VocabularyPolicy(
                                2,
                                4,
                                VocabularyPolicy.MAX_SIZE,
                                null,
                                1000,
                                VocabularyPolicy.Eviction.TTL,
                                5_000_000));
        for (Map.Entry<String, VocabularyPolicy> e : frozen.entrySet()) {
            List<Op> ops = new java.util.ArrayList<>(small().columns().get(1).ops());
            ops.set(ops.size() - 1, new Op.Vocab(e.getValue()));
            PipelineSpec spec = withC3(ops);
            String bytes = HexFormat.of().formatHex(serializer.toBytes(spec));
            // format 13 adds the ttl in event time: none
            assertThat(bytes).isEqualTo(now.replace("7600", e.getKey() + "00"));
            assertThat(serializer.fromBytes(HexFormat.of().parseHex(bytes))).isEqualTo(spec);
            String format12 = "0c" + now.substring(2).replace("7600", e.getKey());
            assertThat(serializer.fromBytes(HexFormat.of().parseHex(format12))).isEqualTo(spec);
        }
        // format 13: a ttl in event time, 1 hour (80 dd db 01), after no ttl in rows
        List<Op> ops = new java.util.ArrayList<>(small().columns().get(1).ops());
        ops.set(
                ops.size() - 1,
                new Op.Vocab(
                        new VocabularyPolicy(
                                1,
                                4,
                                VocabularyPolicy.MAX_SIZE,
                                null,
                                1000,
                                VocabularyPolicy.Eviction.TTL,
                                0,
                                3_600_000)));
        PipelineSpec timed = withC3(ops);
        String bytes = HexFormat.of().formatHex(serializer.toBytes(timed));
        assertThat(bytes)
                .isEqualTo(
                        now.replace(
                                "7600",
                                "76"
                                        + "02"
                                        + "01"
                                        + "04"
                                        + "8080808002"
                                        + "80"
                                        + "e807"
                                        + "02"
                                        + "00"
                                        + "80dddb01"));
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(bytes))).isEqualTo(timed);
    }

    /**
     * Format 6 appends the Hotline section: false, or true and its settings (budget 1 MiB as the
     * varlong 80 80 40, dim 16, window 1,000,000 as c0 84 3d, sample 0.05 as its IEEE double (Kryo
     * writes doubles little-endian), sample rows 1024 as 80 08, srrip 1, tracker entries 65,536 as
     * 80 80 04, decay 0.5).
     */
    @Test
    void formatSixHoldsTheHotlineSection() throws Exception {
        PipelineSpec s = small();
        PipelineSpec hot =
                new PipelineSpec(
                        s.name(),
                        s.version(),
                        s.input(),
                        s.columns(),
                        s.output(),
                        new dev.piper.pipeline.hotline.HotlineSettings(
                                1 << 20,
                                16,
                                1_000_000,
                                0,
                                0.05,
                                1024,
                                dev.piper.pipeline.hotline.HotlineSettings.Tracker.SRRIP,
                                1 << 16,
                                0.5));
        String plain = HexFormat.of().formatHex(serializer.toBytes(s));
        assertThat(HexFormat.of().formatHex(serializer.toBytes(hot)))
                .isEqualTo(
                        // no Hotline, field paths, CSV, Avro, Protobuf, event time
                        plain.substring(0, plain.length() - 14)
                                + "01"
                                + "808040"
                                + "10"
                                + "c0843d"
                                + "9a9999999999a93f"
                                + "8008"
                                + "01"
                                + "808004"
                                + "000000000000e03f"
                                + "00" // format 13: no window in event time
                                + "00"
                                + "00"
                                + "00"
                                + "00"
                                + "00"
                                + "00"); // format 14: no label join
        assertThat(roundTrip(hot)).isEqualTo(hot);
    }

    /**
     * Format 13, frozen: the Hotline section ends with its window in event time, 1h as the varlong
     * 80 dd db 01 (3,600,000 ms), its window of rows 0; format 12's bytes of a section (without it)
     * still read, as a window of rows.
     */
    @Test
    void formatThirteenHoldsAWindowInEventTime() throws Exception {
        PipelineSpec s = small();
        var settings =
                new dev.piper.pipeline.hotline.HotlineSettings(
                        1 << 20,
                        16,
                        0,
                        3_600_000,
                        0.05,
                        1024,
                        dev.piper.pipeline.hotline.HotlineSettings.Tracker.EXACT,
                        1 << 16,
                        1);
        PipelineSpec hot =
                new PipelineSpec(
                        s.name(), s.version(), s.input(), s.columns(), s.output(), settings);
        String plain = HexFormat.of().formatHex(serializer.toBytes(s));
        String section =
                "01"
                        + "808040" // budget
                        + "10" // dim
                        + "00" // no window of rows
                        + "9a9999999999a93f" // sample
                        + "8008" // sample rows
                        + "00" // exact
                        + "808004" // tracker entries
                        + "000000000000f03f"; // decay 1
        // no field paths, CSV, Avro, Protobuf, event time
        String rest = "0000000000";
        String frozen = plain.substring(0, plain.length() - 14) + section + "80dddb01" + rest;
        assertThat(HexFormat.of().formatHex(serializer.toBytes(hot))).isEqualTo(frozen + "00");
        assertThat(serializer.fromBytes(HexFormat.of().parseHex("0d" + frozen.substring(2))))
                .isEqualTo(hot);
        String format12 =
                "0c"
                        + plain.substring(2, plain.length() - 14)
                        + section.replace("10" + "00", "10" + "c0843d")
                        + rest;
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(format12)).hotline().windowRows())
                .isEqualTo(1_000_000);
    }

    /**
     * Format 14, frozen: the label join after the event time: true, the key path, the bound and the
     * retention (varlongs: 10,000 is 90 4e, 900,000 a0 f7 36), the sample rate 0.25, then per
     * stream its name, window, policy (wait 00), format, key, time path and unit (ms 01), id, value
     * (null 80) and topic. Format 13's bytes read as a spec without one.
     */
    @Test
    void formatFourteenHoldsTheLabelJoin() throws Exception {
        PipelineSpec s = small();
        var join =
                new dev.piper.pipeline.join.JoinSettings(
                        List.of(
                                new dev.piper.pipeline.join.ActionStream(
                                        "click", 900_000, dev.piper.pipeline.join.EmitPolicy.WAIT)),
                        10_000,
                        900_000,
                        0.25);
        var labels =
                new dev.piper.pipeline.join.LabelSpec(
                        "rid",
                        join,
                        List.of(
                                new dev.piper.pipeline.join.ActionSource(
                                        "json",
                                        "rid",
                                        new dev.piper.pipeline.input.EventTime(
                                                "ts",
                                                dev.piper.pipeline.input.EventTime.Unit.MILLIS),
                                        "cid",
                                        null,
                                        "clicks")));
        PipelineSpec joined =
                new PipelineSpec(
                        s.name(), s.version(), s.input(), s.columns(), s.output(), null, labels);
        String plain = HexFormat.of().formatHex(serializer.toBytes(s));
        String section =
                "01"
                        + "7269e4" // rid
                        + "904e" // 10 s
                        + "a0f736" // 15 min
                        + "000000000000d03f" // 0.25
                        + "01" // one stream
                        + "636c6963eb" // click
                        + "a0f736" // 15 min
                        + "00" // wait
                        + "6a736fee" // json
                        + "7269e4" // rid
                        + "74f3" // ts
                        + "01" // ms
                        + "6369e4" // cid
                        + "80" // no value
                        + "636c69636bf3"; // clicks
        String frozen = plain.substring(0, plain.length() - 2) + section;
        assertThat(HexFormat.of().formatHex(serializer.toBytes(joined))).isEqualTo(frozen);
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(frozen))).isEqualTo(joined);
        String format13 = "0d" + plain.substring(2, plain.length() - 2);
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(format13))).isEqualTo(s);
    }

    /**
     * Format 8, frozen: the field paths of a JSON input after the Hotline section, a varint count
     * then each (column, path) as strings sorted by column ("C3" before "label"), and hash64 under
     * its tag 129 (Kryo writes registration id + 2 as a varint: 83 01).
     */
    @Test
    void formatEightHoldsFieldPaths() throws Exception {
        PipelineSpec s = small();
        List<Op> ops = new java.util.ArrayList<>(s.columns().get(1).ops());
        ops.set(2, new Op.Hash64());
        PipelineSpec hashed = withC3(ops);
        PipelineSpec json =
                new PipelineSpec(
                        hashed.name(),
                        hashed.version(),
                        PipelineSpec.Input.builder()
                                .format("json")
                                .topic(s.input().topic())
                                .routeField(s.input().routeField())
                                .routeValue(s.input().routeValue())
                                .parquetColumns(Map.of())
                                .layout(s.layout())
                                .fields(Map.of("label", "clicked", "C3", "user.id"))
                                .build(),
                        hashed.columns(),
                        hashed.output());
        String bytes = HexFormat.of().formatHex(serializer.toBytes(json));
        String plain = HexFormat.of().formatHex(serializer.toBytes(hashed));
        String frozen =
                "08"
                        + "827002"
                        + "6a736fee" // json (Kryo marks a string's last character)
                        + "827480800249b501047071727343b302057071"
                        + "8301" // hash64
                        + "75e8077600646c726d2d726f77f301808004"
                        + "00" // no Parquet columns
                        + "0d1a002c00" // the layout
                        + "00" // no Hotline
                        + "02"
                        + "43b3" // C3
                        + "757365722e69e4" // user.id
                        + "6c616265ec" // label
                        + "636c69636b65e4"; // clicked
        // no CSV, Avro, Protobuf
        assertThat(bytes).isEqualTo("0e" + frozen.substring(2) + "00" + "00" + "00" + "00" + "00");
        assertThat(plain).contains("8301");
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(frozen))).isEqualTo(json);
    }

    /**
     * Format 9, frozen: format 8's bytes, then a CSV input's layout: true, the column count and
     * names, the header flag and the delimiter (';' 3b).
     */
    @Test
    void formatNineHoldsACsvLayout() throws Exception {
        PipelineSpec s = small();
        PipelineSpec csv =
                new PipelineSpec(
                        s.name(),
                        s.version(),
                        PipelineSpec.Input.builder()
                                .format("csv")
                                .topic(s.input().topic())
                                .routeField(s.input().routeField())
                                .routeValue(s.input().routeValue())
                                .parquetColumns(Map.of())
                                .layout(s.layout())
                                .fields(Map.of("label", "y"))
                                .csv(
                                        new dev.piper.pipeline.input.CsvOptions(
                                                List.of("y", "C3"), true, ';'))
                                .build(),
                        s.columns(),
                        s.output());
        String bytes = HexFormat.of().formatHex(serializer.toBytes(csv));
        String frozen =
                "09"
                        + "827002"
                        + "6373f6" // csv
                        + "827480800249b501047071727343b3020570717475e8077600646c726d2d726f77f3"
                        + "01808004"
                        + "00" // no Parquet columns
                        + "0d1a002c00" // the layout
                        + "00" // no Hotline
                        + "01"
                        + "6c616265ec" // label
                        + "8279" // y (Kryo writes a one-character string with its length)
                        + "01" // a CSV layout
                        + "02" // two columns
                        + "8279" // y
                        + "43b3" // C3
                        + "01" // a header
                        + "3b"; // ';'
        // no Avro schemas, no Protobuf message
        assertThat(bytes).isEqualTo("0e" + frozen.substring(2) + "00" + "00" + "00" + "00");
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(frozen))).isEqualTo(csv);
    }

    /**
     * Format 10, frozen: format 9's bytes, then an Avro input's schemas: true, then its schema
     * file, schema and registry, each a string or null (Kryo writes null as 80).
     */
    @Test
    void formatTenHoldsAvroSchemas() throws Exception {
        PipelineSpec s = small();
        PipelineSpec avro =
                new PipelineSpec(
                        s.name(),
                        s.version(),
                        PipelineSpec.Input.builder()
                                .format("avro")
                                .topic(s.input().topic())
                                .routeField(s.input().routeField())
                                .routeValue(s.input().routeValue())
                                .parquetColumns(Map.of())
                                .layout(s.layout())
                                .fields(Map.of())
                                .avro(
                                        new dev.piper.pipeline.input.AvroOptions(
                                                null, null, "http://r:8081"))
                                .build(),
                        s.columns(),
                        s.output());
        String bytes = HexFormat.of().formatHex(serializer.toBytes(avro));
        String frozen =
                "0a"
                        + "827002"
                        + "617672ef" // avro
                        + "827480800249b501047071727343b3020570717475e8077600646c726d2d726f77f3"
                        + "01808004"
                        + "00" // no Parquet columns
                        + "0d1a002c00" // the layout
                        + "00" // no Hotline
                        + "00" // no field paths
                        + "00" // no CSV layout
                        + "01" // Avro schemas
                        + "80" // no schema file
                        + "80" // no schema
                        + "687474703a2f2f723a383038b1"; // http://r:8081
        assertThat(bytes)
                .isEqualTo(
                        "0e" + frozen.substring(2) + "00" + "00" + "00"); // no Protobuf, time, join
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(frozen))).isEqualTo(avro);
    }

    /**
     * Format 11, frozen: format 10's bytes, then a Protobuf input's message: true, its descriptor
     * file, the descriptor set's bytes (a varint length, then the bytes) and the message's name.
     */
    @Test
    void formatElevenHoldsAProtobufMessage() throws Exception {
        PipelineSpec s = small();
        PipelineSpec proto =
                new PipelineSpec(
                        s.name(),
                        s.version(),
                        PipelineSpec.Input.builder()
                                .format("protobuf")
                                .topic(s.input().topic())
                                .routeField(s.input().routeField())
                                .routeValue(s.input().routeValue())
                                .parquetColumns(Map.of())
                                .layout(s.layout())
                                .fields(Map.of())
                                .protobuf(
                                        new dev.piper.pipeline.input.ProtobufOptions(
                                                "c.desc", new byte[] {1, 2, 3}, "shop.Click"))
                                .build(),
                        s.columns(),
                        s.output());
        String bytes = HexFormat.of().formatHex(serializer.toBytes(proto));
        String frozen =
                "0b"
                        + "827002"
                        + "70726f746f6275e6" // protobuf
                        + "827480800249b501047071727343b3020570717475e8077600646c726d2d726f77f3"
                        + "01808004"
                        + "00" // no Parquet columns
                        + "0d1a002c00" // the layout
                        + "00" // no Hotline
                        + "00" // no field paths
                        + "00" // no CSV layout
                        + "00" // no Avro schemas
                        + "01" // a Protobuf message
                        + "632e646573e3" // c.desc
                        + "03010203" // the descriptor set: 3 bytes
                        + "73686f702e436c6963eb"; // shop.Click
        assertThat(bytes).isEqualTo("0e" + frozen.substring(2) + "00" + "00"); // no time, join
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(frozen))).isEqualTo(proto);
    }

    /**
     * Format 12, frozen: format 11's bytes, then the input's event time: true, the path of its
     * field and its unit (s 00, ms 01, us 02).
     */
    @Test
    void formatTwelveHoldsAnEventTime() throws Exception {
        PipelineSpec s = small();
        PipelineSpec timed =
                new PipelineSpec(
                        s.name(),
                        s.version(),
                        PipelineSpec.Input.builder()
                                .format("json")
                                .topic(s.input().topic())
                                .routeField(s.input().routeField())
                                .routeValue(s.input().routeValue())
                                .parquetColumns(Map.of())
                                .layout(s.layout())
                                .fields(Map.of())
                                .eventTime(
                                        new dev.piper.pipeline.input.EventTime(
                                                "ts",
                                                dev.piper.pipeline.input.EventTime.Unit.SECONDS))
                                .build(),
                        s.columns(),
                        s.output());
        String bytes = HexFormat.of().formatHex(serializer.toBytes(timed));
        String frozen =
                "0c"
                        + "827002"
                        + "6a736fee" // json
                        + "827480800249b501047071727343b3020570717475e8077600646c726d2d726f77f3"
                        + "01808004"
                        + "00" // no Parquet columns
                        + "0d1a002c00" // the layout
                        + "00" // no Hotline
                        + "00" // no field paths
                        + "00" // no CSV layout
                        + "00" // no Avro schemas
                        + "00" // no Protobuf message
                        + "01" // an event time
                        + "74f3" // ts
                        + "00"; // in seconds
        assertThat(bytes).isEqualTo("0e" + frozen.substring(2) + "00"); // no label join
        assertThat(serializer.fromBytes(HexFormat.of().parseHex(frozen))).isEqualTo(timed);
    }

    /**
     * Format 5, frozen: format 4's bytes, then the layout: the dense and sparse column counts, the
     * number of list columns and each one's index, and the list separator, all varints (504 is f8
     * 03 as Kryo writes it, ',' 2c, '|' 7c).
     */
    @Test
    void formatFiveIsFrozen() throws Exception {
        assertThat(PipelineSpecSerializer.FORMAT).isEqualTo(14);
        assertThat(HexFormat.of().formatHex(serializer.toBytes(small())))
                .isEqualTo(
                        writtenNow(
                                "05"
                                        + SMALL_FORMAT_4.substring(2)
                                        + "0d"
                                        + "1a"
                                        + "00"
                                        + "2c"
                                        + "00"));
        assertThat(
                        serializer.fromBytes(
                                HexFormat.of()
                                        .parseHex(
                                                "05"
                                                        + SMALL_FORMAT_4.substring(2)
                                                        + "0d"
                                                        + "1a"
                                                        + "00"
                                                        + "2c"
                                                        + "00")))
                .isEqualTo(small());
        assertThat(HexFormat.of().formatHex(serializer.toBytes(wide())))
                .isEqualTo(
                        writtenNow(
                                "05"
                                        + SMALL_FORMAT_4.substring(2)
                                        + "f803"
                                        + "2a"
                                        + "00"
                                        + "2c"
                                        + "00"));
        StringBuilder lists = new StringBuilder("2a");
        for (int c = 0; c < 42; c++) {
            lists.append(String.format("%02x", c));
        }
        assertThat(HexFormat.of().formatHex(serializer.toBytes(withLists())))
                .isEqualTo(
                        writtenNow(
                                "05"
                                        + SMALL_FORMAT_4.substring(2)
                                        + "f803"
                                        + "2a"
                                        + lists
                                        + "7c"
                                        + "00"));
        assertThat(roundTrip(withLists()).layout()).isEqualTo(withLists().layout());
        // generated columns: their count and each one's dense index, G1 <- I1, G2 <- I300
        PipelineSpec w = wide();
        PipelineSpec generated =
                new PipelineSpec(
                        w.name(),
                        w.version(),
                        PipelineSpec.Input.builder()
                                .format(w.input().format())
                                .topic(w.input().topic())
                                .routeField(w.input().routeField())
                                .routeValue(w.input().routeValue())
                                .parquetColumns(w.input().parquetColumns())
                                .layout(new RowLayout(504, 42, List.of(), ',', List.of(0, 299)))
                                .build(),
                        w.columns(),
                        w.output());
        assertThat(HexFormat.of().formatHex(serializer.toBytes(generated)))
                .isEqualTo(
                        writtenNow(
                                "05"
                                        + SMALL_FORMAT_4.substring(2)
                                        + "f803"
                                        + "2a"
                                        + "00"
                                        + "2c"
                                        + "02"
                                        + "00"
                                        + "ab02"));
        assertThat(roundTrip(generated).layout()).isEqualTo(generated.layout());
        // firstx and ngram: registration ids 125 and 126 (7f and 80 01 as Kryo writes them)
        PipelineSpec s = small();
        Column c3 = s.columns().get(1);
        List<Op> ops = new java.util.ArrayList<>(c3.ops());
        ops.addAll(4, List.of(new IdOp.FirstXOp(20), new IdOp.NgramOp(2)));
        PipelineSpec listOps =
                new PipelineSpec(
                        s.name(),
                        s.version(),
                        s.input(),
                        List.of(s.columns().get(0), new Column("C3", Kind.list, ops)),
                        s.output());
        String small5 = HexFormat.of().formatHex(serializer.toBytes(small()));
        assertThat(HexFormat.of().formatHex(serializer.toBytes(listOps)))
                .isEqualTo(
                        small5.replace(
                                "02" + "05707174" + "75e807" + "7600", // kind sparse, 5 operators
                                "03" + "07707174" + "75e807" + "7f14" + "800102" + "7600"));
        assertThat(roundTrip(listOps)).isEqualTo(listOps);
        // onehot: registration id 127 (81 01 as Kryo writes it), then its size
        Column i5 = s.columns().get(0);
        List<Op> withOnehot = new java.util.ArrayList<>(i5.ops());
        withOnehot.add(new DenseOp.OneHotOp(8));
        PipelineSpec onehot =
                new PipelineSpec(
                        s.name(),
                        s.version(),
                        s.input(),
                        List.of(new Column("I5", Kind.dense, withOnehot), s.columns().get(1)),
                        s.output());
        assertThat(HexFormat.of().formatHex(serializer.toBytes(onehot)))
                .isEqualTo(
                        small5.replace(
                                "49b5" + "01" + "04" + "70717273", // I5, dense, 4 operators
                                "49b5" + "01" + "05" + "70717273" + "8101" + "08"));
        assertThat(roundTrip(onehot)).isEqualTo(onehot);
        for (PipelineSpec spec :
                List.of(
                        small(),
                        withVocabularyPolicy(),
                        withMapid(),
                        withParquetColumns(),
                        wide(),
                        withNewOperators())) {
            assertThat(roundTrip(spec)).isEqualTo(spec);
        }
        assertThat(roundTrip(wide()).layout()).isEqualTo(new RowLayout(504, 42));
    }

    @Test
    void stateOfFormatOneIsMigrated() throws Exception {
        PipelineSpecSerializer.Snapshot one = new PipelineSpecSerializer.Snapshot();
        one.readSnapshot(1, new DataInputDeserializer(new byte[0]), getClass().getClassLoader());
        assertThat(one.restoreSerializer()).isEqualTo(serializer);
        PipelineSpecSerializer.Snapshot two = new PipelineSpecSerializer.Snapshot();
        two.readSnapshot(2, new DataInputDeserializer(new byte[0]), getClass().getClassLoader());
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(two)
                                .isCompatibleAfterMigration())
                .isTrue();
        assertThat(one.restoreSerializer()).isEqualTo(serializer);
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(one)
                                .isCompatibleAfterMigration())
                .isTrue();
    }

    @Test
    void kryoRefusesUnregisteredClasses() {
        assertThatThrownBy(
                        () ->
                                PipelineSpecSerializer.newKryo()
                                        .writeClassAndObject(new Output(16), new java.util.Date()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Class is not registered");
    }

    @Test
    void aLaterFormatIsRefusedByName() {
        byte[] bytes = serializer.toBytes(small());
        bytes[0] = 15; // the format varint
        assertThatThrownBy(() -> serializer.fromBytes(bytes))
                .hasMessageContaining("pipeline spec in format 15; this build reads 1..14");
    }

    @Test
    void snapshotRestoresAndIsCompatible() throws Exception {
        DataOutputSerializer snap = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(snap, serializer.snapshotConfiguration());
        TypeSerializerSnapshot<PipelineSpec> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(snap.getCopyOfBuffer()),
                        getClass().getClassLoader());
        assertThat(restored.restoreSerializer()).isEqualTo(serializer);
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAsIs())
                .isTrue();
        assertThat(serializer.duplicate()).isNotSameAs(serializer).isEqualTo(serializer);
    }
}
