package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.convert.TsvToAvro;
import dev.piper.convert.TsvToJson;
import dev.piper.convert.TsvToProtobuf;
import dev.piper.feed.LineProducer;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.generate.CriteoAvro;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.generate.CriteoProtobuf;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.spec.Presets;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42: one click log as Criteo text, as JSON events ({@code piper convert}'s {@link
 * TsvToJson}), as CSV with a header (columns in another order, the label under another name), as an
 * Avro container file and as Protobuf messages, preprocessed at parallelism 2 with the same chains
 * under {@code input.format} criteo-tsv, json, csv, avro and protobuf, gives byte-identical rows
 * and vocabularies, and as many dead letters with the lines no record could carry; and the JSON
 * events, the Avro datums and the Protobuf messages streamed through a real broker, one a record,
 * consume into the same files. With string ids (hash64), JSON and CSV give the same vocabularies,
 * each entry named by its original string, and so does the JSON stream.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class EventFormatsITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    private static final PrintStream QUIET = TestClusters.QUIET;

    private static final String CHAINS =
            """
            "columns": {
              "label": ["decode", "fill_missing"],
              "I1..I13": ["decode", "fill_missing", "neg2zero"],
              "C1..C26": ["decode", "fill_missing", "hex2int", "vocab"]
            }""";

    private static String spec(String format) {
        return "{\"name\": \"clicks\", \"version\": 1, \"input\": {\"format\": \""
                + format
                + "\"}, "
                + CHAINS
                + "}";
    }

    /**
     * The ids as strings: hash64 (C1..C13 then a modulus of 1000, so that strings collide), the
     * vocabularies' entries named by the strings.
     */
    private static final String STRING_CHAINS =
            """
            "columns": {
              "label": ["decode", "fill_missing"],
              "I1..I13": ["decode", "fill_missing", "neg2zero"],
              "C1..C13": ["decode", "fill_missing", "hash64", {"op": "modulus", "m": 1000}, "vocab"],
              "C14..C26": ["decode", "fill_missing", "hash64", "vocab"]
            }""";

    private static String stringSpec(String input) {
        return "{\"name\": \"clicks\", \"version\": 1, \"input\": "
                + input
                + ", "
                + STRING_CHAINS
                + "}";
    }

    @TempDir static Path tmp;

    static Path tsv;
    static Path json;

    @BeforeAll
    static void writeTheLog() throws Exception {
        tsv = tmp.resolve("clicks.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tsv))) {
            new CriteoGenerator(20261128, 0.01, 0.01).write(out, 200_000);
        }
        json = tmp.resolve("clicks.jsonl");
        assertThat(TsvToJson.convert(tsv, json, RowLayout.CRITEO, QUIET).lines())
                .isEqualTo(200_000);
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == '\n') {
                return i;
            }
        }
        throw new IllegalStateException("fewer lines than asked");
    }

    private static Preprocess.Summary preprocess(Path input, String format, Path output)
            throws Exception {
        return preprocessWith(input, spec(format), output);
    }

    /** Preprocesses {@code input} at parallelism 2 under {@code spec} (its JSON) into output. */
    private static Preprocess.Summary preprocessWith(Path input, String spec, Path output)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        Preprocess.prepareOutput(output, false);
        return Preprocess.run(input, output, 2, StateBackend.hashmap, conf, QUIET);
    }

    @Test
    void theLogAsJsonEventsPreprocessesToTheTextsOutput() throws Exception {
        Preprocess.Summary text = preprocess(tsv, "criteo-tsv", tmp.resolve("from-tsv"));
        Preprocess.Summary events = preprocess(json, "json", tmp.resolve("from-json"));
        assertThat(text.deadLetters()).isGreaterThan(1000);
        assertThat(events.rowsWritten()).isEqualTo(text.rowsWritten());
        assertThat(events.deadLetters()).isEqualTo(text.deadLetters());
        // a line that is not a row of the layout is not a JSON object either
        assertThat(events.deadLettersByReason().get("invalid_json"))
                .isEqualTo(text.deadLettersByReason().get("wrong_field_count"));
        assertThat(events.rowsWritten() + events.deadLetters()).isEqualTo(200_000);
        for (String file : outputFiles(tmp.resolve("from-tsv"))) {
            assertThat(
                            Files.mismatch(
                                    tmp.resolve("from-json/" + file),
                                    tmp.resolve("from-tsv/" + file)))
                    .as(file)
                    .isEqualTo(-1);
        }
        assertThat(Files.readString(tmp.resolve("from-json").resolve("dead-letters.jsonl")))
                .contains("\"reason\":\"invalid_json\"")
                .contains("\"reason\":\"categorical_not_hex\"");
    }

    @Test
    void theLogAsAnAvroContainerFilePreprocessesToTheTextsOutput() throws Exception {
        Path avro = tmp.resolve("clicks.avro");
        TsvToAvro.Result converted =
                TsvToAvro.convert(tsv, avro, RowLayout.CRITEO, "deflate", QUIET);
        assertThat(converted.lines()).isEqualTo(200_000);
        Preprocess.Summary text = preprocess(tsv, "criteo-tsv", tmp.resolve("avro-from-tsv"));
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec("avro"));
        conf.set(PiperOptions.BLOCK_BYTES, 256 * 1024); // several chunks, several decoders
        Path out = tmp.resolve("from-avro");
        Preprocess.prepareOutput(out, false);
        Preprocess.Summary events = Preprocess.run(avro, out, 2, StateBackend.hashmap, conf, QUIET);
        assertThat(events.rowsWritten()).isEqualTo(text.rowsWritten());
        // a line that is no row of the layout (empty, of another field count) or not UTF-8 has
        // no record: the converter set it aside
        Map<String, Long> reasons = text.deadLettersByReason();
        assertThat(converted.rejected())
                .as("%s", reasons)
                .isEqualTo(
                        reasons.get("wrong_field_count")
                                + reasons.get("invalid_utf8")
                                + reasons.get("empty_line"))
                .isPositive();
        assertThat(events.deadLetters() + converted.rejected()).isEqualTo(text.deadLetters());
        assertThat(events.rowsWritten() + events.deadLetters()).isEqualTo(converted.records());
        for (String file : outputFiles(tmp.resolve("avro-from-tsv"))) {
            assertThat(Files.mismatch(out.resolve(file), tmp.resolve("avro-from-tsv/" + file)))
                    .as(file)
                    .isEqualTo(-1);
        }
        assertThat(Files.readString(out.resolve("dead-letters.jsonl")))
                .contains("\"reason\":\"categorical_not_hex\"");

        // blocks of 1 MB read in ranges of 64 KiB: most ranges hold no block's start and are empty
        // chunks, and the output is the same
        Path large = tmp.resolve("clicks-large-blocks.avro");
        try (org.apache.avro.file.DataFileReader<Object> in =
                        new org.apache.avro.file.DataFileReader<>(
                                avro.toFile(), new org.apache.avro.generic.GenericDatumReader<>());
                org.apache.avro.file.DataFileWriter<Object> w =
                        new org.apache.avro.file.DataFileWriter<>(
                                new org.apache.avro.generic.GenericDatumWriter<>(in.getSchema()))) {
            w.setCodec(org.apache.avro.file.CodecFactory.deflateCodec(1));
            w.setSyncInterval(1 << 20);
            w.create(in.getSchema(), large.toFile());
            for (Object datum : in) {
                w.append(datum);
            }
        }
        conf.set(PiperOptions.BLOCK_BYTES, 64 * 1024);
        Path fromLarge = tmp.resolve("from-avro-large-blocks");
        Preprocess.prepareOutput(fromLarge, false);
        Preprocess.run(large, fromLarge, 2, StateBackend.hashmap, conf, QUIET);
        for (String file : outputFiles(out)) {
            assertThat(Files.mismatch(fromLarge.resolve(file), out.resolve(file)))
                    .as("large blocks: %s", file)
                    .isEqualTo(-1);
        }

        // a column whose field the file's records lack is refused before anything is read
        Configuration wrong = new Configuration();
        wrong.set(
                PiperOptions.SPEC,
                spec("avro")
                        .replace(
                                "\"format\": \"avro\"",
                                "\"format\": \"avro\", \"fields\": {\"C3\": \"user.id\"}"));
        Path refused = tmp.resolve("avro-refused");
        Preprocess.prepareOutput(refused, false);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> Preprocess.run(avro, refused, 2, StateBackend.hashmap, wrong, QUIET))
                .hasMessageContaining(
                        avro
                                + ": C3 reads \"user.id\", but in the file's records record"
                                + " dev.piper.events.CriteoLine has no field \"user\"");
    }

    @Test
    void theLogAsProtobufMessagesPreprocessesToTheTextsOutput() throws Exception {
        Path messages = tmp.resolve("clicks.pb");
        TsvToProtobuf.Result converted =
                TsvToProtobuf.convert(tsv, messages, RowLayout.CRITEO, QUIET);
        assertThat(converted.lines()).isEqualTo(200_000);
        Preprocess.Summary text = preprocess(tsv, "criteo-tsv", tmp.resolve("pb-from-tsv"));
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, protobufSpec(messages));
        conf.set(PiperOptions.BLOCK_BYTES, 256 * 1024);
        Path out = tmp.resolve("from-protobuf");
        Preprocess.prepareOutput(out, false);
        Preprocess.Summary events =
                Preprocess.run(messages, out, 2, StateBackend.hashmap, conf, QUIET);
        assertThat(events.rowsWritten()).isEqualTo(text.rowsWritten());
        // a line no message carries (of another field count, not UTF-8, a label or dense field
        // that is text but no int32) was set aside: the text's dead letters are those and the
        // messages' own
        assertThat(converted.rejected()).isPositive();
        assertThat(events.deadLetters() + converted.rejected()).isEqualTo(text.deadLetters());
        assertThat(events.rowsWritten() + events.deadLetters()).isEqualTo(converted.messages());
        for (String file : outputFiles(tmp.resolve("pb-from-tsv"))) {
            assertThat(Files.mismatch(out.resolve(file), tmp.resolve("pb-from-tsv/" + file)))
                    .as(file)
                    .isEqualTo(-1);
        }
    }

    /** The CSV's columns: Criteo's, shuffled, the label named "clicked". */
    private static List<String> csvColumns() {
        List<String> columns = new ArrayList<>(List.of("clicked"));
        for (int i = 1; i <= 13; i++) {
            columns.add("I" + i);
        }
        for (int i = 1; i <= 26; i++) {
            columns.add("C" + i);
        }
        java.util.Collections.shuffle(columns, new java.util.Random(42));
        return columns;
    }

    /** The log as CSV with a header of {@link #csvColumns}, written once. */
    private static synchronized Path csv() throws Exception {
        Path csv = tmp.resolve("clicks.csv");
        if (Files.exists(csv)) {
            return csv;
        }
        List<String> columns = csvColumns();
        try (java.io.BufferedReader in = Files.newBufferedReader(tsv, StandardCharsets.ISO_8859_1);
                java.io.BufferedWriter out =
                        Files.newBufferedWriter(csv, StandardCharsets.ISO_8859_1)) {
            out.write(String.join(",", columns) + "\n");
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.split("\t", -1);
                List<String> values = new ArrayList<>();
                if (f.length != 40) {
                    values.add(line.replace('\t', ',')); // a bad line stays bad
                } else {
                    for (String c : columns) {
                        int i =
                                c.equals("clicked")
                                        ? 0
                                        : c.startsWith("I")
                                                ? Integer.parseInt(c.substring(1))
                                                : 13 + Integer.parseInt(c.substring(1));
                        String v = f[i];
                        values.add(
                                v.contains(",") || v.contains("\"")
                                        ? "\"" + v.replace("\"", "\"\"") + "\""
                                        : v);
                    }
                }
                out.write(String.join(",", values) + "\n");
            }
        }
        return csv;
    }

    @Test
    void theLogAsCsvPreprocessesToTheTextsOutput() throws Exception {
        List<String> columns = csvColumns();
        Path csv = csv();
        String spec =
                spec("csv")
                        .replace(
                                "\"format\": \"csv\"",
                                "\"format\": \"csv\", \"header\": true, \"columns\": [\""
                                        + String.join("\", \"", columns)
                                        + "\"], \"fields\": {\"label\": \"clicked\"}");
        Preprocess.Summary text = preprocess(tsv, "criteo-tsv", tmp.resolve("csv-from-tsv"));
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        Path out = tmp.resolve("from-csv");
        Preprocess.prepareOutput(out, false);
        Preprocess.Summary events = Preprocess.run(csv, out, 2, StateBackend.hashmap, conf, QUIET);
        assertThat(events.rowsWritten()).isEqualTo(text.rowsWritten());
        assertThat(events.deadLetters()).isEqualTo(text.deadLetters());
        assertThat(events.linesRead()).isEqualTo(200_000); // the header is no line of the log
        assertThat(events.deadLettersByReason()).isEqualTo(text.deadLettersByReason());
        for (String file : outputFiles(tmp.resolve("csv-from-tsv"))) {
            assertThat(Files.mismatch(out.resolve(file), tmp.resolve("csv-from-tsv/" + file)))
                    .as(file)
                    .isEqualTo(-1);
        }

        // a header of other columns is refused before the job, naming the file and the column
        String other =
                spec.replace("\"clicked\", ", "\"label\", ")
                        .replace("{\"label\": \"clicked\"}", "{}");
        Configuration wrong = new Configuration();
        wrong.set(PiperOptions.SPEC, other);
        Path refused = tmp.resolve("csv-refused");
        Preprocess.prepareOutput(refused, false);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> Preprocess.run(csv, refused, 2, StateBackend.hashmap, wrong, QUIET))
                .hasMessageContaining(csv + " is not the CSV the spec describes")
                .hasMessageContaining("\"clicked\" as column")
                .hasMessageContaining("where input.columns has \"label\"");
    }

    /**
     * String ids (hash64) as JSON events and as CSV give the same vocabularies, each entry with its
     * original string: the string hashes to the entry's key (after C1..C13's modulus, where strings
     * collide, the first string of the key names it in both).
     */
    @Test
    void stringIdsNameTheirEntriesAlikeFromJsonAndCsv() throws Exception {
        Configuration fromJson = new Configuration();
        fromJson.set(PiperOptions.SPEC, stringSpec("{\"format\": \"json\"}"));
        Path jsonOut = tmp.resolve("strings-from-json");
        Preprocess.prepareOutput(jsonOut, false);
        Preprocess.Summary a =
                Preprocess.run(json, jsonOut, 2, StateBackend.hashmap, fromJson, QUIET);
        Configuration fromCsv = new Configuration();
        fromCsv.set(
                PiperOptions.SPEC,
                stringSpec(
                        "{\"format\": \"csv\", \"header\": true, \"columns\": [\""
                                + String.join("\", \"", csvColumns())
                                + "\"], \"fields\": {\"label\": \"clicked\"}}"));
        Path csvOut = tmp.resolve("strings-from-csv");
        Preprocess.prepareOutput(csvOut, false);
        Preprocess.Summary b =
                Preprocess.run(csv(), csvOut, 2, StateBackend.hashmap, fromCsv, QUIET);
        assertThat(b.rowsWritten()).isEqualTo(a.rowsWritten());
        for (String file : outputFiles(jsonOut)) {
            assertThat(Files.mismatch(csvOut.resolve(file), jsonOut.resolve(file)))
                    .as(file)
                    .isEqualTo(-1);
        }
        for (int c = 1; c <= 26; c++) {
            List<String> lines = Files.readAllLines(jsonOut.resolve("vocab/C" + c + ".tsv"));
            assertThat(lines).as("C%d", c).isNotEmpty();
            java.util.Set<String> strings = new java.util.HashSet<>();
            for (String line : lines) {
                String[] f = line.split("\t", -1);
                if (f.length == 2) { // fill_missing's id of an absent value: no string
                    assertThat(f[1]).as("C%d: %s", c, line).isEqualTo("0");
                    continue;
                }
                assertThat(f).as("C%d: %s", c, line).hasSize(3);
                long hash = dev.piper.pipeline.input.StringIds.key(f[2]);
                long key = c <= 13 ? Long.remainderUnsigned(hash, 1000) : hash;
                assertThat(Long.parseUnsignedLong(f[1])).as("C%d: %s", c, line).isEqualTo(key);
                assertThat(strings.add(f[2])).as("C%d: %s twice", c, f[2]).isTrue();
            }
        }
    }

    /**
     * The click events of {@code generate --events} in its four formats, read with the presets
     * clicks-json, clicks-csv and clicks-avro (and clicks-json's columns over the Protobuf
     * messages): the same rows and vocabularies, every entry named by its string.
     */
    @Test
    void theClickEventsInEveryFormatGiveTheSameOutput() throws Exception {
        Map<ClickEvents.Format, Path> files = new java.util.EnumMap<>(ClickEvents.Format.class);
        for (ClickEvents.Format f : ClickEvents.Format.values()) {
            Path file = tmp.resolve("click-events" + f.extension());
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
                new ClickEvents(11, 0.01, -1).write(f, out, 50_000, done -> {});
            }
            files.put(f, file);
        }
        String json = ClickEventFiles.preset();
        Map<ClickEvents.Format, String> specs =
                Map.of(
                        ClickEvents.Format.JSON,
                        json,
                        ClickEvents.Format.CSV,
                        new String(Presets.named("clicks-csv").text(), StandardCharsets.UTF_8),
                        ClickEvents.Format.AVRO,
                        new String(Presets.named("clicks-avro").text(), StandardCharsets.UTF_8),
                        ClickEvents.Format.PROTOBUF,
                        ClickEventFiles.protobufSpec(tmp.resolve("click-events.desc")));
        Path reference = null;
        for (ClickEvents.Format f : ClickEvents.Format.values()) {
            Configuration conf = new Configuration();
            conf.set(PiperOptions.SPEC, specs.get(f));
            Path out = tmp.resolve("click-events-" + f);
            Preprocess.prepareOutput(out, false);
            Preprocess.Summary summary =
                    Preprocess.run(files.get(f), out, 2, StateBackend.hashmap, conf, QUIET);
            assertThat(summary.rowsWritten()).as(f.toString()).isEqualTo(50_000);
            if (reference == null) {
                reference = out;
                continue;
            }
            List<String> compared =
                    new ArrayList<>(List.of("rows.bin", "lists/C6.lengths", "event_times.bin"));
            for (int c = 1; c <= 6; c++) {
                compared.add("vocab/C" + c + ".tsv");
            }
            for (String file : compared) {
                assertThat(Files.mismatch(out.resolve(file), reference.resolve(file)))
                        .as("%s %s", f, file)
                        .isEqualTo(-1);
            }
        }
        assertThat(Files.readAllLines(reference.resolve("vocab/C3.tsv")).get(0))
                .matches("0\\t[0-9]+\\tc_[0-9]+"); // each row's time is its event's ts, in the
        // events' order
        ClickEvents again = new ClickEvents(11, 0.01, -1);
        java.nio.LongBuffer times =
                java.nio.ByteBuffer.wrap(Files.readAllBytes(reference.resolve("event_times.bin")))
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                        .asLongBuffer();
        assertThat(times.remaining()).isEqualTo(50_000);
        for (int i = 0; i < 50_000; i++) {
            assertThat(times.get(i)).as("row %d", i).isEqualTo(again.next().ts());
        }
    }

    /**
     * The click events as a Parquet file of nested groups, string ids, a LIST and a TIMESTAMP, read
     * by the preset of their JSON lines (clicks-json, the same input.fields): the JSON lines' rows,
     * lists, event times and vocabularies, every entry named by its string, at parallelism 2 over
     * several row groups, in blocks that cross them.
     */
    @Test
    void theClickEventsAsParquetPreprocessToTheJsonOutput() throws Exception {
        Path json = ClickEventFiles.json(tmp.resolve("parquet-clicks.jsonl"), 13, 30_000);
        Path parquet = ClickEventFiles.parquet(tmp.resolve("parquet-clicks.parquet"), 13, 30_000);
        String spec = ClickEventFiles.preset();
        Path reference = tmp.resolve("parquet-clicks-json");
        assertThat(preprocessWith(json, spec, reference).rowsWritten()).isEqualTo(30_000);
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        conf.set(PiperOptions.BLOCK_ROWS, 3_000);
        Path out = tmp.resolve("parquet-clicks-parquet");
        Preprocess.prepareOutput(out, false);
        Preprocess.Summary summary =
                Preprocess.run(parquet, out, 2, StateBackend.hashmap, conf, QUIET);
        assertThat(summary.rowsWritten()).isEqualTo(30_000);
        assertThat(summary.deadLetters()).isZero();
        List<String> compared =
                new ArrayList<>(
                        List.of(
                                "rows.bin",
                                "lists/C6.lengths",
                                "lists/C6.values",
                                "event_times.bin"));
        for (int c = 1; c <= 6; c++) {
            compared.add("vocab/C" + c + ".tsv");
        }
        for (String file : compared) {
            assertThat(Files.mismatch(out.resolve(file), reference.resolve(file)))
                    .as(file)
                    .isEqualTo(-1);
        }
        assertThat(Files.readAllLines(out.resolve("vocab/C1.tsv")).get(0))
                .matches("0\\t[0-9]+\\tu_[0-9a-z]+");
    }

    /**
     * Click events with their times (clicks-json) streamed one a record consume into the batch
     * job's files, event_times.bin included.
     */
    @Test
    void theClickEventsStreamedKeepTheirEventTimes() throws Exception {
        Path input = ClickEventFiles.json(tmp.resolve("timed-clicks.jsonl"), 12, 20_000);
        String spec = ClickEventFiles.preset();
        Path batch = tmp.resolve("timed-clicks-batch");
        Preprocess.Summary summary = preprocessWith(input, spec, batch);
        assertThat(summary.rowsWritten()).isEqualTo(20_000);
        Path consumed =
                stream(
                        "timed",
                        spec,
                        summary,
                        topic ->
                                LineProducer.produce(
                                        input,
                                        kafka.bootstrapServers(),
                                        topic,
                                        null,
                                        Map.of(),
                                        QUIET));
        for (String file :
                List.of("rows.bin", "lists/C6.lengths", "lists/C6.values", "event_times.bin")) {
            assertThat(Files.mismatch(consumed.resolve(file), batch.resolve(file)))
                    .as(file)
                    .isEqualTo(-1);
        }
        assertThat(Files.size(batch.resolve("event_times.bin"))).isEqualTo(20_000L * 8);
    }

    /** rows.bin and every vocabulary file of an output directory. */
    private static List<String> outputFiles(Path dir) throws Exception {
        List<String> files = new ArrayList<>(List.of("rows.bin"));
        try (Stream<Path> vocab = Files.list(dir.resolve("vocab"))) {
            vocab.map(f -> "vocab/" + f.getFileName()).sorted().forEach(files::add);
        }
        assertThat(files).hasSize(27);
        return files;
    }

    @Test
    void theEventsStreamedOneARecordConsumeIntoTheSameFiles() throws Exception {
        Path input = tmp.resolve("stream.jsonl");
        byte[] all = Files.readAllBytes(json);
        int end = 0;
        for (int lines = 0; lines < 40_000; lines++) {
            end = indexOf(all, end) + 1;
        }
        Files.write(input, java.util.Arrays.copyOf(all, end));
        Path batch = tmp.resolve("stream-batch");
        String spec = stringSpec("{\"format\": \"json\"}"); // string ids: entries named
        Preprocess.Summary summary = preprocessWith(input, spec, batch);
        assertThat(Files.readAllLines(batch.resolve("vocab/C3.tsv")).get(0).split("\t")).hasSize(3);

        Path consumed =
                stream(
                        "events",
                        spec,
                        summary,
                        topic ->
                                LineProducer.produce(
                                        input,
                                        kafka.bootstrapServers(),
                                        topic,
                                        null,
                                        Map.of(),
                                        QUIET));
        SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "stream of JSON events");
    }

    @Test
    void theAvroDatumsStreamedOneARecordConsumeIntoTheSameFiles() throws Exception {
        Path lines = tmp.resolve("stream.tsv");
        byte[] all = Files.readAllBytes(tsv);
        int end = 0;
        for (int n = 0; n < 40_000; n++) {
            end = indexOf(all, end) + 1;
        }
        Files.write(lines, java.util.Arrays.copyOf(all, end));
        Path container = tmp.resolve("stream.avro");
        TsvToAvro.convert(lines, container, RowLayout.CRITEO, "null", QUIET);
        Path batch = tmp.resolve("avro-stream-batch");
        Preprocess.Summary summary = preprocess(container, "avro", batch);
        assertThat(summary.rowsWritten()).isGreaterThan(39_000);

        // the stream reads bare datums with the schema the spec names
        Path schema = tmp.resolve("criteo-line.avsc");
        Files.writeString(schema, new CriteoAvro(RowLayout.CRITEO).schema().toString(true));
        String spec =
                spec("avro")
                        .replace(
                                "\"format\": \"avro\"",
                                "\"format\": \"avro\", \"schema\": \""
                                        + schema.toString().replace("\\", "\\\\")
                                        + "\"");
        Path consumed =
                stream(
                        "avro",
                        spec,
                        summary,
                        topic ->
                                LineProducer.produceAvro(
                                        container,
                                        kafka.bootstrapServers(),
                                        topic,
                                        null,
                                        Map.of(),
                                        QUIET));
        SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "stream of Avro datums");
    }

    @Test
    void theProtobufMessagesStreamedOneARecordConsumeIntoTheSameFiles() throws Exception {
        Path lines = tmp.resolve("pb-stream.tsv");
        byte[] all = Files.readAllBytes(tsv);
        int end = 0;
        for (int n = 0; n < 40_000; n++) {
            end = indexOf(all, end) + 1;
        }
        Files.write(lines, java.util.Arrays.copyOf(all, end));
        Path messages = tmp.resolve("stream.pb");
        TsvToProtobuf.convert(lines, messages, RowLayout.CRITEO, QUIET);
        String spec = protobufSpec(messages);
        Path batch = tmp.resolve("pb-stream-batch");
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        Preprocess.prepareOutput(batch, false);
        Preprocess.Summary summary =
                Preprocess.run(messages, batch, 2, StateBackend.hashmap, conf, QUIET);
        assertThat(summary.rowsWritten()).isGreaterThan(39_000);
        Path consumed =
                stream(
                        "protobuf",
                        spec,
                        summary,
                        topic ->
                                LineProducer.produceDelimited(
                                        messages,
                                        kafka.bootstrapServers(),
                                        topic,
                                        null,
                                        Map.of(),
                                        QUIET));
        SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "stream of Protobuf messages");
    }

    /** The protobuf spec of the chains, reading the messages {@link TsvToProtobuf} wrote. */
    private static String protobufSpec(Path messages) {
        return spec("protobuf")
                .replace(
                        "\"format\": \"protobuf\"",
                        "\"format\": \"protobuf\", \"descriptor\": \""
                                + TsvToProtobuf.descriptorFile(messages)
                                        .toString()
                                        .replace("\\", "\\\\")
                                + "\", \"message\": \""
                                + CriteoProtobuf.MESSAGE
                                + "\"");
    }

    /** Sends a topic's records. */
    interface Producer {
        void produce(String topic) throws Exception;
    }

    /**
     * Streams what {@code producer} sends to a one-partition topic ({@code prefix-in}) through the
     * job of {@code spec} at parallelism 2, and consumes its output: as many rows and dead letters
     * as {@code batch} has.
     */
    private static Path stream(
            String prefix, String spec, Preprocess.Summary batch, Producer producer)
            throws Exception {
        Configuration conf =
                Streaming.configuration(
                        2,
                        StateBackend.hashmap,
                        tmp.resolve(prefix + "-checkpoints"),
                        Duration.ofSeconds(1));
        conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
        conf.set(StreamOptions.INPUT_TOPIC, prefix + "-in");
        conf.set(StreamOptions.OUTPUT_TOPIC, prefix + "-rows");
        conf.set(StreamOptions.VOCAB_TOPIC, prefix + "-vocab");
        conf.set(StreamOptions.OUTPUT_PARTITIONS, 2);
        conf.set(PiperOptions.SPEC, spec);
        kafka.createTopic(prefix + "-in", 1); // one partition: arrival order is file order
        producer.produce(prefix + "-in");
        StreamTopics.prepareTopics(conf, QUIET);
        StreamRunner.run(Streaming.job(conf), conf, Duration.ofSeconds(2), QUIET);

        Path consumed = tmp.resolve(prefix + "-consumed");
        OutputConsumer.Result r =
                new OutputConsumer(
                                kafka.bootstrapServers(),
                                Map.of(),
                                prefix + "-rows",
                                prefix + "-vocab",
                                prefix + "-rows-dead-letters")
                        .spec(PiperOptions.decodeOptions(conf)) // a spec not known by name
                        .consume(consumed, batch.rowsWritten(), Duration.ofSeconds(20), QUIET);
        assertThat(r.rows()).isEqualTo(batch.rowsWritten());
        assertThat(r.deadLetters()).isEqualTo(batch.deadLetters());
        return consumed;
    }
}
