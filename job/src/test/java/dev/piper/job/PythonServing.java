package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.TestKafka;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The Python transform library ({@code clients/python/piper_feed/transform/}) on a stream's rows
 * records: each record's input records, at the snapshot of the record's own position, must answer
 * the record's rows, slot for slot (float32 slots as their bits), and its lists and dead letters.
 * All records go to one Python process ({@code --manifest}).
 */
final class PythonServing {

    private final Path dir;
    private final boolean framed;
    private final List<Expected> expected = new ArrayList<>();
    private final StringBuilder manifest = new StringBuilder();

    /** For input records that are lines (Criteo text, JSON events, CSV lines). */
    PythonServing(Path dir) throws Exception {
        this(dir, false);
    }

    /**
     * @param framed whether the input records are binary (Avro datums, Protobuf messages), sent as
     *     {@code piper serve} takes them: each a 4-byte big-endian length, then the record
     */
    PythonServing(Path dir, boolean framed) throws Exception {
        this.dir = Files.createDirectories(dir);
        this.framed = framed;
    }

    /**
     * What Python must answer for a request: rows of 4-byte slots (float32 slots as their bits),
     * {@code rowBytes} a row, list lengths and values per list column, and how many dead letters.
     */
    record Expected(
            String what,
            int rows,
            int deadLetters,
            byte[] slots,
            int rowBytes,
            int[] listColumns,
            int[][] listLengths,
            int[][] listValues) {

        /** Rows record {@code r} (parsed: {@code record}) itself: what the feed made. */
        static Expected fed(ConsumerRecord<byte[], byte[]> r, RowsRecord record) {
            return new Expected(
                    "python: " + r.topic() + "/" + r.partition() + "@" + r.offset(),
                    record.rows(),
                    Integer.parseInt(TestKafka.header(r, RowsRecord.DEAD_LETTERS)),
                    record.value(),
                    record.rowBytes(),
                    record.listColumns(),
                    record.listLengths(),
                    record.listValues());
        }

        /**
         * What the Java transform made of rows record {@code r}'s input records, {@code block}
         * (where it and the feed may differ: within a block that admitted or evicted keys).
         */
        static Expected served(
                ConsumerRecord<byte[], byte[]> r, RowsRecord record, AssembledBlock block) {
            int[] listColumns = record.listColumns();
            int[][] lengths = new int[listColumns.length][];
            int[][] values = new int[listColumns.length][];
            for (int l = 0; l < listColumns.length; l++) {
                lengths[l] = ServedRecords.listLengths(block, l);
                values[l] = ServedRecords.listValues(block, l);
            }
            return new Expected(
                    "python against java: " + r.topic() + "/" + r.partition() + "@" + r.offset(),
                    block.rows(),
                    block.deadLetters().length,
                    block.rowBytes(),
                    block.rows() == 0 ? 0 : block.rowBytes().length / block.rows(),
                    listColumns,
                    lengths,
                    values);
        }
    }

    /** Adds a request's expected answer, its input records and the snapshot to answer it at. */
    void add(Expected answer, List<byte[]> inputs, VocabularySnapshot at) throws Exception {
        int n = expected.size();
        expected.add(answer);
        Path snapshot = dir.resolve(n + ".snapshot");
        Path request = dir.resolve(n + ".request");
        at.write(snapshot);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] record : inputs) {
            if (framed) {
                body.writeBytes(ByteBuffer.allocate(4).putInt(record.length).array());
                body.writeBytes(record);
            } else {
                body.writeBytes(record);
                body.write('\n');
            }
        }
        Files.write(request, body.toByteArray());
        manifest.append(
                String.format(
                        "{\"snapshot\": \"%s\", \"request\": \"%s\", \"answer\": \"%s\"}%n",
                        snapshot, request, dir.resolve(n + ".answer")));
    }

    /** Runs the Python library over every record added and compares; returns the rows compared. */
    long check(String spec) throws Exception {
        Path specFile = Files.writeString(dir.resolve("spec.json"), spec);
        Path list = Files.writeString(dir.resolve("manifest.jsonl"), manifest);
        // a minute, and two seconds a rows record (a block of a preset's wide rows)
        run(
                dir.resolve("python.log"),
                null,
                Duration.ofSeconds(60 + 2L * expected.size()),
                "--spec",
                "" + specFile,
                "--manifest",
                "" + list);
        long rows = 0;
        ObjectMapper json = new ObjectMapper();
        for (int n = 0; n < expected.size(); n++) {
            rows += compare(expected.get(n), json.readTree(dir.resolve(n + ".answer").toFile()));
        }
        return rows;
    }

    /**
     * Runs {@code python3 -m piper_feed.transform} with {@code args}, which must exit 0 within
     * three minutes; its standard output goes to {@code out} (or with its errors to {@code log}).
     */
    static void transform(Path log, Path out, String... args) throws Exception {
        run(log, out, Duration.ofMinutes(3), args);
    }

    private static void run(Path log, Path out, Duration limit, String... args) throws Exception {
        ProcessBuilder pb =
                PythonClient.module("piper_feed.transform", List.of(args))
                        .redirectError(log.toFile())
                        .redirectOutput(out == null ? log.toFile() : out.toFile());
        if (out == null) {
            pb.redirectErrorStream(true);
        }
        PythonClient.assertEndsWell(pb.start(), "python3 -m piper_feed.transform", log, limit);
    }

    private static long compare(Expected expected, JsonNode answer) {
        String what = expected.what();
        JsonNode rows = answer.get("rows");
        assertThat(rows.size()).as(what).isEqualTo(expected.rows());
        assertThat(answer.get("dead_letters").size()).as(what).isEqualTo(expected.deadLetters());
        Set<String> floats = new HashSet<>();
        if (answer.has("float32_columns")) {
            answer.get("float32_columns").forEach(c -> floats.add(c.asText()));
        }
        JsonNode columns = answer.get("columns");
        boolean[] isFloat = new boolean[columns.size()];
        for (int slot = 0; slot < isFloat.length; slot++) {
            isFloat[slot] = floats.contains(columns.get(slot).asText());
        }
        ByteBuffer want = ByteBuffer.wrap(expected.slots()).order(ByteOrder.LITTLE_ENDIAN);
        for (int row = 0; row < expected.rows(); row++) {
            int base = row * expected.rowBytes();
            JsonNode slots = rows.get(row);
            for (int slot = 0; slot < isFloat.length; slot++) {
                JsonNode v = slots.get(slot);
                int bits =
                        isFloat[slot]
                                ? Float.floatToRawIntBits(
                                        v.isTextual()
                                                ? Float.parseFloat(v.asText())
                                                : (float) v.asDouble())
                                : v.asInt();
                if (bits != want.getInt(base + 4 * slot)) { // asserted only where it differs
                    assertThat(bits)
                            .as("%s: row %d %s", what, row, columns.get(slot))
                            .isEqualTo(want.getInt(base + 4 * slot));
                }
            }
        }
        for (int l = 0; l < expected.listColumns().length; l++) {
            JsonNode lists = answer.get("lists").get("C" + (expected.listColumns()[l] + 1));
            int[] lengths = new int[expected.rows()];
            int[] values = new int[expected.listValues()[l].length];
            int n = 0;
            for (int row = 0; row < expected.rows(); row++) {
                JsonNode list = lists.get(row);
                lengths[row] = list.size();
                for (int i = 0; i < list.size() && n < values.length; i++) {
                    values[n++] = list.get(i).asInt();
                }
            }
            assertThat(lengths)
                    .as("%s: list %d lengths", what, l)
                    .isEqualTo(expected.listLengths()[l]);
            assertThat(values).as("%s: list %d", what, l).isEqualTo(expected.listValues()[l]);
        }
        return expected.rows();
    }
}
