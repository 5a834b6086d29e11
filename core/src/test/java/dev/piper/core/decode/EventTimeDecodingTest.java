package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Event time ({@code input.timestamp}): the same click events in JSON, CSV, Avro and Protobuf give
 * every row its event's time, the same in each format; a time that is missing, of another type, no
 * number and no ISO-8601 with an offset, or out of range makes a {@code bad_timestamp} dead letter
 * naming the field and the value, in each decoder (JSON's fast path and Jackson's alike).
 */
class EventTimeDecodingTest {

    private static final int EVENTS = 2000;

    /** The preset's spec, its input's time read from {@code ts} in {@code unit}. */
    private static DecodeOptions timed(String preset, String unit, String extraInput)
            throws Exception {
        String text = untimed(preset);
        String spec =
                text.replaceFirst(
                        "\"input\": \\{",
                        "\"input\": {\"timestamp\": \"ts\", \"timestamp_unit\": \""
                                + unit
                                + "\","
                                + extraInput);
        return SpecCompiler.decodeOptions(
                SpecParser.parse(spec.getBytes(StandardCharsets.UTF_8), preset), 256);
    }

    /** The preset's text without its own event time (the click presets read {@code ts}). */
    private static String untimed(String preset) {
        String text = new String(Presets.named(preset).text(), StandardCharsets.UTF_8);
        String own = "\"timestamp\": \"ts\",";
        assertThat(text).contains(own);
        return text.replace(own, "");
    }

    private static RawChunk lines(List<String> lines) {
        byte[] b = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
        return new RawChunk(0, 0, b, b.length, -1);
    }

    private static byte[] datum(GenericRecord r) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(ClickEvents.AVRO_SCHEMA).write(r, e);
            e.flush();
            return out.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void everyFormatGivesEachRowItsEventsTime(@TempDir Path dir) throws Exception {
        ClickEvents generator = new ClickEvents(20261128, 0.01, -1);
        List<String> json = new ArrayList<>();
        List<String> csv = new ArrayList<>();
        List<byte[]> avro = new ArrayList<>();
        List<byte[]> protobuf = new ArrayList<>();
        long[] expected = new long[EVENTS];
        csv.add(ClickEvents.CSV_HEADER);
        for (int i = 0; i < EVENTS; i++) {
            ClickEvents.Event e = generator.next();
            expected[i] = e.ts();
            json.add(ClickEvents.json(e));
            csv.add(ClickEvents.csv(e));
            avro.add(datum(ClickEvents.avro(e)));
            protobuf.add(ClickEvents.protobuf(e).toByteArray());
        }
        assertThat(expected[EVENTS - 1]).isGreaterThan(expected[0]);

        DecodeOptions jsonOptions = timed("clicks-json", "ms", "");
        assertTimes(new JsonEventDecoder(jsonOptions, false).decode(lines(json), false), expected);
        assertTimes(
                new JsonEventDecoder(jsonOptions, false, false).decode(lines(json), false),
                expected);
        assertTimes(
                new CsvEventDecoder(timed("clicks-csv", "ms", ""), false).decode(lines(csv), false),
                expected);
        assertTimes(
                new AvroEventDecoder(timed("clicks-avro", "ms", ""), false)
                        .decode(DecodedBlocks.frames(avro), false),
                expected);
        Path desc = dir.resolve("clicks.desc");
        Files.write(desc, ClickEvents.descriptorSet());
        String protobufInput =
                "\"format\": \"protobuf\", \"descriptor\": \""
                        + desc
                        + "\", \"message\": \""
                        + ClickEvents.MESSAGE
                        + "\",";
        String jsonPreset =
                untimed("clicks-json")
                        .replace("\"format\": \"json\",", protobufInput)
                        .replace("\"input\": {", "\"input\": {\"timestamp\": \"ts\",");
        DecodeOptions protobufOptions =
                SpecCompiler.decodeOptions(
                        SpecParser.parse(jsonPreset.getBytes(StandardCharsets.UTF_8), "pb"), 256);
        assertTimes(
                new ProtobufEventDecoder(protobufOptions, false)
                        .decode(DecodedBlocks.frames(protobuf), false),
                expected);
    }

    private static void assertTimes(CriteoDecoder.Decoded d, long[] expected) {
        assertThat(d.dense().deadLetters()).isEmpty();
        assertThat(d.dense().rows()).isEqualTo(expected.length);
        assertThat(d.dense().eventTimes()).containsExactly(expected);
    }

    @Test
    void eachFormOfTimeReadsToItsMillisecond() throws Exception {
        List<String> events =
                List.of(
                        event("1795766400123"),
                        event("\"2026-11-27T08:00:00.123Z\""),
                        event("\"2026-11-27T09:00:00.123+01:00\""),
                        event("\"1795766400123\""),
                        event("1795766400122.6"));
        long[] ms = new long[events.size()];
        Arrays.fill(ms, 1_795_766_400_123L);
        DecodeOptions options = timed("clicks-json", "ms", "");
        assertTimes(new JsonEventDecoder(options, false).decode(lines(events), false), ms);
        assertTimes(new JsonEventDecoder(options, false, false).decode(lines(events), false), ms);
        DecodeOptions seconds = timed("clicks-json", "s", "");
        assertTimes(
                new JsonEventDecoder(seconds, false)
                        .decode(lines(List.of(event("1795766400.123"))), false),
                new long[] {1_795_766_400_123L});
        DecodeOptions micros = timed("clicks-json", "us", "");
        assertTimes(
                new JsonEventDecoder(micros, false)
                        .decode(lines(List.of(event("1795766400123999"))), false),
                new long[] {1_795_766_400_123L});
    }

    /** A click event whose {@code ts} is {@code ts} (JSON text), or absent when null. */
    private static String event(String ts) {
        return (ts == null ? "{" : "{\"ts\": " + ts + ", ")
                + "\"clicked\": true, \"user\": {\"id\": \"u_1\", \"country\": \"DE\", \"age\":"
                + " 30}, \"item_id\": \"i_2\", \"category\": \"c_3\", \"price_cents\": 250,"
                + " \"position\": 1, \"device\": \"web\", \"recent_items\": [\"i_7\"]}";
    }

    @Test
    void aBadTimeIsADeadLetterNamingTheFieldAndTheValue() throws Exception {
        List<String> events =
                List.of(
                        event("1795766400123"),
                        event(null),
                        event("null"),
                        event("true"),
                        event("\"yesterday\""),
                        event("\"2026-11-27T08:00:00\""),
                        event("{\"s\": 1}"),
                        event("[1]"),
                        event("1e30"),
                        event("99999999999999999999"),
                        event("\"\""));
        List<String> expected =
                List.of(
                        "1 bad_timestamp: the event time (ts) is missing",
                        "2 bad_timestamp: the event time (ts) is missing",
                        "3 bad_timestamp: the event time (ts): a boolean where a time belongs",
                        "4 bad_timestamp: the event time (ts): \"yesterday\" is neither a count"
                                + " of ms nor ISO-8601 time with an offset (2026-11-27T08:00:00Z)",
                        "5 bad_timestamp: the event time (ts): \"2026-11-27T08:00:00\" is neither"
                                + " a count of ms nor ISO-8601 time with an offset"
                                + " (2026-11-27T08:00:00Z)",
                        "6 bad_timestamp: the event time (ts): a record, not a value",
                        "7 bad_timestamp: the event time (ts): an array where a time belongs",
                        "8 bad_timestamp: the event time (ts): 1e30 is out of range as ms",
                        "9 bad_timestamp: the event time (ts): 99999999999999999999 is out of"
                                + " range as ms",
                        "10 bad_timestamp: the event time (ts) is missing");
        DecodeOptions options = timed("clicks-json", "ms", "");
        for (boolean fast : new boolean[] {true, false}) {
            CriteoDecoder.Decoded d =
                    new JsonEventDecoder(options, false, fast).decode(lines(events), false);
            assertThat(d.dense().rows()).isEqualTo(1);
            assertThat(d.dense().eventTimes()).containsExactly(1_795_766_400_123L);
            assertThat(letters(d)).as("fast path %s", fast).isEqualTo(expected);
        }
    }

    @Test
    void aBadCsvTimeIsADeadLetterToo() throws Exception {
        List<String> lines = new ArrayList<>();
        lines.add(ClickEvents.CSV_HEADER);
        String rest = ",1,u_1,DE,30,i_2,c_3,250,1,web,i_7";
        lines.add("1795766400123" + rest);
        lines.add(rest);
        lines.add("\"2026-11-27T08:00:00.123Z\"" + rest);
        lines.add("soon" + rest);
        lines.add("1795766400123,x,u_1,DE,30,i_2,c_3,250,1,web,i_7"); // the text decoder's
        CriteoDecoder.Decoded d =
                new CsvEventDecoder(timed("clicks-csv", "ms", ""), false)
                        .decode(lines(lines), false);
        assertThat(d.dense().eventTimes()).containsExactly(1_795_766_400_123L, 1_795_766_400_123L);
        assertThat(letters(d))
                .containsExactly(
                        "1 bad_timestamp: the event time (ts) is missing",
                        "3 bad_timestamp: the event time (ts): \"soon\" is neither a count of ms"
                                + " nor ISO-8601 time with an offset (2026-11-27T08:00:00Z)",
                        "4 label_not_int32: label (clicked): \"x\" is not a 32-bit integer");
    }

    private static List<String> letters(CriteoDecoder.Decoded d) {
        List<String> out = new ArrayList<>();
        for (DeadLetter x : d.dense().deadLetters()) {
            out.add(x.lineInBlock() + " " + x.reason() + ": " + x.detail());
        }
        return out;
    }
}
