package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.decode.BlockDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.feed.AvroDatums;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python transform library ({@code clients/python/piper_feed/transform/}) against the Java one,
 * as {@code piper serve --request} answers: for generated requests of good and bad records, under
 * specs of every operator, both answer the same rows (float32 slots bit for bit), lists, event
 * times, unknown keys and dead letters (record and reason; the detail too, but for {@code
 * invalid_json}, whose text is each language's JSON parser's). The snapshot holds every key of
 * other generated records of the same spec, so requests meet known and unknown keys alike.
 */
class PythonTransformITCase {

    private static final Path CLIENT = Path.of("..", "clients", "python").toAbsolutePath();
    private static final Path PRESETS =
            Path.of("..", "pipeline", "src", "main", "resources", "specs").toAbsolutePath();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path tmp;

    /** The operators and input formats of the specs whose answers were compared, so far. */
    private static final java.util.Set<String> COMPARED = new java.util.TreeSet<>();

    /** The test methods that ran. */
    private static final java.util.Set<String> RAN = new java.util.HashSet<>();

    @org.junit.jupiter.api.BeforeEach
    void note(org.junit.jupiter.api.TestInfo test) {
        RAN.add(test.getTestMethod().orElseThrow().getName());
    }

    /** Every operator and input format Java has, by name ("format " before a format's). */
    private static java.util.Set<String> javaNames() {
        java.util.Set<String> names = new java.util.TreeSet<>();
        dev.piper.pipeline.ops.OpDefinition.all().forEach(d -> names.add(d.name()));
        dev.piper.pipeline.input.InputFormat.names().forEach(f -> names.add("format " + f));
        return names;
    }

    /** Each input format with how a record of it holds its events, as the tie test prints them. */
    private static java.util.Set<String> javaFramings() {
        java.util.Set<String> framings = new java.util.TreeSet<>();
        for (dev.piper.pipeline.input.InputFormat f :
                dev.piper.pipeline.input.InputFormat.values()) {
            framings.add(
                    "framing "
                            + f.specName()
                            + " "
                            + f.records().name().toLowerCase(java.util.Locale.ROOT));
        }
        return framings;
    }

    /**
     * The Python library's operators and formats ({@code OPERATORS} of {@code
     * piper_feed.transform.spec} and {@code FORMATS} of {@code .readers}, gathered from its
     * modules, outside of which its spec reader refuses anything) are Java's: an operator or a
     * format added on one side only fails here, and so does a format whose records the two sides
     * cut differently ({@code InputFormat.records()} against {@code FORMATS}' value).
     */
    @Test
    void pythonHasEveryOperatorAndFormatJavaHasAndNoOther() throws Exception {
        Process p =
                new ProcessBuilder(
                                "/usr/bin/python3",
                                "-c",
                                "import json; from piper_feed.transform.spec import OPERATORS;"
                                        + " from piper_feed.transform.readers import FORMATS;"
                                        + " print(json.dumps(sorted(OPERATORS)"
                                        + " + ['format ' + f for f in FORMATS]"
                                        + " + ['framing ' + f + ' ' + r.records"
                                        + " for f, r in FORMATS.items()]))")
                        .directory(CLIENT.toFile())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        java.util.Set<String> python = new java.util.TreeSet<>();
        JSON.readTree(out).forEach(n -> python.add(n.asText()));
        java.util.Set<String> java = new java.util.TreeSet<>(javaNames());
        java.addAll(javaFramings());
        assertThat(python)
                .as("the Python library's operators, formats and the formats' record framing")
                .isEqualTo(java);
    }

    /**
     * Once every test has run: each operator and input format Java has was in a spec whose answers
     * the two languages gave alike (a new one needs its case here, and its Python twin).
     */
    @org.junit.jupiter.api.AfterAll
    static void everyOperatorAndFormatWasCompared() {
        long tests =
                java.util.Arrays.stream(PythonTransformITCase.class.getDeclaredMethods())
                        .filter(m -> m.isAnnotationPresent(Test.class))
                        .count();
        if (RAN.size() < tests) {
            return; // some of the tests were chosen to run
        }
        assertThat(COMPARED)
                .as("operators and formats compared with Python")
                .containsAll(javaNames());
    }

    /** Notes the operators and the input format of {@code specFile}'s columns. */
    private static void compared(Path specFile) throws IOException {
        JsonNode spec = JSON.readTree(specFile.toFile());
        COMPARED.add("format " + spec.path("input").path("format").asText("criteo-tsv"));
        spec.path("columns")
                .forEach(
                        chain ->
                                chain.forEach(
                                        step ->
                                                COMPARED.add(
                                                        step.isTextual()
                                                                ? step.asText()
                                                                : step.path("op").asText())));
    }

    /** Events the generator does not write: each rule of docs/SEMANTICS.md's JSON input. */
    private static final List<String> BAD_EVENTS =
            List.of(
                    "",
                    "   ",
                    "[1,2]",
                    "\"x\"",
                    "12 13",
                    "{\"clicked\": 1",
                    "{\"clicked\": 1} x",
                    "{\"clicked\": NaN}",
                    "{\"clicked\": true, \"ts\": 1764230400123, \"price_cents\": 1.5}",
                    "{\"clicked\": true, \"ts\": 1764230400123, \"user\": \"u\"}",
                    "{\"clicked\": true, \"ts\": 1764230400123, \"user\": {\"id\": true}}",
                    "{\"clicked\": 3000000000, \"ts\": 1764230400123}",
                    "{\"ts\": 1764230400123, \"recent_items\": \"a\"}",
                    "{\"ts\": 1764230400123, \"recent_items\": [null]}",
                    "{\"ts\": 1764230400123, \"recent_items\": [\"a\", \"\"]}",
                    "{\"ts\": 1764230400123, \"recent_items\": [1, 2, 18446744073709551615]}",
                    "{\"ts\": 1764230400123, \"recent_items\": []}",
                    "{\"ts\": 1764230400123, \"item_id\": 123456789012345678901234}",
                    "{\"ts\": 1764230400123, \"item_id\": -5, \"price_cents\": -3}",
                    "{\"ts\": 1764230400123, \"category\": {\"a\": 1}}",
                    "{\"ts\": 1764230400123, \"category\": [1]}",
                    "{\"ts\": 1764230400123, \"category\": 1.5}",
                    "{\"ts\": 1764230400123, \"user\": {\"id\": \"\u00fc\", \"age\": \"42\"}}",
                    "{\"ts\": 1764230400123, \"user\": {\"age\": \"x4\"}}",
                    "{\"ts\": \"yesterday\"}",
                    "{\"ts\": true}",
                    "{\"ts\": 1e30}",
                    "{\"ts\": 1764230400.5}",
                    "{\"clicked\": 0}",
                    "{\"ts\": \"2026-11-27T09:00:00.123+01:00\", \"clicked\": \"1\"}",
                    "{\"ts\": \"17642304001\", \"position\": 2.0}");

    @Test
    void criteoPresetsAnswerAsJava() throws Exception {
        for (String preset : List.of("dlrm-criteo", "rap-criteo", "presto-rm1")) {
            Path train = generate("train-" + preset + ".txt", 3000, 1, preset);
            Path request = generate("request-" + preset + ".txt", 1500, 2, preset);
            sameAnswers(PRESETS.resolve(preset + ".json"), train, request);
        }
    }

    @Test
    void listsAndEveryOperatorAnswerAsJava() throws Exception {
        Path train = generate("train.txt", 1500, 3, "presto-rm2");
        Path request = generate("request.txt", 800, 4, "presto-rm2");
        Path ids = tmp.resolve("ids.tsv");
        Files.writeString(ids, idTable(train, 505 + 21));
        Path spec = tmp.resolve("every-operator.json");
        Files.writeString(spec, EVERY_OPERATOR.replace("IDS", ids.toString()));
        sameAnswers(spec, train, request);
    }

    /**
     * Each operator Java defines, in specs generated from the definitions ({@link
     * EachOperatorSpec}): a column of its own in Criteo-like lines of lists (presto-rm2), or where
     * it needs string ids in JSON click events (clicks-json); bad fields of every kind among them.
     * The two languages' answers alike, operator by operator.
     */
    @Test
    void eachOperatorFromItsDefinitionAnswersAsJava() throws Exception {
        Path train = generate("train-each.txt", 800, 7, "presto-rm2");
        Path request = generate("request-each.txt", 800, 8, "presto-rm2");
        Path ids = tmp.resolve("ids-each.tsv");
        Files.writeString(ids, idTable(train, 505 + 1));
        java.util.Set<String> held = new java.util.TreeSet<>();
        Path lines = tmp.resolve("each-operator-lines.json");
        Files.writeString(
                lines,
                EachOperatorSpec.json(PRESETS.resolve("presto-rm2.json"), ids.toString(), held));
        Path events = tmp.resolve("each-operator-events.json");
        Files.writeString(
                events,
                EachOperatorSpec.json(PRESETS.resolve("clicks-json.json"), ids.toString(), held));
        java.util.Set<String> defined = new java.util.TreeSet<>();
        dev.piper.pipeline.ops.OpDefinition.all().forEach(d -> defined.add(d.name()));
        assertThat(held).as("operators the generated specs hold").isEqualTo(defined);
        sameAnswers(lines, train, request);
        Path eventsTrain = tmp.resolve("train-each.jsonl");
        events(eventsTrain, "json", 1000, 9);
        sameAnswers(events, eventsTrain, withBadEvents("request-each.jsonl", 1500, 10));
    }

    /** {@code rows} JSON click events with {@link #BAD_EVENTS} among them, in file {@code name}. */
    private Path withBadEvents(String name, int rows, int seed) throws Exception {
        Path good = tmp.resolve("good-" + name);
        events(good, "json", rows, seed);
        List<String> lines = new ArrayList<>(Files.readAllLines(good));
        for (int i = 0; i < BAD_EVENTS.size(); i++) {
            lines.add(40 * i, BAD_EVENTS.get(i)); // among good ones
        }
        Path request = tmp.resolve(name);
        Files.write(request, lines);
        return request;
    }

    @Test
    void jsonEventsAnswerAsJava() throws Exception {
        Path train = tmp.resolve("train.jsonl");
        events(train, "json", 3000, 5);
        Path request = withBadEvents("request.jsonl", 1500, 6);
        sameAnswers(PRESETS.resolve("clicks-json.json"), train, request);

        // Criteo's lines as JSON events, some of them no JSON at all
        Path criteoTrain = generate("criteo-train.jsonl", 3000, 7, null);
        Path criteoRequest = generate("criteo-request.jsonl", 1500, 8, null);
        sameAnswers(PRESETS.resolve("dlrm-criteo-json.json"), criteoTrain, criteoRequest);
    }

    @Test
    void csvLinesAnswerAsJava() throws Exception {
        Path train = tmp.resolve("train.csv");
        Path events = tmp.resolve("events.csv");
        events(train, "csv", 3000, 5);
        events(events, "csv", 1500, 6);
        List<String> lines = new ArrayList<>(Files.readAllLines(events));
        lines.remove(0); // the header: a request's records are lines of the log, without one
        for (int i = 0; i < BAD_CSV.size(); i++) {
            lines.add(40 * i, BAD_CSV.get(i));
        }
        Path request = tmp.resolve("request.csv");
        Files.write(request, lines);
        sameAnswers(PRESETS.resolve("clicks-csv.json"), train, request);

        // Criteo's lines as CSV with a header, some of them no CSV of the columns
        Path criteo = generate("criteo-train.txt", 3000, 7, null);
        Path criteoRequest = generate("criteo-request.txt", 1500, 8, null);
        Path csvTrain = tmp.resolve("criteo-train.csv");
        Path csvRequest = tmp.resolve("criteo-request.csv");
        cli("convert", "--input", "" + criteo, "--output", "" + csvTrain);
        cli("convert", "--input", "" + criteoRequest, "--output", "" + csvRequest);
        List<String> criteoLines =
                new ArrayList<>(Files.readAllLines(csvRequest, StandardCharsets.ISO_8859_1));
        criteoLines.remove(0);
        Files.write(csvRequest, criteoLines, StandardCharsets.ISO_8859_1);
        sameAnswers(PRESETS.resolve("dlrm-criteo-csv.json"), csvTrain, csvRequest);
    }

    @Test
    void avroDatumsAnswerAsJava() throws Exception {
        Path train = tmp.resolve("train.jsonl");
        Path events = tmp.resolve("events.avro");
        events(train, "json", 3000, 5);
        events(events, "avro", 1500, 6);
        List<byte[]> datums = new ArrayList<>(AvroDatums.all(events));
        byte[] first = datums.get(0);
        List<byte[]> bad =
                List.of(
                        java.util.Arrays.copyOf(first, first.length - 1), // ends early
                        java.util.Arrays.copyOf(first, first.length + 2), // bytes after its end
                        new byte[0],
                        new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff}, // a varint cut short
                        new byte[] {0x7f}); // a union branch the schema has not
        for (int i = 0; i < 3 * bad.size(); i++) {
            datums.add(90 * i, bad.get(i % bad.size()));
        }
        Path request = Files.write(tmp.resolve("request.bin"), Frames.framed(datums));
        sameAnswers(
                PRESETS.resolve("clicks-avro.json"),
                PRESETS.resolve("clicks-json.json"),
                train,
                request);
    }

    @Test
    void protobufMessagesAnswerAsJava() throws Exception {
        Path train = tmp.resolve("train.jsonl");
        Path events = tmp.resolve("events.pb");
        events(train, "json", 3000, 5);
        events(events, "protobuf", 1500, 6);
        Path spec = tmp.resolve("clicks-protobuf.json");
        Files.writeString(
                spec,
                Files.readString(PRESETS.resolve("clicks-json.json"))
                        .replace(
                                "\"format\": \"json\"",
                                "\"format\": \"protobuf\", \"descriptor\": \""
                                        + events
                                        + ".desc\", \"message\": \"dev.piper.events.ClickEvent\""));
        List<byte[]> messages = Frames.delimited(Files.readAllBytes(events));
        byte[] first = messages.get(0);
        List<byte[]> bad =
                List.of(
                        java.util.Arrays.copyOf(first, first.length - 1), // ends early
                        java.util.Arrays.copyOf(first, first.length + 1), // a field number 0
                        new byte[0], // no field at all: no event time
                        new byte[] {(byte) 0x80}, // a tag cut short
                        new byte[] {0x0a, 0x01, 0x31}); // field 1 with a length, declared a number
        for (int i = 0; i < 3 * bad.size(); i++) {
            messages.add(90 * i, bad.get(i % bad.size()));
        }
        Path request = Files.write(tmp.resolve("request.bin"), Frames.framed(messages));
        sameAnswers(spec, PRESETS.resolve("clicks-json.json"), train, request);
    }

    /** CSV lines of the click events' columns breaking each rule of docs/SEMANTICS.md's CSV. */
    private static final List<String> BAD_CSV =
            List.of(
                    "",
                    "1764230400123,1,u_1",
                    "1764230400123,1,u_1,DE,30,i_1,c,100,2,web,i_1|i_2,extra",
                    "1764230400123,1,\"u_1,DE,30,i_1,c,100,2,web,i_1",
                    "1764230400123,1,\"u_1\"x,DE,30,i_1,c,100,2,web,i_1",
                    "1764230400123,1,u\"1,DE,30,i_1,c,100,2,web,i_1",
                    "1764230400123,1,\"u \"\"1\"\"\",DE,30,i_1,c,100,2,web,i_1",
                    "1764230400123,x,u_1,DE,30,i_1,c,100,2,web,i_1",
                    "1764230400123,1,u_1,DE,1.5,i_1,c,100,2,web,i_1",
                    "1764230400123,1,u_1,DE,30,i_1,c,100,2,web,i_1||i_2",
                    "1764230400123,1,u_1,DE,30,i_1,c,100,2,web,",
                    "1764230400123,1,,,,,,,,,",
                    ",1,u_1,DE,30,i_1,c,100,2,web,i_1",
                    "soon,1,u_1,DE,30,i_1,c,100,2,web,i_1",
                    "2026-11-27T08:00:00Z,1,u_1,DE,\"3\t0\",i_1,c,100,2,web,i_1");

    /**
     * Writes {@code rows} click events ({@code piper generate --events format}) to {@code file}.
     */
    private static void events(Path file, String format, int rows, int seed) {
        cli(
                "generate",
                "--rows",
                "" + rows,
                "--events",
                format,
                "--seed",
                "" + seed,
                "--output",
                "" + file);
    }

    /**
     * Writes {@code rows} generated lines of a preset's layout (null: Criteo's), 3% of them bad; a
     * name ending in .jsonl gets them as JSON events.
     */
    private Path generate(String name, int rows, int seed, String preset) throws Exception {
        Path out = tmp.resolve(name);
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "generate",
                                "--rows",
                                "" + rows,
                                "--seed",
                                "" + seed,
                                "--bad-rate",
                                "0.03",
                                "--output",
                                "" + out));
        if (preset != null && preset.startsWith("presto-rm")) {
            args.addAll(List.of("--preset", preset.substring("presto-".length())));
        }
        cli(args.toArray(String[]::new));
        return out;
    }

    private static String cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(PiperCli.execute(args)).as(err.toString(StandardCharsets.UTF_8)).isZero();
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * The snapshot of {@code train}'s keys (first appearance, after the OOV buckets), then one
     * answer of each language for {@code request}, compared.
     */
    private void sameAnswers(Path specFile, Path train, Path request) throws Exception {
        sameAnswers(specFile, specFile, train, request);
    }

    /**
     * As {@link #sameAnswers(Path, Path, Path)}, the snapshot of {@code train} read by another spec
     * of the same columns ({@code trainSpec}: JSON events for Avro datums).
     */
    private void sameAnswers(Path specFile, Path trainSpec, Path train, Path request)
            throws Exception {
        PipelineSpec spec = SpecParser.parse(specFile);
        Path snapshot = tmp.resolve(spec.name() + ".snapshot");
        snapshotOf(SpecParser.parse(trainSpec), train)
                .withPipeline(spec.name() + "/" + spec.version())
                .write(snapshot);
        JsonNode java =
                JSON.readTree(
                        cli(
                                "serve",
                                "--spec",
                                "" + specFile,
                                "--snapshot",
                                "" + snapshot,
                                "--request",
                                "" + request));
        JsonNode python = python(specFile, snapshot, request);
        String what = spec.name() + " on " + request.getFileName();
        assertThat(java.get("rows").size()).as(what).isGreaterThan(500);
        assertThat(java.get("dead_letters").size()).as(what).isGreaterThan(10);
        assertThat(java.get("unknown_keys").size()).as(what).isPositive();
        for (String field :
                List.of(
                        "records",
                        "columns",
                        "float32_columns",
                        "lists",
                        "event_times",
                        "unknown_keys")) {
            assertThat(python.get(field)).as(what + ": " + field).isEqualTo(java.get(field));
        }
        sameRows(what, java, python);
        JsonNode javaDead = java.get("dead_letters");
        JsonNode pythonDead = python.get("dead_letters");
        assertThat(pythonDead.size()).as(what + ": dead letters").isEqualTo(javaDead.size());
        for (int i = 0; i < javaDead.size(); i++) {
            JsonNode j = javaDead.get(i);
            JsonNode p = pythonDead.get(i);
            String which = what + ": dead letter " + i + " " + j;
            assertThat(p.get("record")).as(which).isEqualTo(j.get("record"));
            assertThat(p.get("reason")).as(which).isEqualTo(j.get("reason"));
            if (!List.of("invalid_json", "invalid_avro", "invalid_protobuf")
                    .contains(j.get("reason").asText())) {
                assertThat(p.get("detail")).as(which).isEqualTo(j.get("detail"));
            }
        }
        compared(specFile);
    }

    /** The rows, a float32 slot compared as float32 bits (NaN as NaN: JSON has no bits for it). */
    private static void sameRows(String what, JsonNode java, JsonNode python) {
        Set<String> floats = new LinkedHashSet<>();
        if (java.has("float32_columns")) {
            java.get("float32_columns").forEach(n -> floats.add(n.asText()));
        }
        JsonNode columns = java.get("columns");
        JsonNode javaRows = java.get("rows");
        JsonNode pythonRows = python.get("rows");
        assertThat(pythonRows.size()).as(what + ": rows").isEqualTo(javaRows.size());
        for (int r = 0; r < javaRows.size(); r++) {
            for (int j = 0; j < columns.size(); j++) {
                JsonNode a = javaRows.get(r).get(j);
                JsonNode b = pythonRows.get(r).get(j);
                String where = what + ": row " + r + " " + columns.get(j).asText();
                if (floats.contains(columns.get(j).asText())) {
                    assertThat(Float.floatToIntBits(floatOf(b)))
                            .as(where + " " + a + " / " + b)
                            .isEqualTo(Float.floatToIntBits(floatOf(a)));
                } else {
                    assertThat(b.asLong()).as(where).isEqualTo(a.asLong());
                }
            }
        }
    }

    /** A float32 slot's value: a number, or NaN and the infinities as Jackson and Python write. */
    private static float floatOf(JsonNode v) {
        return v.isTextual() ? Float.parseFloat(v.asText()) : (float) v.asDouble();
    }

    private JsonNode python(Path spec, Path snapshot, Path request) throws Exception {
        Path out = tmp.resolve("python-answer.json");
        Path log = tmp.resolve("python.log");
        Process p =
                new ProcessBuilder(
                                "/usr/bin/python3",
                                "-m",
                                "piper_feed.transform",
                                "--spec",
                                "" + spec,
                                "--snapshot",
                                "" + snapshot,
                                "--request",
                                "" + request)
                        .directory(CLIENT.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(log.toFile())
                        .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("python3 -m piper_feed.transform").isTrue();
        assertThat(p.exitValue()).as(Files.readString(log)).isZero();
        return JSON.readTree(out.toFile());
    }

    /** The keys of {@code train}'s records, per sparse column in first appearance. */
    private static VocabularySnapshot snapshotOf(PipelineSpec spec, Path train) throws IOException {
        DecodeOptions options = SpecCompiler.decodeOptions(spec, 1024);
        byte[] all = Files.readAllBytes(train);
        CriteoDecoder.Decoded decoded =
                BlockDecoder.of(options, false)
                        .decode(new RawChunk(0, 0, all, all.length, -1), false);
        int sparse = decoded.keys().length;
        List<VocabularySnapshot.Column> columns = new ArrayList<>();
        int[][] indices = new int[sparse][];
        long[][] keys = new long[sparse][];
        for (int c = 0; c < sparse; c++) {
            KeyChunk chunk = decoded.keys()[c];
            Set<Long> distinct = new LinkedHashSet<>();
            for (int i = 0; i < chunk.size(); i++) {
                distinct.add(chunk.keys()[i]);
            }
            int first = options.program().vocabPolicy(c).firstIndex();
            columns.add(
                    new VocabularySnapshot.Column(
                            options.program()
                                    .layout()
                                    .fieldName(options.program().layout().sparseField(c)),
                            0,
                            first,
                            -1));
            indices[c] = new int[distinct.size()];
            keys[c] = new long[distinct.size()];
            int i = 0;
            for (long key : distinct) {
                indices[c][i] = first + i;
                keys[c][i++] = key;
            }
        }
        return VocabularySnapshot.of(
                spec.name() + "/" + spec.version(), "test", columns, indices, keys);
    }

    /**
     * A mapid table of the first 40 distinct ids of the list field at tab-separated position {@code
     * field} of the lines, each to a value of its own.
     */
    private static String idTable(Path lines, int field) throws IOException {
        Set<String> ids = new LinkedHashSet<>();
        for (String line : Files.readAllLines(lines, StandardCharsets.ISO_8859_1)) {
            String[] f = line.split("\t", -1);
            if (f.length > field && ids.size() < 40) {
                for (String id : f[field].split(",")) {
                    if (id.matches("[0-9a-f]{1,16}")) {
                        ids.add(Long.toUnsignedString(Long.parseUnsignedLong(id, 16)));
                    }
                }
            }
        }
        StringBuilder table = new StringBuilder();
        int value = 1;
        for (String id : ids) {
            table.append(id).append('\t').append(value++ * 7919).append('\n');
        }
        return table.toString();
    }

    /**
     * A spec of PreSto's RM2 layout (504 dense columns, 42 list columns, four generated) with every
     * operator: fills of each kind, the float operators (with NaN and the infinities among their
     * results), onehot, the id operators on lists, vocabularies with and without buckets.
     */
    private static final String EVERY_OPERATOR =
            """
            {"name": "every-operator", "version": 1,
             "input": {"format": "criteo-tsv", "dense": 504, "sparse": 42,
                       "list_columns": ["C1..C42"], "generated_from": ["I1..I4"]},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1..I50": ["decode", {"op": "fill_null", "value": 7}, "neg2zero", "sqrt"],
               "I51..I100": ["decode", "fill_missing", {"op": "cast", "to": "float32"},
                             {"op": "clamp", "lo": 0, "hi": 1000.5}, "log",
                             {"op": "cast", "to": "int32"}],
               "I101..I150": ["decode", "fill_missing", "logit"],
               "I151..I200": ["decode", "fill_missing", {"op": "logit", "eps": 0.001}],
               "I201..I250": ["decode", "fill_missing",
                              {"op": "bucketize", "borders": [0, 1, 2, 5, 10, 100], "right": false},
                              {"op": "onehot", "size": 5}],
               "I251..I300": ["decode", "fill_missing", {"op": "boxcox", "lambda": 0}],
               "I301..I350": ["decode", "fill_missing", {"op": "clamp", "lo": -3.5, "hi": 20.7}],
               "I351..I504": ["decode", "fill_missing", "neg2zero", "log"],
               "G1..G4": ["decode", {"op": "fill_null", "value": -1}, {"op": "cast", "to": "float32"},
                          {"op": "boxcox", "lambda": 0.5}],
               "C1..C10": ["decode", {"op": "fill_null", "value": 3}, "hex2int",
                           {"op": "firstx", "x": 3}, {"op": "modulus", "m": 1000},
                           {"op": "vocab", "oov_buckets": 16}],
               "C11..C20": ["decode", "fill_missing", "hex2int", {"op": "ngram", "n": 2},
                            {"op": "sigrid_hash", "salt": 5, "max": 100000},
                            {"op": "vocab", "min_count": 2, "oov_buckets": 1}],
               "C21..C30": ["decode", "fill_missing", "hex2int",
                            {"op": "mapid", "file": "IDS", "default": 0}, "vocab"],
               "C31..C42": ["decode", "fill_missing", "hex2int", {"op": "mapid", "file": "IDS"},
                            {"op": "modulus", "m": 97}, {"op": "vocab", "oov_buckets": 4}]
             }}
            """;
}
