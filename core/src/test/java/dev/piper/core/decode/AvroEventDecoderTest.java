package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.core.block.RecordFrames;
import dev.piper.pipeline.generate.CriteoAvro;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.input.AvroOptions;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/**
 * Avro datums decode to the rows the same events make as JSON ({@link JsonEventDecoder}, the
 * reference): Criteo lines written as records, and seeded e-commerce events with nested records,
 * unions, enums, lists and fields nobody reads; in container blocks and as Kafka records, bare or
 * in Confluent's wire format through a registry; a new writer schema keeps decoding; and every
 * datum that breaks its schema is a dead letter with its reason, the counts adding up.
 */
class AvroEventDecoderTest {

    private static final String CRITEO_CHAINS =
            """
            "columns": {
              "label": ["decode", "fill_missing"],
              "I1..I13": ["decode", "fill_missing", "neg2zero", "log"],
              "C1..C26": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 100000}, "vocab"]
            }""";

    private static DecodeOptions options(String spec) throws Exception {
        PipelineSpec parsed = SpecParser.parse(spec.getBytes(StandardCharsets.UTF_8), "test");
        return SpecCompiler.decodeOptions(parsed, 256);
    }

    /** The options of {@code spec} reading datums of {@code schema} (a container file's). */
    private static DecodeOptions withSchema(DecodeOptions o, Schema schema) {
        return o.withEvents(
                o.events().withAvro(AvroOptions.CONTAINER.withSchema(schema.toString())));
    }

    private static byte[] datum(Schema schema, GenericRecord r) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(schema).write(r, e);
            e.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** One frame holding every datum, as a container block travels. */
    private static RawChunk block(List<byte[]> datums) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        datums.forEach(all::writeBytes);
        byte[] payload = all.toByteArray();
        byte[] chunk = new byte[RecordFrames.HEADER + payload.length];
        RecordFrames.write(chunk, 0, payload, 0, payload.length, datums.size());
        return new RawChunk(0, 0, chunk, chunk.length, -1);
    }

    private static CriteoDecoder.Decoded json(DecodeOptions options, List<String> events) {
        byte[] b = (String.join("\n", events) + "\n").getBytes(StandardCharsets.UTF_8);
        return new JsonEventDecoder(options, false, false)
                .decode(new RawChunk(0, 0, b, b.length, -1), false);
    }

    @Test
    void criteoLinesAsRecordsDecodeToTheTextsRows() throws Exception {
        // ids as their hex text, and as longs where they are valid hex (typed ids)
        for (boolean longIds : new boolean[] {false, true}) {
            criteoLinesAsRecords(new CriteoAvro(RowLayout.CRITEO, longIds));
        }
    }

    private void criteoLinesAsRecords(CriteoAvro avro) throws Exception {
        ByteArrayOutputStream tsv = new ByteArrayOutputStream();
        new CriteoGenerator(20261128, 0.001, 0.02).write(tsv, 3000);
        String text = tsv.toString(StandardCharsets.UTF_8);
        StringBuilder kept = new StringBuilder();
        List<byte[]> datums = new ArrayList<>();
        for (String line : text.split("\n")) {
            GenericRecord r = avro.toRecord(line);
            // a line of another field count has no record, and a record has no length limit
            if (r != null && line.length() <= 1000) {
                kept.append(line).append('\n');
                datums.add(datum(avro.schema(), r));
            }
        }
        assertThat(datums).hasSizeGreaterThan(2900);
        byte[] t = kept.toString().getBytes(StandardCharsets.UTF_8);
        CriteoDecoder.Decoded expected =
                new CriteoDecoder(
                                options(
                                        "{\"name\": \"t\", \"version\": 1, \"input\": {\"format\":"
                                                + " \"criteo-tsv\"},"
                                                + CRITEO_CHAINS
                                                + "}"),
                                false)
                        .decode(new RawChunk(0, 0, t, t.length, -1), false);
        DecodeOptions options =
                withSchema(
                        options(
                                "{\"name\": \"t\", \"version\": 1, \"input\": {\"format\":"
                                        + " \"avro\"},"
                                        + CRITEO_CHAINS
                                        + "}"),
                        avro.schema());
        for (RawChunk chunk : List.of(block(datums), DecodedBlocks.frames(datums))) {
            AvroEventDecoder decoder = new AvroEventDecoder(options, false);
            assertThat(decoder.readsStraight()).isTrue(); // a value of another kind: the walk
            CriteoDecoder.Decoded actual = decoder.decode(chunk, false);
            assertThat(actual.dense().lines()).isEqualTo(datums.size());
            DecodedBlocks.assertSameRows("avro", expected, actual);
            // the same lines rejected, for the same reasons
            assertThat(DecodedBlocks.reasons(actual))
                    .isEqualTo(DecodedBlocks.reasons(expected))
                    .isNotEmpty();
        }
    }

    // A schema whose datums are read straight into the columns (AvroFlat): every kind of value
    // it reads or skips, and values it leaves to the walk (text, a double, an enum, big numbers).
    private static final String FLAT_SCHEMA =
            """
            {"type": "record", "name": "Flat", "fields": [
              {"name": "ts", "type": "long"},
              {"name": "clicked", "type": "boolean"},
              {"name": "meta", "type": {"type": "record", "name": "Meta", "fields": [
                {"name": "source", "type": "string"},
                {"name": "price", "type": ["null", "int", "long", "string", "double"]}]}},
              {"name": "weight", "type": "float"},
              {"name": "hash", "type": {"type": "fixed", "name": "H3", "size": 3}},
              {"name": "tags", "type": {"type": "map", "values": "long"}},
              {"name": "seen", "type": ["null", {"type": "array", "items": "string"}]},
              {"name": "item", "type": ["null", "long", "string"]},
              {"name": "cat", "type": ["int", "null"]},
              {"name": "kind", "type": ["long", {"type": "enum", "name": "Kind",
                "symbols": ["a", "b"]}]},
              {"name": "count", "type": "long"}
            ]}""";

    private static final String FLAT_SPEC =
            """
            {"name": "flat", "version": 1,
             "input": {"format": "avro", "dense": 2, "sparse": 3,
               "fields": {"label": "clicked", "I1": "meta.price", "I2": "count",
                 "C1": "item", "C2": "cat", "C3": "kind"}},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1..I2": ["decode", {"op": "fill_null", "value": 7}],
               "C1..C3": ["decode", {"op": "fill_null", "value": 5}, "hex2int", "vocab"]
             }}""";

    /** Seeded datums of {@code schema} (FLAT_SCHEMA, or one without some fields). */
    private static List<byte[]> flatDatums(Schema schema, long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        Schema meta = new Schema.Parser().parse(FLAT_SCHEMA).getField("meta").schema();
        List<byte[]> datums = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            GenericRecord e = new GenericData.Record(schema);
            GenericRecord m = new GenericData.Record(meta);
            m.put("source", "s" + r.nextInt(1000));
            Object[] prices = {
                null, r.nextInt(-9, 900), (long) r.nextInt(), 5_000_000_000L, "42", "4x", 3.0, 2.5
            };
            m.put("price", prices[r.nextInt(10) < 6 ? r.nextInt(3) : r.nextInt(prices.length)]);
            Object[] items = {
                null,
                r.nextLong(),
                String.format("%08x", r.nextInt()),
                String.format("%016x", r.nextLong()),
                "abcde",
                "zz",
                "",
                "0123456789abcdef0"
            };
            put(e, "ts", 1764230400123L + i);
            put(e, "clicked", r.nextBoolean());
            put(e, "meta", m);
            put(e, "weight", (float) r.nextDouble());
            put(e, "hash", new GenericData.Fixed(schema.getField("hash").schema(), new byte[3]));
            put(e, "tags", Map.of("t" + r.nextInt(3), (long) r.nextInt()));
            put(e, "seen", r.nextBoolean() ? null : List.of("x", "yy"));
            put(e, "item", items[r.nextInt(10) < 6 ? r.nextInt(4) : r.nextInt(items.length)]);
            put(e, "cat", r.nextInt(4) == 0 ? null : r.nextInt());
            put(
                    e,
                    "kind",
                    r.nextInt(8) == 0
                            ? new GenericData.EnumSymbol(
                                    schema.getField("kind").schema().getTypes().get(1),
                                    r.nextBoolean() ? "a" : "b")
                            : (Object) (long) r.nextInt(100));
            put(e, "count", r.nextInt(8) == 0 ? 1L << 40 : (long) r.nextInt(-5, 1000));
            datums.add(datum(schema, e));
        }
        return datums;
    }

    private static void put(GenericRecord e, String field, Object value) {
        if (e.getSchema().getField(field) != null) {
            e.put(field, value);
        }
    }

    @Test
    void datumsReadStraightIntoTheColumnsMakeTheWalksRowsAndDeadLetters() throws Exception {
        Schema schema = new Schema.Parser().parse(FLAT_SCHEMA);
        List<byte[]> datums = flatDatums(schema, 20261129, 3000);
        List<byte[]> broken = new ArrayList<>(datums);
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < broken.size(); i += 1 + r.nextInt(40)) {
            byte[] d = broken.get(i);
            broken.set(
                    i,
                    r.nextBoolean()
                            ? Arrays.copyOf(d, r.nextInt(d.length)) // cut short
                            : Arrays.copyOf(d, d.length + 1)); // a byte after its end
        }
        // a container block's datums past one cut short cannot be found: one near its end
        List<byte[]> block = new ArrayList<>(datums);
        block.set(2990, Arrays.copyOf(block.get(2990), 4));
        DecodeOptions options = withSchema(options(FLAT_SPEC), schema);
        for (RawChunk chunk : List.of(block(block), DecodedBlocks.frames(broken))) {
            CriteoDecoder.Decoded walked =
                    new AvroEventDecoder(options, false, null, false).decode(chunk, false);
            AvroEventDecoder decoder = new AvroEventDecoder(options, false, null, true);
            assertThat(decoder.readsStraight()).isTrue();
            CriteoDecoder.Decoded straight = decoder.decode(chunk, false);
            assertSameBlock(walked, straight);
            assertThat(walked.dense().rows()).isGreaterThan(1000);
        }

        // registered: a record of the full schema broken after its last value, then one of a
        // schema without that field: its value is missing, not the broken record's
        Schema v2 =
                new Schema.Parser()
                        .parse(
                                FLAT_SCHEMA.replace(
                                        ",\n  {\"name\": \"count\", \"type\": \"long\"}", ""));
        assertThat(v2.getField("count")).isNull();
        List<byte[]> v1s = flatDatums(schema, 3, 500);
        List<byte[]> v2s = flatDatums(v2, 4, 500);
        List<byte[]> wire = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            byte[] one = wire(1, v1s.get(i));
            wire.add(i % 3 == 0 ? Arrays.copyOf(one, one.length + 1) : one);
            wire.add(wire(2, v2s.get(i)));
        }
        WriterSchemas registry =
                new WriterSchemas() {
                    @Override
                    public String schema(int id) {
                        return id == 1 ? schema.toString() : id == 2 ? v2.toString() : null;
                    }

                    @Override
                    public String describe() {
                        return "the test's schemas";
                    }
                };
        DecodeOptions registered =
                options(
                        FLAT_SPEC.replace(
                                "\"format\": \"avro\"",
                                "\"format\": \"avro\", \"schema_registry\": \"http://127.0.0.1:1\""));
        RawChunk chunk = DecodedBlocks.frames(wire);
        CriteoDecoder.Decoded walked =
                new AvroEventDecoder(registered, false, registry, false).decode(chunk, false);
        CriteoDecoder.Decoded straight =
                new AvroEventDecoder(registered, false, registry, true).decode(chunk, false);
        assertSameBlock(walked, straight);
        assertThat(DecodedBlocks.reasons(walked)).contains("0 invalid_avro");
    }

    @Test
    void aUnionBranchOrEnumSymbolTheSchemaLacksNamesTheFieldAndTheCount() throws Exception {
        Schema schema =
                new Schema.Parser()
                        .parse(
                                """
                                {"type": "record", "name": "R", "fields": [
                                  {"name": "l", "type": "int"},
                                  {"name": "d", "type": "int"},
                                  {"name": "u", "type": ["null", "long"]},
                                  {"name": "e", "type": {"type": "enum", "name": "E",
                                    "symbols": ["a"]}}]}""");
        String spec =
                """
                {"name": "t", "version": 1,
                 "input": {"format": "avro", "dense": 1, "sparse": 2,
                   "fields": {"label": "l", "I1": "d", "C1": "u", "C2": "e"}},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1": ["decode", "fill_missing"],
                   "C1..C2": ["decode", "fill_missing", "hex2int", "vocab"]
                 }}""";
        List<byte[]> datums =
                List.of(
                        new byte[] {2, 0, 2, 2, 0}, // l = 1, d = 0, u = 1, e = "a"
                        new byte[] {2, 0, 4}, // branch 2 of u's two
                        new byte[] {2, 0, 0, 4}); // symbol 2 of e's one
        for (boolean straight : new boolean[] {false, true}) {
            CriteoDecoder.Decoded d =
                    new AvroEventDecoder(withSchema(options(spec), schema), false, null, straight)
                            .decode(DecodedBlocks.frames(datums), false);
            assertThat(d.dense().rows()).isEqualTo(1);
            assertThat(d.dense().deadLetters())
                    .extracting(DeadLetter::reason, DeadLetter::detail)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(
                                    "invalid_avro", "\"u\" has union branch 2; its schema has 2"),
                            org.assertj.core.groups.Tuple.tuple(
                                    "invalid_avro", "\"e\" has enum symbol 2; its schema has 1"));
        }
    }

    /** The same rows, and the same dead letters (line, reason, detail, bytes). */
    private static void assertSameBlock(
            CriteoDecoder.Decoded expected, CriteoDecoder.Decoded actual) {
        DecodedBlocks.assertSameRows("straight", expected, actual);
        assertThat(actual.dense().lines()).isEqualTo(expected.dense().lines());
        assertThat(actual.dense().deadLetters())
                .usingRecursiveFieldByFieldElementComparator()
                .isEqualTo(expected.dense().deadLetters())
                .isNotEmpty();
    }

    // A click event as teams have them: nested, optional, listed and enumerated fields, and
    // fields no column reads (a map, bytes, a record array, a double) that the walk skips.
    private static final String EVENT_SCHEMA =
            """
            {"type": "record", "name": "Click", "namespace": "shop", "fields": [
              {"name": "ts", "type": "long"},
              {"name": "clicked", "type": "boolean"},
              {"name": "user", "type": {"type": "record", "name": "User", "fields": [
                {"name": "id", "type": "string"},
                {"name": "country", "type": ["null", "string"], "default": null},
                {"name": "tags", "type": {"type": "map", "values": "long"}}]}},
              {"name": "item_id", "type": "long"},
              {"name": "price", "type": ["null", "int", "double"], "default": null},
              {"name": "category", "type": {"type": "enum", "name": "Cat",
                "symbols": ["books", "games", "garden"]}},
              {"name": "blob", "type": "bytes"},
              {"name": "recent_items", "type": {"type": "array", "items": "string"}},
              {"name": "history", "type": {"type": "array", "items": {"type": "record",
                "name": "Seen", "fields": [{"name": "item", "type": "string"},
                {"name": "secs", "type": "float"}]}}},
              {"name": "score", "type": "double"}
            ]}""";

    private static final String EVENT_SPEC =
            """
            {"name": "clicks", "version": 1,
             "input": {"format": "%s", "dense": 2, "sparse": 6, "list_columns": ["C5"],
               "fields": {"label": "clicked", "I1": "price", "I2": "user.tags.x",
                 "C1": "user.id", "C2": "item_id", "C3": "user.country", "C4": "category",
                 "C5": "recent_items", "C6": "history[1].item"}},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1..I2": ["decode", "fill_missing", "neg2zero"],
               "C1": ["decode", "fill_missing", "hash64", "vocab"],
               "C2": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 1000}, "vocab"],
               "C3..C4": ["decode", "fill_missing", "hash64", "vocab"],
               "C5": ["decode", "fill_missing", "hash64", "vocab"],
               "C6": ["decode", "fill_missing", "hash64", "vocab"]
             }}""";

    /** Seeded click events, as records and as the JSON lines of the same values. */
    private static final class Clicks {
        final Schema schema = new Schema.Parser().parse(EVENT_SCHEMA);
        final List<byte[]> datums = new ArrayList<>();
        final List<String> json = new ArrayList<>();

        Clicks(long seed, int n) {
            SplittableRandom r = new SplittableRandom(seed);
            Schema user = schema.getField("user").schema();
            Schema seen = schema.getField("history").schema().getElementType();
            String[] cats = {"books", "games", "garden"};
            for (int i = 0; i < n; i++) {
                GenericRecord u = new GenericData.Record(user);
                String id = "u_" + Integer.toHexString(r.nextInt(5000));
                u.put("id", id);
                String country = r.nextInt(4) == 0 ? null : (r.nextBoolean() ? "DE" : "Ünïcode");
                u.put("country", country);
                u.put("tags", Map.of("x", (long) r.nextInt(9)));
                GenericRecord e = new GenericData.Record(schema);
                long ts = 1764230400123L + i;
                boolean clicked = r.nextInt(3) == 0;
                long item = r.nextLong() >> r.nextInt(64);
                int kind = r.nextInt(10);
                Object price =
                        kind == 0 ? null : kind == 1 ? (Object) 12.5 : (Object) r.nextInt(-50, 500);
                String cat = cats[r.nextInt(3)];
                List<String> recent = new ArrayList<>();
                for (int k = r.nextInt(4); k > 0; k--) {
                    recent.add("i_" + r.nextInt(100));
                }
                List<GenericRecord> history = new ArrayList<>();
                for (int k = r.nextInt(3); k > 0; k--) {
                    GenericRecord s = new GenericData.Record(seen);
                    s.put("item", "h" + r.nextInt(50));
                    s.put("secs", (float) r.nextDouble());
                    history.add(s);
                }
                e.put("ts", ts);
                e.put("clicked", clicked);
                e.put("user", u);
                e.put("item_id", item);
                e.put("price", price);
                e.put(
                        "category",
                        new GenericData.EnumSymbol(schema.getField("category").schema(), cat));
                e.put("blob", java.nio.ByteBuffer.wrap(new byte[r.nextInt(20)]));
                e.put("recent_items", recent);
                e.put("history", history);
                e.put("score", r.nextDouble());
                datums.add(datum(schema, e));
                StringBuilder j = new StringBuilder();
                j.append("{\"ts\": ").append(ts).append(", \"clicked\": ").append(clicked);
                j.append(", \"user\": {\"id\": \"").append(id).append('"');
                if (country != null) {
                    j.append(", \"country\": \"").append(country).append('"');
                }
                j.append(", \"tags\": {\"x\": ")
                        .append(u.get("tags") instanceof Map<?, ?> m ? m.get("x") : 0);
                j.append("}}, \"item_id\": ").append(item);
                if (price != null) {
                    j.append(", \"price\": ").append(price);
                }
                j.append(", \"category\": \"").append(cat).append('"');
                j.append(", \"recent_items\": [");
                for (int k = 0; k < recent.size(); k++) {
                    j.append(k > 0 ? ", " : "").append('"').append(recent.get(k)).append('"');
                }
                j.append("], \"history\": [");
                for (int k = 0; k < history.size(); k++) {
                    j.append(k > 0 ? ", " : "")
                            .append("{\"item\": \"")
                            .append(history.get(k).get("item"))
                            .append("\"}");
                }
                j.append("]}");
                json.add(j.toString());
            }
        }
    }

    @Test
    void nestedOptionalEnumMapAndListFieldsDecodeAsTheSameEventsInJson() throws Exception {
        Clicks clicks = new Clicks(42, 5000);
        CriteoDecoder.Decoded expected = json(options(EVENT_SPEC.formatted("json")), clicks.json);
        // a price of 12.5 is no int32: about a tenth are dense_not_int32, both ways
        assertThat(expected.dense().rows()).isBetween(4200, 4800);
        DecodeOptions avro = withSchema(options(EVENT_SPEC.formatted("avro")), clicks.schema);
        for (RawChunk chunk : List.of(block(clicks.datums), DecodedBlocks.frames(clicks.datums))) {
            CriteoDecoder.Decoded actual = new AvroEventDecoder(avro, false).decode(chunk, false);
            assertThat(actual.dense().lines()).isEqualTo(5000);
            DecodedBlocks.assertSameRows("avro events", expected, actual);
            assertThat(DecodedBlocks.reasons(actual)).isEqualTo(DecodedBlocks.reasons(expected));
        }
    }

    /**
     * An optional nested record, a union of null and the record, whose fields columns read: a null
     * is missing (the columns take their fills), as a JSON null; a string where the record belongs
     * is the event's wrong_type, naming the column and the path. (A null branch once failed the
     * decoder itself, naming no column.)
     */
    @Test
    void aNullOptionalRecordIsMissingAndAnotherTypeNamesTheColumn() throws Exception {
        Schema schema =
                new Schema.Parser()
                        .parse(
                                """
                                {"type": "record", "name": "E", "fields": [
                                  {"name": "clicked", "type": "boolean"},
                                  {"name": "user", "type": ["null", "string",
                                    {"type": "record", "name": "U", "fields": [
                                      {"name": "id", "type": "string"},
                                      {"name": "age", "type": "int"}]}]}]}""");
        DecodeOptions options =
                withSchema(
                        options(
                                """
                                {"name": "opt", "version": 1,
                                 "input": {"format": "avro", "dense": 1, "sparse": 1,
                                   "fields": {"label": "clicked", "I1": "user.age", "C1": "user.id"}},
                                 "columns": {
                                   "label": ["decode", "fill_missing"],
                                   "I1": ["decode", {"op": "fill_null", "value": 7}],
                                   "C1": ["decode", "fill_missing", "hash64", "vocab"]}}"""),
                        schema);
        GenericRecord user =
                new GenericData.Record(schema.getField("user").schema().getTypes().get(2));
        user.put("id", "u1");
        user.put("age", 30);
        List<byte[]> datums = new ArrayList<>();
        for (Object u : new Object[] {user, null, "nobody"}) {
            GenericRecord r = new GenericData.Record(schema);
            r.put("clicked", true);
            r.put("user", u);
            datums.add(datum(schema, r));
        }
        CriteoDecoder.Decoded d =
                new AvroEventDecoder(options, false).decode(DecodedBlocks.frames(datums), false);
        assertThat(d.dense().rows()).isEqualTo(2);
        assertThat(d.dense().labelDense()).startsWith(1, 30, 1, 7); // the null: I1's fill
        assertThat(d.dense().deadLetters()).hasSize(1);
        assertThat(d.dense().deadLetters()[0].reason()).isEqualTo("wrong_type");
        assertThat(d.dense().deadLetters()[0].detail())
                .isEqualTo("I1 (user.age): the event's \"user\" is of type string, not a record");
    }

    @Test
    void everyBrokenDatumIsADeadLetterWithItsReasonAndTheCountsAddUp() throws Exception {
        Clicks clicks = new Clicks(7, 40);
        DecodeOptions options = withSchema(options(EVENT_SPEC.formatted("avro")), clicks.schema);
        List<byte[]> records = new ArrayList<>(clicks.datums);
        byte[] truncated = Arrays.copyOf(records.get(3), records.get(3).length - 2);
        records.set(3, truncated);
        byte[] trailing = Arrays.copyOf(records.get(5), records.get(5).length + 3);
        records.set(5, trailing);
        byte[] badBranch = records.get(8).clone();
        records.set(8, badBranch);
        records.set(9, new byte[0]);
        CriteoDecoder.Decoded d =
                new AvroEventDecoder(options, false).decode(DecodedBlocks.frames(records), false);
        assertThat(d.dense().lines()).isEqualTo(40);
        assertThat(d.dense().rows() + d.dense().deadLetters().length).isEqualTo(40);
        Map<Integer, DeadLetter> byLine = new HashMap<>();
        for (DeadLetter x : d.dense().deadLetters()) {
            byLine.put(x.lineInBlock(), x);
        }
        assertThat(byLine.get(3).reason()).isEqualTo("invalid_avro");
        assertThat(byLine.get(3).detail()).contains("ends early");
        assertThat(byLine.get(5).reason()).isEqualTo("invalid_avro");
        assertThat(byLine.get(5).detail()).isEqualTo("3 bytes after the datum's end");
        assertThat(byLine.get(9).detail()).contains("ends early, reading \"ts\"");
        assertThat(byLine.get(3).raw()).isEqualTo(truncated);

        // in a container block, nothing after a datum that cannot be read can be found
        List<byte[]> block = new ArrayList<>(clicks.datums.subList(0, 10));
        byte[] endless = new byte[11];
        Arrays.fill(endless, (byte) 0xff); // a varint of more than 10 bytes
        block.set(3, endless);
        CriteoDecoder.Decoded b = new AvroEventDecoder(options, false).decode(block(block), false);
        assertThat(b.dense().lines()).isEqualTo(10);
        assertThat(b.dense().rows()).isEqualTo(3);
        DeadLetter[] dead = b.dense().deadLetters();
        assertThat(dead).hasSize(7);
        assertThat(dead[0].lineInBlock()).isEqualTo(3);
        assertThat(dead[0].detail()).isEqualTo("\"ts\" has a varint longer than 10 bytes");
        assertThat(dead[6].lineInBlock()).isEqualTo(9);
        assertThat(dead[6].reason()).isEqualTo("invalid_avro");
        assertThat(dead[6].detail())
                .isEqualTo(
                        "follows datum 4 of its container block, which could not be read (\"ts\""
                                + " has a varint longer than 10 bytes)");
        // a block that ends early: its last datum is cut
        List<byte[]> cut = new ArrayList<>(clicks.datums.subList(0, 10));
        cut.set(9, Arrays.copyOf(cut.get(9), cut.get(9).length - 3));
        CriteoDecoder.Decoded c = new AvroEventDecoder(options, false).decode(block(cut), false);
        assertThat(c.dense().rows() + c.dense().deadLetters().length).isEqualTo(10);
        assertThat(c.dense().deadLetters()[c.dense().deadLetters().length - 1].detail())
                .contains("ends early");
    }

    @Test
    void anArrayInAColumnOfOneValueIsAWrongTypeNamingColumnAndPath() throws Exception {
        Clicks clicks = new Clicks(9, 10);
        String spec = EVENT_SPEC.replace("\"I2\": \"user.tags.x\"", "\"I2\": \"recent_items\"");
        CriteoDecoder.Decoded d =
                new AvroEventDecoder(
                                withSchema(options(spec.formatted("avro")), clicks.schema), false)
                        .decode(block(clicks.datums), false);
        assertThat(d.dense().rows()).isZero();
        assertThat(d.dense().deadLetters())
                .hasSize(10)
                .filteredOn(x -> !x.detail().startsWith("I1 (price)")) // 12.5, before the list
                .hasSizeGreaterThan(5)
                .allSatisfy(
                        x -> {
                            assertThat(x.reason()).isEqualTo("wrong_type");
                            assertThat(x.detail())
                                    .isEqualTo(
                                            "I2 (recent_items): an array, but the column holds one"
                                                    + " value, not a list");
                        });
    }

    /** A schema registry on loopback that knows the schemas it was given, by id. */
    private static HttpServer registry(Map<Integer, String> schemas) throws IOException {
        HttpServer server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                "/schemas/ids/",
                exchange -> {
                    String path = exchange.getRequestURI().getPath();
                    String schema =
                            schemas.get(
                                    Integer.parseInt(path.substring(path.lastIndexOf('/') + 1)));
                    byte[] body =
                            (schema == null
                                            ? "{\"error_code\": 40403, \"message\": \"Schema not found\"}"
                                            : "{\"schema\": " + quote(schema) + "}")
                                    .getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(schema == null ? 404 : 200, body.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                });
        server.start();
        return server;
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    private static byte[] wire(int id, byte[] datum) {
        byte[] r = new byte[5 + datum.length];
        r[1] = (byte) (id >>> 24);
        r[2] = (byte) (id >>> 16);
        r[3] = (byte) (id >>> 8);
        r[4] = (byte) id;
        System.arraycopy(datum, 0, r, 5, datum.length);
        return r;
    }

    @Test
    void registeredRecordsDecodeByTheirSchemaIdAndANewWriterSchemaKeepsDecoding() throws Exception {
        Clicks clicks = new Clicks(11, 200);
        // version 2 adds an optional field in front: its datums differ, its rows must not
        Schema v2 =
                new Schema.Parser()
                        .parse(
                                EVENT_SCHEMA.replace(
                                        "\"fields\": [\n  {\"name\": \"ts\"",
                                        "\"fields\": [\n  {\"name\": \"session\", \"type\":"
                                                + " [\"null\", \"string\"], \"default\": null},\n"
                                                + "  {\"name\": \"ts\""));
        assertThat(v2.getField("session")).isNotNull();
        String spec = EVENT_SPEC;
        String avroSpec =
                spec.formatted("avro")
                        .replace(
                                "\"format\": \"avro\"",
                                "\"format\": \"avro\", \"schema_registry\": \"http://127.0.0.1:1\"");
        List<byte[]> wire = new ArrayList<>();
        for (int i = 0; i < clicks.datums.size(); i++) {
            if (i % 2 == 0) {
                wire.add(wire(1, clicks.datums.get(i)));
            } else {
                GenericRecord old =
                        new org.apache.avro.generic.GenericDatumReader<GenericRecord>(clicks.schema)
                                .read(
                                        null,
                                        org.apache.avro.io.DecoderFactory.get()
                                                .binaryDecoder(clicks.datums.get(i), null));
                GenericRecord r = new GenericData.Record(v2);
                for (Schema.Field f : clicks.schema.getFields()) {
                    r.put(f.name(), old.get(f.name()));
                }
                r.put("session", "s" + i);
                wire.add(wire(2, datum(v2, r)));
            }
        }
        wire.add(wire(99, clicks.datums.get(0))); // an id the registry does not know
        wire.add(new byte[] {1, 2, 3}); // no wire-format header
        HttpServer server = registry(Map.of(1, clicks.schema.toString(), 2, v2.toString()));
        try {
            WriterSchemas schemas =
                    new SchemaRegistryClient(
                            "http://127.0.0.1:" + server.getAddress().getPort(),
                            Duration.ofSeconds(5));
            CriteoDecoder.Decoded d =
                    new AvroEventDecoder(options(avroSpec), false, schemas, true)
                            .decode(DecodedBlocks.frames(wire), false);
            CriteoDecoder.Decoded expected = json(options(spec.formatted("json")), clicks.json);
            assertThat(d.dense().lines()).isEqualTo(202);
            DecodedBlocks.assertSameRows("registered", expected, d);
            DeadLetter[] dead = d.dense().deadLetters();
            assertThat(dead[dead.length - 2].reason()).isEqualTo("unknown_schema");
            assertThat(dead[dead.length - 2].detail())
                    .isEqualTo(
                            "schema id 99 is not known to the registry at http://127.0.0.1:"
                                    + server.getAddress().getPort());
            assertThat(dead[dead.length - 1].reason()).isEqualTo("invalid_avro");
            assertThat(dead[dead.length - 1].detail()).contains("wire-format header");
            assertThat(d.dense().rows() + dead.length).isEqualTo(202);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void anUnreachableRegistryFailsTheDecodingNamingItsAddress() throws Exception {
        HttpServer server = registry(Map.of());
        int port = server.getAddress().getPort();
        server.stop(0); // nothing listens there now
        SchemaRegistryClient client =
                new SchemaRegistryClient("http://127.0.0.1:" + port, Duration.ofMillis(300));
        assertThatThrownBy(() -> client.schema(1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(
                        "schema registry http://127.0.0.1:" + port + " did not answer");
    }
}
