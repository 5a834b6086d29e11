package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.serve.Transform;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python transform library's readers of binary events against the Java decoders, on the value
 * types the click events never hold: Avro floats and doubles, ints, enums, unions, maps, bytes and
 * fixed, arrays of longs and strings with nulls among them; Protobuf's integer encodings (varint,
 * zigzag, fixed, packed and not), floats, enums, nested and repeated messages and wire types a
 * field's type cannot have. Seeded records, a third of them holding a value their column cannot
 * take; an empty snapshot with a million OOV buckets, so every key shows as its bucket. Rows (slot
 * bits), lists, event times, unknown keys and each dead letter's record, reason and detail (but for
 * a broken encoding, whose detail is each reader's own) must be equal.
 */
class TypedEventsPythonITCase {

    @TempDir Path tmp;

    /** Whether a value is one its column cannot take: each value apart, a few in a hundred. */
    private static boolean odd(Random random) {
        return random.nextInt(25) == 0;
    }

    /** The columns' chains: each sparse column, one id or a list, to its OOV bucket. */
    private static final String CHAINS =
            """
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1..I4": ["decode", {"op": "fill_null", "value": 3}],
               "C1": ID, "C2": ID, "C3": ID, "C4": ID, "C5": ID, "C6": ID
             }}
            """
                    .replace(
                            "ID",
                            "[\"decode\", \"fill_missing\", \"hash64\","
                                    + " {\"op\": \"vocab\", \"oov_buckets\": 1048576}]");

    private static final String AVRO_SCHEMA =
            """
            {"type": "record", "name": "E", "namespace": "t", "fields": [
              {"name": "ts", "type": ["null", "long", "string"]},
              {"name": "label", "type": "boolean"},
              {"name": "f", "type": "float"},
              {"name": "d", "type": ["null", "double"]},
              {"name": "n", "type": "long"},
              {"name": "s", "type": ["null", "string", "int"]},
              {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]}},
              {"name": "ids", "type": {"type": "array", "items": ["null", "long", "string", "double"]}},
              {"name": "tags", "type": {"type": "map", "values": "string"}},
              {"name": "user", "type": ["null", {"type": "record", "name": "U", "fields": [
                {"name": "id", "type": "string"}, {"name": "age", "type": ["int", "string"]}]}]},
              {"name": "raw", "type": "bytes"},
              {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}}
            ]}
            """;

    @Test
    void avroDatumsOfEveryTypeAnswerAsJava() throws Exception {
        String spec =
                """
                {"name": "typed-avro", "version": 1,
                 "input": {"format": "avro", "dense": 4, "sparse": 6, "list_columns": ["C3"],
                   "timestamp": "ts", "schema": SCHEMA,
                   "fields": {"label": "label", "I1": "f", "I2": "d", "I3": "n", "I4": "user.age",
                              "C1": "s", "C2": "kind", "C3": "ids", "C4": "tags.x",
                              "C5": "user.id", "C6": "raw"}},
                """
                                .replace("SCHEMA", AVRO_SCHEMA)
                        + CHAINS;
        Schema schema = new Schema.Parser().parse(AVRO_SCHEMA);
        Random random = new Random(44);
        List<byte[]> datums = new ArrayList<>();
        GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
        for (int i = 0; i < 600; i++) {
            GenericRecord r = new GenericData.Record(schema);
            r.put("ts", odd(random) ? "soon" : (Object) (1_795_737_600_000L + i));
            r.put("label", random.nextBoolean());
            r.put("f", odd(random) ? random.nextInt(8) / 4f : (float) random.nextInt(100));
            r.put("d", random.nextInt(4) == 0 ? null : (double) random.nextInt(1 << 20));
            r.put("n", odd(random) ? random.nextLong() : random.nextInt(1000) - 500L);
            r.put(
                    "s",
                    odd(random)
                            ? (Object) random.nextInt()
                            : random.nextBoolean() ? "s" + i % 50 : null);
            r.put(
                    "kind",
                    new GenericData.EnumSymbol(
                            schema.getField("kind").schema(), "ABC".charAt(i % 3) + ""));
            List<Object> ids = new ArrayList<>();
            for (int k = random.nextInt(4); k > 0; k--) {
                int pick = random.nextInt(odd(random) ? 4 : 2);
                ids.add(
                        pick == 0
                                ? (Object) (long) random.nextInt(99)
                                : pick == 1 ? "i" + random.nextInt(20) : pick == 2 ? null : 1.5);
            }
            r.put("ids", ids);
            r.put(
                    "tags",
                    random.nextBoolean() ? java.util.Map.of("x", "t" + i % 7) : java.util.Map.of());
            if (random.nextInt(5) > 0) {
                GenericRecord u =
                        new GenericData.Record(schema.getField("user").schema().getTypes().get(1));
                u.put("id", "u" + random.nextInt(30));
                u.put("age", odd(random) ? (Object) ("x" + i) : (Object) (18 + i % 50));
                r.put("user", u);
            }
            r.put("raw", ByteBuffer.wrap(("r" + i % 9).getBytes(StandardCharsets.UTF_8)));
            r.put(
                    "fx",
                    new GenericData.Fixed(schema.getField("fx").schema(), new byte[] {1, 2, 3, 4}));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            writer.write(r, encoder);
            encoder.flush();
            datums.add(out.toByteArray());
        }
        datums.add(50, java.util.Arrays.copyOf(datums.get(0), datums.get(0).length - 3));
        datums.add(100, new byte[] {0x04}); // ts: a union branch the schema lacks
        sameAnswers(spec, datums);
    }

    @Test
    void protobufMessagesOfEveryTypeAnswerAsJava() throws Exception {
        Path desc = tmp.resolve("typed.desc");
        Files.write(desc, descriptorSet());
        String spec =
                """
                {"name": "typed-protobuf", "version": 1,
                 "input": {"format": "protobuf", "dense": 4, "sparse": 6, "list_columns": ["C3", "C6"],
                   "timestamp": "ts", "descriptor": "DESC", "message": "t.M",
                   "fields": {"label": "ok", "I1": "f", "I2": "z", "I3": "fx", "I4": "sub.age",
                              "C1": "s", "C2": "kind", "C3": "ids", "C4": "big",
                              "C5": "sub.id", "C6": "names"}},
                """
                                .replace("DESC", desc.toString())
                        + CHAINS;
        Random random = new Random(45);
        List<byte[]> messages = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            Wire out = new Wire();
            out.int64(1, 1_795_737_600_000L + i); // ts
            out.int64(2, random.nextBoolean() ? 1 : 0); // ok
            out.float32(3, odd(random) ? random.nextInt(8) / 4f : random.nextInt(100)); // f
            out.sint64(4, odd(random) ? random.nextLong() : random.nextInt(200) - 100); // z
            out.fixed32(5, random.nextInt(2000) - 1000); // fx
            if (random.nextBoolean()) {
                out.string(6, "s" + i % 40); // s
            }
            out.int64(7, odd(random) ? 9 : i % 3); // kind: 9 is no value of the enum
            if (random.nextBoolean()) { // ids, packed
                Wire packed = new Wire();
                for (int k = random.nextInt(4); k >= 0; k--) {
                    packed.varint(random.nextInt(50) - (odd(random) ? 25 : 0));
                }
                out.bytes(8, packed.bytes());
            } else {
                for (int k = random.nextInt(3); k > 0; k--) {
                    out.int64(8, random.nextInt(50));
                }
            }
            out.int64(9, odd(random) ? -1L : random.nextInt(1 << 30)); // big
            Wire sub = new Wire();
            sub.string(1, "u" + random.nextInt(30));
            sub.int64(2, odd(random) ? -7 : 20 + i % 40);
            out.bytes(10, sub.bytes()); // sub
            for (int k = random.nextInt(3); k > 0; k--) {
                out.string(11, odd(random) && k == 1 ? "" : "n" + random.nextInt(10)); // names
            }
            if (odd(random)) {
                out.double64(3, 1.0); // f again, with the wire type of a double
            }
            messages.add(out.bytes());
        }
        messages.add(60, new byte[] {0x0a, 0x01}); // a length where ts, a varint, belongs
        sameAnswers(spec, messages);
    }

    /**
     * Protobuf's wire format written by hand (the job module has no protobuf-java of its own): the
     * test's messages and the descriptor set they are read by.
     */
    private static final class Wire {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Wire varint(long v) {
            while ((v & ~0x7fL) != 0) {
                out.write((int) ((v & 0x7f) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
            return this;
        }

        Wire tag(int field, int wire) {
            return varint((long) field << 3 | wire);
        }

        Wire int64(int field, long v) {
            return tag(field, 0).varint(v);
        }

        Wire sint64(int field, long v) {
            return tag(field, 0).varint((v << 1) ^ (v >> 63));
        }

        Wire fixed32(int field, int v) {
            tag(field, 5);
            for (int i = 0; i < 4; i++) {
                out.write(v >>> (8 * i));
            }
            return this;
        }

        Wire float32(int field, float v) {
            return fixed32(field, Float.floatToIntBits(v));
        }

        Wire double64(int field, double v) {
            tag(field, 1);
            long bits = Double.doubleToLongBits(v);
            for (int i = 0; i < 8; i++) {
                out.write((int) (bits >>> (8 * i)));
            }
            return this;
        }

        Wire bytes(int field, byte[] b) {
            tag(field, 2).varint(b.length);
            out.writeBytes(b);
            return this;
        }

        Wire string(int field, String s) {
            return bytes(field, s.getBytes(StandardCharsets.UTF_8));
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }

    /** A FieldDescriptorProto: name, number, label (1 optional, 3 repeated), type, type name. */
    private static byte[] field(String name, int number, int type, boolean repeated, String of) {
        Wire f = new Wire().string(1, name).int64(3, number).int64(4, repeated ? 3 : 1);
        f.int64(5, type);
        if (of != null) {
            f.string(6, of);
        }
        return f.bytes();
    }

    /** t.M and its t.Sub (descriptor.proto's field numbers), the message the spec above reads. */
    private static byte[] descriptorSet() {
        Wire sub = new Wire().string(1, "Sub");
        sub.bytes(2, field("id", 1, 9, false, null)).bytes(2, field("age", 2, 5, false, null));
        Wire m = new Wire().string(1, "M");
        m.bytes(2, field("ts", 1, 3, false, null))
                .bytes(2, field("ok", 2, 8, false, null))
                .bytes(2, field("f", 3, 2, false, null))
                .bytes(2, field("z", 4, 18, false, null))
                .bytes(2, field("fx", 5, 15, false, null))
                .bytes(2, field("s", 6, 9, false, null))
                .bytes(2, field("kind", 7, 14, false, ".t.Kind"))
                .bytes(2, field("ids", 8, 3, true, null))
                .bytes(2, field("big", 9, 4, false, null))
                .bytes(2, field("sub", 10, 11, false, ".t.Sub"))
                .bytes(2, field("names", 11, 9, true, null));
        Wire kind = new Wire().string(1, "Kind");
        for (int v = 0; v < 3; v++) {
            kind.bytes(2, new Wire().string(1, "ABC".substring(v, v + 1)).int64(2, v).bytes());
        }
        Wire file = new Wire().string(1, "t/m.proto").string(2, "t");
        file.bytes(4, sub.bytes()).bytes(4, m.bytes()).bytes(5, kind.bytes()).string(12, "proto2");
        return new Wire().bytes(1, file.bytes()).bytes();
    }

    /** The Java transform's result and the Python library's answer for the same records. */
    private void sameAnswers(String spec, List<byte[]> records) throws Exception {
        DecodeOptions options =
                SpecCompiler.decodeOptions(
                        SpecParser.parse(spec.getBytes(StandardCharsets.UTF_8), "test"), 1024);
        int sparse = options.program().layout().sparse();
        List<VocabularySnapshot.Column> columns = new ArrayList<>();
        for (int c = 0; c < sparse; c++) {
            columns.add(new VocabularySnapshot.Column("C" + (c + 1), 0, 1 << 20, -1));
        }
        VocabularySnapshot empty =
                VocabularySnapshot.of(
                        "t/1", "test", columns, new int[sparse][0], new long[sparse][0]);
        Transform.Result java = new Transform(options, empty).apply(records);
        Path snapshot = tmp.resolve("empty.snapshot");
        empty.write(snapshot);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] r : records) { // each a 4-byte big-endian length, then the record
            body.writeBytes(ByteBuffer.allocate(4).putInt(r.length).array());
            body.writeBytes(r);
        }
        Path request = Files.write(tmp.resolve("request.bin"), body.toByteArray());
        Path specFile = Files.writeString(tmp.resolve("spec.json"), spec);
        Path answer = tmp.resolve("answer.json");
        PythonServing.transform(
                tmp.resolve("python.log"),
                answer,
                "--spec",
                "" + specFile,
                "--snapshot",
                "" + snapshot,
                "--request",
                "" + request);
        compare(java, new ObjectMapper().readTree(answer.toFile()), options);
    }

    private static void compare(Transform.Result served, JsonNode python, DecodeOptions options) {
        AssembledBlock b = served.block();
        DeadLetter[] dead = b.deadLetters();
        JsonNode pythonDead = python.get("dead_letters");
        assertThat(pythonDead.size()).as("dead letters").isEqualTo(dead.length);
        assertThat(dead.length).isBetween(20, b.lines() / 2);
        for (int i = 0; i < dead.length; i++) {
            JsonNode d = pythonDead.get(i);
            String which = "dead letter " + i + ": " + dead[i].reason() + " " + dead[i].detail();
            assertThat(d.get("record").asInt()).as(which).isEqualTo(dead[i].lineInBlock());
            assertThat(d.get("reason").asText()).as(which).isEqualTo(dead[i].reason());
            if (!dead[i].reason().startsWith("invalid_")) {
                assertThat(d.get("detail").asText()).as(which).isEqualTo(dead[i].detail());
            }
        }
        JsonNode columns = python.get("columns");
        java.util.Set<String> floats = new java.util.HashSet<>(options.program().float32Columns());
        JsonNode rows = python.get("rows");
        assertThat(rows.size()).isEqualTo(b.rows());
        ByteBuffer want = ByteBuffer.wrap(b.rowBytes()).order(ByteOrder.LITTLE_ENDIAN);
        for (int r = 0; r < b.rows(); r++) {
            for (int j = 0; j < columns.size(); j++) {
                JsonNode v = rows.get(r).get(j);
                int bits =
                        floats.contains(columns.get(j).asText())
                                ? Float.floatToRawIntBits((float) v.asDouble())
                                : v.asInt();
                assertThat(bits)
                        .as("row %d %s", r, columns.get(j))
                        .isEqualTo(want.getInt(4 * (r * columns.size() + j)));
            }
        }
        for (int l = 0; l < b.listOffsets().length; l++) {
            String name = python.get("lists").fieldNames().next();
            List<List<Integer>> javaLists = new ArrayList<>();
            int[] o = b.listOffsets()[l];
            for (int r = 0; r < b.rows(); r++) {
                List<Integer> row = new ArrayList<>();
                for (int i = o[r]; i < o[r + 1]; i++) {
                    row.add(b.listIndices()[l][i]);
                }
                javaLists.add(row);
            }
            List<List<Integer>> pythonLists = new ArrayList<>();
            int k = 0;
            for (var it = python.get("lists").elements(); it.hasNext(); k++) {
                JsonNode list = it.next();
                if (k != l) {
                    continue;
                }
                for (JsonNode row : list) {
                    List<Integer> ids = new ArrayList<>();
                    row.forEach(i -> ids.add(i.asInt()));
                    pythonLists.add(ids);
                }
            }
            assertThat(pythonLists).as("list %d (%s...)", l, name).isEqualTo(javaLists);
        }
        List<Long> times = new ArrayList<>();
        python.get("event_times").forEach(t -> times.add(t.asLong()));
        assertThat(times)
                .containsExactly(
                        java.util.Arrays.stream(b.eventTimes()).boxed().toArray(Long[]::new));
        for (int c = 0; c < served.unknown().length; c++) {
            JsonNode n = python.get("unknown_keys").get("C" + (c + 1));
            assertThat(n == null ? 0 : n.asLong())
                    .as("unknown C%d", c + 1)
                    .isEqualTo(served.unknown()[c]);
        }
    }
}
