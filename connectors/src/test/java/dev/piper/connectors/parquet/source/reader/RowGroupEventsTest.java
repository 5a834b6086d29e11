package dev.piper.connectors.parquet.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.connectors.parquet.ParquetEvents;
import dev.piper.connectors.parquet.ParquetFiles;
import dev.piper.core.block.BlockNames;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.decode.BlockDecoder;
import dev.piper.core.decode.ColumnarDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.core.decode.TypedEvents;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Parquet file of click events (nested groups, string ids, a LIST of strings, booleans, doubles,
 * a TIMESTAMP) read under a spec of named fields decodes to the rows the same events make as JSON
 * lines ({@code JsonEventDecoder}, the reference): label and dense values, keys and list offsets,
 * event times, the original strings, and the same dead letters with the same details in the same
 * places; written with data pages v1 and v2, dictionary or plain, in small row groups and pages so
 * that blocks cross them. A column the file cannot hold at all is refused before anything is read.
 */
class RowGroupEventsTest {

    @TempDir Path dir;

    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType(
                    """
                    message event {
                      required int64 ts (TIMESTAMP(MILLIS,true));
                      optional boolean clicked;
                      optional group user {
                        optional binary id (STRING);
                        optional binary country (STRING);
                        optional int32 age;
                      }
                      optional int64 item_id;
                      optional double price;
                      optional group recent_items (LIST) {
                        repeated group list {
                          optional binary element (STRING);
                        }
                      }
                      optional binary note (STRING);
                    }""");

    private static final String SPEC =
            """
            {"name": "t", "version": 1,
             "input": {"format": "json", "dense": 2, "sparse": 4, "list_columns": ["C4"],
               "timestamp": "ts",
               "fields": {"label": "clicked", "I1": "price", "I2": "user.age", "C1": "user.id",
                 "C2": "user.country", "C3": "item_id", "C4": "recent_items"}},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1..I2": ["decode", "fill_missing", "neg2zero", "log"],
               "C1..C2": ["decode", "fill_missing", "hash64", "vocab"],
               "C3": ["decode", "fill_missing", "hash64", {"op": "modulus", "m": 1000}, "vocab"],
               "C4": ["decode", "fill_missing", "hash64", "vocab"]
             }}""";

    private static DecodeOptions options(String spec) throws Exception {
        PipelineSpec parsed = SpecParser.parse(spec.getBytes(StandardCharsets.UTF_8), "test");
        return SpecCompiler.decodeOptions(parsed, 256);
    }

    /** One event; null where a field is absent. */
    record Event(
            long ts,
            Boolean clicked,
            boolean hasUser,
            String userId,
            String country,
            Integer age,
            Long item,
            Double price,
            List<String> recent) {}

    private static List<Event> events(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Event> out = new ArrayList<>(n);
        long ts = 1_764_230_400_000L;
        for (int i = 0; i < n; i++) {
            ts += r.nextInt(0, 2000);
            boolean hasUser = r.nextInt(30) != 0;
            List<String> recent = null;
            int lists = r.nextInt(20);
            if (lists > 0) {
                recent = new ArrayList<>();
                int k = lists < 3 ? 0 : r.nextInt(1, 5);
                for (int j = 0; j < k; j++) {
                    recent.add(r.nextInt(150) == 0 ? null : "i_" + r.nextInt(300));
                }
            }
            Double price = r.nextInt(10) == 0 ? null : (double) r.nextInt(0, 5000);
            if (r.nextInt(120) == 0) {
                price = 12.5; // not a whole number: a dead letter
            }
            out.add(
                    new Event(
                            ts,
                            r.nextInt(15) == 0 ? null : r.nextBoolean(),
                            hasUser,
                            r.nextInt(20) == 0 ? null : "u_" + Integer.toHexString(r.nextInt(500)),
                            r.nextInt(8) == 0
                                    ? null
                                    : new String[] {"DE", "FR", "", "ÉS"}[r.nextInt(4)],
                            r.nextInt(6) == 0 ? null : r.nextInt(-5, 90),
                            r.nextInt(12) == 0 ? null : r.nextLong(),
                            price,
                            recent));
        }
        return out;
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }

    /** The event as a JSON line, absent fields left out. */
    private static String json(Event e) {
        List<String> f = new ArrayList<>();
        f.add("\"ts\": " + e.ts());
        if (e.clicked() != null) {
            f.add("\"clicked\": " + e.clicked());
        }
        if (e.hasUser()) {
            List<String> u = new ArrayList<>();
            if (e.userId() != null) {
                u.add("\"id\": " + quote(e.userId()));
            }
            if (e.country() != null) {
                u.add("\"country\": " + quote(e.country()));
            }
            if (e.age() != null) {
                u.add("\"age\": " + e.age());
            }
            f.add("\"user\": {" + String.join(", ", u) + "}");
        }
        if (e.item() != null) {
            f.add("\"item_id\": " + Long.toUnsignedString(e.item()));
        }
        if (e.price() != null) {
            f.add("\"price\": " + e.price());
        }
        if (e.recent() != null) {
            f.add(
                    "\"recent_items\": ["
                            + String.join(
                                    ", ",
                                    e.recent().stream()
                                            .map(x -> x == null ? "null" : quote(x))
                                            .toList())
                            + "]");
        }
        f.add("\"note\": \"not read\"");
        return "{" + String.join(", ", f) + "}";
    }

    private Path write(List<Event> events, WriterVersion version, boolean dictionary)
            throws IOException {
        Path file = java.nio.file.Files.createTempFile(dir, version + "-" + dictionary, ".parquet");
        java.nio.file.Files.delete(file);
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> out =
                ParquetBlocks.writer(file, SCHEMA, version, dictionary, 2048, 150, 16 * 1024L)) {
            for (Event e : events) {
                Group g = groups.newGroup();
                g.add("ts", e.ts());
                if (e.clicked() != null) {
                    g.add("clicked", e.clicked());
                }
                if (e.hasUser()) {
                    Group u = g.addGroup("user");
                    if (e.userId() != null) {
                        u.add("id", e.userId());
                    }
                    if (e.country() != null) {
                        u.add("country", e.country());
                    }
                    if (e.age() != null) {
                        u.add("age", e.age());
                    }
                }
                if (e.item() != null) {
                    g.add("item_id", e.item());
                }
                if (e.price() != null) {
                    g.add("price", e.price());
                }
                if (e.recent() != null) {
                    Group list = g.addGroup("recent_items");
                    for (String item : e.recent()) {
                        Group element = list.addGroup("list");
                        if (item != null) {
                            element.add("element", item);
                        }
                    }
                }
                g.add("note", "not read");
                out.write(g);
            }
        }
        return file;
    }

    /** Every block (of at most 500 rows) of every row group, as the source's reader reads them. */
    private static List<ColumnBlock> read(Path file, DecodeOptions options) throws IOException {
        List<ColumnBlock> blocks = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFiles.open(new LocalInputFile(file))) {
            ParquetEvents binding =
                    ParquetEvents.bind(
                            reader.getFooter().getFileMetaData().getSchema(),
                            options.events(),
                            file.toString());
            assertThat(binding.absent()).isEmpty();
            assertThat(binding.projection().containsField("note")).isFalse();
            reader.setRequestedSchema(binding.projection());
            TypedEvents events = new TypedEvents(options);
            assertThat(reader.getRowGroups()).as("several row groups").hasSizeGreaterThan(2);
            long first = 0;
            for (int g = 0; g < reader.getRowGroups().size(); g++) {
                RowGroupEvents group =
                        new RowGroupEvents(
                                reader, binding, events, options.program().layout(), g, first);
                first += reader.getRowGroups().get(g).getRowCount();
                ColumnBlock b;
                while ((b = group.next(0, blocks.size(), 500)) != null) {
                    blocks.add(b);
                }
            }
        }
        return blocks;
    }

    @Test
    void parquetEventsDecodeToTheRowsOfTheSameEventsAsJson() throws Exception {
        DecodeOptions options = options(SPEC);
        List<Event> events = events(4000, 20261128);
        byte[] lines =
                (String.join("\n", events.stream().map(RowGroupEventsTest::json).toList()) + "\n")
                        .getBytes(StandardCharsets.UTF_8);
        CriteoDecoder.Decoded expected =
                BlockDecoder.of(options, false)
                        .decode(new RawChunk(0, 0, lines, lines.length, -1), false);
        assertThat(expected.dense().deadLetters().length).as("bad events").isBetween(20, 200);
        for (WriterVersion version : WriterVersion.values()) {
            for (boolean dictionary : new boolean[] {false, true}) {
                String what = version + (dictionary ? " dictionary" : " plain");
                List<ColumnBlock> blocks = read(write(events, version, dictionary), options);
                assertSameAsJson(what, expected, blocks, options);
            }
        }
        // one element of the list, by its index, as a column of one id
        DecodeOptions element =
                options(
                        SPEC.replace("\"list_columns\": [\"C4\"],", "")
                                .replace("\"recent_items\"}", "\"recent_items[1]\"}"));
        CriteoDecoder.Decoded second =
                BlockDecoder.of(element, false)
                        .decode(new RawChunk(0, 0, lines, lines.length, -1), false);
        assertSameAsJson(
                "recent_items[1]",
                second,
                read(write(events, WriterVersion.PARQUET_2_0, true), element),
                element);
    }

    private static void assertSameAsJson(
            String what,
            CriteoDecoder.Decoded expected,
            List<ColumnBlock> blocks,
            DecodeOptions options) {
        int width = options.program().layout().labelDenseWidth();
        int sparse = options.program().layout().sparse();
        int rows = 0;
        int lines = 0;
        long[] times = new long[0];
        int[] labelDense = new int[0];
        List<List<Long>> keys = new ArrayList<>();
        List<List<Integer>> lengths = new ArrayList<>();
        List<Map<Long, String>> names = new ArrayList<>();
        for (int c = 0; c < sparse; c++) {
            keys.add(new ArrayList<>());
            lengths.add(new ArrayList<>());
            names.add(new TreeMap<>());
        }
        List<String> dead = new ArrayList<>();
        for (ColumnBlock b : blocks) {
            assertThat(b.firstRow()).as(what).isEqualTo(lines);
            CriteoDecoder.Decoded d = ColumnarDecoder.decoded(options.program(), b);
            for (DeadLetter x : d.dense().deadLetters()) {
                dead.add((lines + x.lineInBlock()) + " " + x.reason() + " " + x.detail());
            }
            labelDense =
                    concat(labelDense, Arrays.copyOf(d.dense().labelDense(), b.rows() * width));
            times = concat(times, d.dense().eventTimes());
            for (int c = 0; c < sparse; c++) {
                KeyChunk k = d.keys()[c];
                for (int i = 0; i < k.size(); i++) {
                    keys.get(c).add(k.keys()[i]);
                }
                if (k.offsets() != null) {
                    for (int r = 0; r < b.rows(); r++) {
                        lengths.get(c).add(k.offsets()[r + 1] - k.offsets()[r]);
                    }
                }
            }
            collect(d.dense().names(), names);
            rows += b.rows();
            lines += b.lines();
        }
        assertThat(lines).as(what).isEqualTo(expected.dense().lines());
        assertThat(rows).as(what).isEqualTo(expected.dense().rows());
        assertThat(dead)
                .as(what + " dead letters")
                .containsExactlyElementsOf(
                        Arrays.stream(expected.dense().deadLetters())
                                .map(x -> x.lineInBlock() + " " + x.reason() + " " + x.detail())
                                .toList());
        assertThat(labelDense)
                .as(what + " label and dense")
                .isEqualTo(Arrays.copyOf(expected.dense().labelDense(), rows * width));
        assertThat(times).as(what + " event times").isEqualTo(expected.dense().eventTimes());
        List<Map<Long, String>> expectedNames = new ArrayList<>();
        for (int c = 0; c < sparse; c++) {
            expectedNames.add(new TreeMap<>());
        }
        collect(expected.dense().names(), expectedNames);
        for (int c = 0; c < sparse; c++) {
            KeyChunk e = expected.keys()[c];
            assertThat(keys.get(c))
                    .as("%s C%d", what, c + 1)
                    .containsExactlyElementsOf(
                            Arrays.stream(Arrays.copyOf(e.keys(), e.size())).boxed().toList());
            if (e.offsets() != null) {
                List<Integer> l = new ArrayList<>();
                for (int r = 0; r < rows; r++) {
                    l.add(e.offsets()[r + 1] - e.offsets()[r]);
                }
                assertThat(lengths.get(c)).as("%s C%d lengths", what, c + 1).isEqualTo(l);
            }
            assertThat(names.get(c))
                    .as("%s C%d strings", what, c + 1)
                    .isEqualTo(expectedNames.get(c));
            assertThat(names.get(c).isEmpty()).as("C%d hashes no strings", c + 1).isEqualTo(c == 2);
        }
    }

    private static void collect(BlockNames names, List<Map<Long, String>> into) {
        if (names == null) {
            return;
        }
        for (int c = 0; c < into.size(); c++) {
            int at = 0;
            for (int i = 0; names.keys()[c] != null && i < names.keys()[c].length; i++) {
                int n = names.lengths()[c][i];
                if (n >= 0) { // -1: the fill id, no string
                    into.get(c)
                            .putIfAbsent(
                                    names.keys()[c][i],
                                    new String(names.text()[c], at, n, StandardCharsets.UTF_8));
                    at += n;
                }
            }
        }
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void aColumnTheFileCannotHoldIsRefusedNamingItsPathAndType() throws Exception {
        MessageType schema = SCHEMA;
        String[][] cases = {
            {
                "\"C1\": \"user.id\"",
                "\"C1\": \"price\"",
                "C1 (price): \"price\" is optional"
                        + " double price; DOUBLE where an integer or a string id belongs"
            },
            {
                "\"C1\": \"user.id\"",
                "\"C1\": \"clicked\"",
                "C1 (clicked): \"clicked\" is"
                        + " optional boolean clicked; BOOLEAN where an integer or a string id belongs"
            },
            {
                "\"C3\": \"item_id\"",
                "\"C3\": \"recent_items\"",
                "C3 (recent_items): \"recent_items\""
                        + " is a LIST, but the column holds one value (name it in input.list_columns,"
                        + " or read one element: recent_items[0])"
            },
            {
                "\"C4\": \"recent_items\"",
                "\"C4\": \"user.id\"",
                "C4 (user.id): \"user.id\" is"
                        + " BINARY, but the column is a list (a LIST or repeated column expected)"
            },
            {
                "\"C1\": \"user.id\"",
                "\"C1\": \"note.x\"",
                "C1 (note.x): \"note\" is BINARY" + " in the file, not a group with a field \"x\""
            },
            {
                "\"timestamp\": \"ts\"",
                "\"timestamp\": \"ts\", \"timestamp_unit\": \"s\"",
                "the event time (ts): \"ts\" is required int64 ts (TIMESTAMP(MILLIS,true)); its"
                        + " values count ms, but input.timestamp_unit is s (set \"timestamp_unit\":"
                        + " \"ms\")"
            },
        };
        for (String[] c : cases) {
            DecodeOptions o = options(SPEC.replace(c[0], c[1]));
            assertThatThrownBy(() -> ParquetEvents.bind(schema, o.events(), "f.parquet"))
                    .as(c[1])
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("f.parquet: " + c[2]);
        }
        // a path the file lacks reads missing values, and is listed for a note
        DecodeOptions o = options(SPEC.replace("\"user.age\"", "\"user.birth_year\""));
        assertThat(ParquetEvents.bind(schema, o.events(), "f.parquet").absent())
                .containsExactly("I2 (user.birth_year)");
    }
}
