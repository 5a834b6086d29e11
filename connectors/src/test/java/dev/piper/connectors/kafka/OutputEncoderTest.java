package dev.piper.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.Assignments;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.Origin;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.RowsRecordFormat;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

class OutputEncoderTest {

    /**
     * Partition 3, records at offsets 40 (one line), 41 (three lines, the second rejected), 44 (one
     * line, rejected): 5 lines, 3 rows, 2 dead letters; C2 grew by two keys, C26 by one.
     */
    private static AssembledBlock block() {
        return block(1, new int[26]);
    }

    private static AssembledBlock block(int version, int[] epochs) {
        long[][] newKeys = new long[26][0];
        int[] firstNew = new int[26];
        newKeys[1] = new long[] {7, -1L};
        firstNew[1] = 10;
        newKeys[25] = new long[] {255};
        DeadLetter[] dead = {
            new DeadLetter(2, 0, "dense_not_int32", "I1: \"x\"", "x".getBytes(), false),
            new DeadLetter(4, 0, "empty_line", "the line is empty", new byte[0], false)
        };
        Origin origin = new Origin(new long[] {40, 41, 44}, new int[] {0, 1, 4}, 1000, 1002);
        return AssembledBlock.builder()
                .lane(3)
                .seq(12)
                .lines(5)
                .rows(3)
                .rowBytes(new byte[480])
                .deadLetters(dead)
                .newKeys(firstNew, newKeys)
                .origin(origin)
                .version(version)
                .epochs(epochs)
                .build();
    }

    private static List<KafkaOut> encode(boolean vocab) {
        return encode(vocab, block());
    }

    private static List<KafkaOut> encode(boolean vocab, AssembledBlock block) {
        return encode(new OutputEncoder("clicks", vocab, DecodeOptions.defaults()), block);
    }

    private static List<KafkaOut> encode(OutputEncoder encoder, AssembledBlock block) {
        List<KafkaOut> out = new ArrayList<>();
        encoder.flatMap(
                block,
                new Collector<>() {
                    @Override
                    public void collect(KafkaOut record) {
                        out.add(record);
                    }

                    @Override
                    public void close() {}
                });
        return out;
    }

    private static Map<String, String> headers(KafkaOut r) {
        Map<String, String> h = new LinkedHashMap<>();
        for (int i = 0; i < r.headerNames().length; i++) {
            h.put(r.headerNames()[i], new String(r.headerValues()[i], StandardCharsets.US_ASCII));
        }
        return h;
    }

    /**
     * A string column's entries carry their original strings as a third field, escaped (a tab as
     * {@code \\t}); an entry without one (the fill id) has two fields.
     */
    @Test
    void vocabularyRecordsOfStringColumnsCarryTheStrings() {
        String[][] names = new String[26][];
        names[1] = new String[] {"u_9f3c", null};
        names[25] = new String[] {"a\tb ü"};
        List<KafkaOut> out = encode(true, block().withNewNames(names));
        List<KafkaOut> vocab = out.stream().filter(r -> r.target() == KafkaOut.VOCAB).toList();
        assertThat(new String(vocab.get(0).value(), StandardCharsets.UTF_8))
                .isEqualTo("10\t7\tu_9f3c\n11\t18446744073709551615\n");
        assertThat(new String(vocab.get(1).value(), StandardCharsets.UTF_8))
                .isEqualTo("0\t255\ta\\tb ü\n");
    }

    @Test
    void rowsRecordCarriesTheBlockAndItsProvenance() {
        KafkaOut rows = encode(false).get(0);
        assertThat(rows.target()).isEqualTo(KafkaOut.ROWS);
        assertThat(rows.key()).containsExactly(0, 0, 0, 3);
        assertThat(rows.value()).hasSize(480);
        assertThat(headers(rows))
                .containsEntry("piper.format", "piper-dlrm-criteo")
                .containsEntry("piper.format.version", "1")
                .containsEntry("piper.pipeline", "dlrm-criteo/1")
                .containsEntry(
                        "piper.pipeline.params",
                        "max_ind_range=-1;pad_missing_fields=false;max_line_bytes=65536;max_raw_bytes=1024;chains="
                                + DecodeOptions.defaults().program().fingerprint())
                .containsEntry(
                        "piper.epochs", "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")
                .containsEntry("piper.rows", "3")
                .containsEntry("piper.lines", "5")
                .containsEntry("piper.dead.letters", "2")
                .containsEntry("piper.block", "12")
                .containsEntry("piper.input.topic", "clicks")
                .containsEntry("piper.input.partition", "3")
                .containsEntry("piper.input.offsets", "40-44")
                .containsEntry("piper.input.timestamps", "1000-1002");
    }

    @Test
    void deadLettersNameTheirRecordAndLine() throws Exception {
        List<KafkaOut> out = encode(false);
        assertThat(out).extracting(KafkaOut::target).containsExactly(0, 1, 1);
        ObjectMapper json = new ObjectMapper();
        JsonNode first = json.readTree(out.get(1).value());
        assertThat(first.get("topic").asText()).isEqualTo("clicks");
        assertThat(first.get("partition").asInt()).isEqualTo(3);
        assertThat(first.get("offset").asLong()).isEqualTo(41);
        assertThat(first.get("line_in_record").asInt()).isEqualTo(1);
        assertThat(first.get("reason").asText()).isEqualTo("dense_not_int32");
        assertThat(first.get("raw").asText()).isEqualTo("x");
        JsonNode second = json.readTree(out.get(2).value());
        assertThat(second.get("offset").asLong()).isEqualTo(44);
        assertThat(second.get("line_in_record").asInt()).isZero();
    }

    @Test
    void vocabularyRecordsListTheNewEntriesOfEachColumn() {
        List<KafkaOut> out = encode(true);
        List<KafkaOut> vocab = out.stream().filter(r -> r.target() == KafkaOut.VOCAB).toList();
        assertThat(vocab).hasSize(2);
        assertThat(new String(vocab.get(0).key(), StandardCharsets.US_ASCII)).isEqualTo("C2");
        assertThat(new String(vocab.get(0).value(), StandardCharsets.US_ASCII))
                .isEqualTo("10\t7\n11\t18446744073709551615\n");
        assertThat(headers(vocab.get(0)))
                .containsEntry("piper.column", "C2")
                .containsEntry("piper.epoch", "0")
                .containsEntry("piper.first.index", "10")
                .containsEntry("piper.count", "2");
        assertThat(new String(vocab.get(1).value(), StandardCharsets.US_ASCII))
                .isEqualTo("0\t255\n");
        // the rows record states each column's position once the block was applied: C2 had 10
        // entries and added 2, C26 added its first
        assertThat(headers(out.get(0)))
                .containsEntry("piper.vocab.position", "0,12" + ",0".repeat(23) + ",1");
        assertThat(headers(encode(false).get(0))).doesNotContainKey("piper.vocab.position");
    }

    /**
     * A block decoded under a spec received at run time: its version and epochs are in the headers,
     * the starting spec's parameters are not, the OOV buckets are its version's (C2 got 2 in epoch
     * 2), and vocabulary records name their epoch and its buckets. A version the encoder has not
     * learnt is refused by name.
     */
    @Test
    void aSwitchedBlockNamesItsVersionAndEpochs() throws Exception {
        int[] epochs = new int[26];
        epochs[1] = 2;
        OutputEncoder encoder = new OutputEncoder("clicks", true, DecodeOptions.defaults());
        assertThatThrownBy(() -> encode(encoder, block(3, epochs)))
                .hasMessageContaining("decoded under version 3 of pipeline dlrm-criteo/");
        String v3 =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace("\"version\": 1", "\"version\": 3")
                        .replace(
                                "\"C1..C26\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " \"vocab\"]",
                                "\"C1\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"],"
                                        + " \"C2\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " {\"op\": \"vocab\", \"oov_buckets\": 2}],"
                                        + " \"C3..C26\": [\"decode\", \"fill_missing\","
                                        + " \"hex2int\", \"vocab\"]");
        encoder.learn(0, SpecCompiler.program(SpecParser.parse(v3.getBytes(), "v3"), epochs));
        assertThat(encoder.knows(0, 3)).isTrue();
        List<KafkaOut> out = encode(encoder, block(3, epochs));
        assertThat(headers(out.get(0)))
                .containsEntry("piper.pipeline", "dlrm-criteo/3")
                .containsEntry(
                        "piper.epochs", "0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")
                .containsEntry(
                        "piper.oov.buckets", "0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")
                .doesNotContainKey("piper.pipeline.params");
        List<KafkaOut> vocab = out.stream().filter(r -> r.target() == KafkaOut.VOCAB).toList();
        assertThat(headers(vocab.get(0)))
                .containsEntry("piper.epoch", "2")
                .containsEntry("piper.oov.buckets", "2");
        assertThat(headers(vocab.get(1))).containsEntry("piper.epoch", "0");
    }

    /**
     * A column whose chain ends with bucketize holds bucket numbers: the rows record names it and
     * its number of buckets (borders [1, 10, 100]: 4), so a trainer can size its table.
     */
    @Test
    void aBucketizedColumnIsNamedWithItsNumberOfBuckets() throws Exception {
        String v3 =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace("\"version\": 1", "\"version\": 3")
                        .replace(
                                "\"I1..I13\": [\"decode\", \"fill_missing\", \"neg2zero\"]",
                                "\"I1\": [\"decode\", \"fill_missing\", \"neg2zero\"],"
                                        + " \"I2\": [\"decode\", \"fill_missing\", \"neg2zero\","
                                        + " {\"op\": \"bucketize\", \"borders\": [1, 10, 100]}],"
                                        + " \"I3..I13\": [\"decode\", \"fill_missing\","
                                        + " \"neg2zero\"]");
        assertThat(v3).contains("bucketize");
        OutputEncoder encoder = new OutputEncoder("clicks", true, DecodeOptions.defaults());
        encoder.learn(0, SpecCompiler.program(SpecParser.parse(v3.getBytes(), "v3"), new int[26]));
        Map<String, String> h = headers(encode(encoder, block(3, new int[26])).get(0));
        assertThat(h)
                .containsEntry(RowsRecord.BUCKETIZED_COLUMNS, "I2")
                .containsEntry(RowsRecord.BUCKETIZED_BUCKETS, "4");
        RowsRecordFormat.DESCRIBED.check(h, 2, "block 3");
        assertThat(headers(encode(encoder, block()).get(0)))
                .doesNotContainKey(RowsRecord.BUCKETIZED_COLUMNS);
    }

    /**
     * An encoder that knows version 3 of the built-in spec, in which C2 has 2 OOV buckets and
     * evicts (capacity 2, LFU).
     */
    private static OutputEncoder evictingEncoder() throws Exception {
        String v3 =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace("\"version\": 1", "\"version\": 3")
                        .replace(
                                "\"C1..C26\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " \"vocab\"]",
                                "\"C1\": [\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"],"
                                        + " \"C2\": [\"decode\", \"fill_missing\", \"hex2int\","
                                        + " {\"op\": \"vocab\", \"oov_buckets\": 2, \"capacity\": 2,"
                                        + " \"evict\": \"lfu\"}],"
                                        + " \"C3..C26\": [\"decode\", \"fill_missing\","
                                        + " \"hex2int\", \"vocab\"]");
        OutputEncoder encoder = new OutputEncoder("clicks", true, DecodeOptions.defaults());
        encoder.learn(0, SpecCompiler.program(SpecParser.parse(v3.getBytes(), "v3"), new int[26]));
        return encoder;
    }

    /**
     * An evicting column's vocabulary record lists its block's assignments (index, key, row,
     * evicted key), names its first assignment, input partition and block, and the rows record
     * states per column the assignments before the block.
     */
    @Test
    void anEvictingColumnAnnouncesItsAssignmentsWithTheirRows() throws Exception {
        OutputEncoder encoder = evictingEncoder();
        Assignments[] assignments = new Assignments[26];
        // index 3 to key 7 at row 0 (fresh), then index 2 to key 2^64-1 at row 2, evicting key 9
        assignments[1] =
                new Assignments(
                        41,
                        1,
                        new int[] {3, 2},
                        new long[] {7, -1L},
                        new int[] {0, 2},
                        new long[] {9});
        AssembledBlock block = block(3, new int[26]).withAssignments(assignments);
        List<KafkaOut> out = encode(encoder, block);
        assertThat(headers(out.get(0)))
                .containsEntry(
                        "piper.assignments", "0,41,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")
                .containsEntry("piper.block.assignments", "0,2" + ",0".repeat(24))
                .containsEntry("piper.evict", ",lfu" + ",".repeat(24))
                .containsEntry("piper.vocab.position", "0,43" + ",0".repeat(23) + ",1");
        List<KafkaOut> vocab = out.stream().filter(r -> r.target() == KafkaOut.VOCAB).toList();
        assertThat(vocab).hasSize(2);
        assertThat(new String(vocab.get(0).value(), StandardCharsets.US_ASCII))
                .isEqualTo("3\t7\t0\t\n2\t18446744073709551615\t2\t9\n");
        assertThat(headers(vocab.get(0)))
                .containsEntry("piper.column", "C2")
                .containsEntry("piper.evict", "lfu")
                .containsEntry("piper.first.assignment", "41")
                .containsEntry("piper.count", "2")
                .containsEntry("piper.input.partition", "3")
                .containsEntry("piper.block", "12")
                .containsEntry("piper.oov.buckets", "2")
                .doesNotContainKey("piper.first.index");
        assertThat(headers(vocab.get(1))).containsEntry("piper.column", "C26");
    }

    /** A block's event times end the rows record's value, as the header says. */
    @Test
    void eventTimesEndTheValue() {
        KafkaOut rows = encode(false, block().withEventTimes(new long[] {5, -6, 7})).get(0);
        assertThat(headers(rows)).containsEntry("piper.event.times", "ms");
        java.nio.ByteBuffer v =
                java.nio.ByteBuffer.wrap(rows.value()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertThat(rows.value()).hasSize(480 + 3 * 8);
        assertThat(v.getLong(480)).isEqualTo(5);
        assertThat(v.getLong(488)).isEqualTo(-6);
        assertThat(v.getLong(496)).isEqualTo(7);
        assertThat(headers(encode(false, block()).get(0))).doesNotContainKey("piper.event.times");
    }

    /**
     * Issue 41: the writer against {@code formats/rows-record.json}. Rows records of a plain block,
     * of a switched spec with OOV buckets, of an evicting column and with Hotline's split carry
     * only described headers, every one that is always there, and values of their types and counts;
     * together they carry every described header but those of list, float32 and bucketized columns
     * ({@code aBucketizedColumnIsNamedWithItsNumberOfBuckets}; the others written by the list and
     * float32 layouts of {@code StreamLayoutsITCase}, whose reader checks them against the same
     * description).
     */
    @Test
    void everyRowsRecordIsAsDescribed() throws Exception {
        OutputEncoder encoder = evictingEncoder();
        Assignments[] assignments = new Assignments[26];
        assignments[1] =
                new Assignments(41, 1, new int[] {3}, new long[] {7}, new int[] {0}, new long[0]);
        int[][] working = new int[26][0];
        working[0] = new int[] {4};
        AssembledBlock[] blocks = {
            block(),
            block(3, new int[26]),
            block(3, new int[26]).withAssignments(assignments),
            block().withSplit(
                            new dev.piper.pipeline.hotline.Split(
                                    100, new byte[] {1, 0, 0}, 1, working, List.of())),
            block().withEventTimes(new long[] {5, -6, 7})
        };
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (AssembledBlock b : blocks) {
            KafkaOut rows = encode(encoder, b).get(0);
            Map<String, String> h = headers(rows);
            assertThat(RowsRecordFormat.DESCRIBED.headers())
                    .containsKeys(h.keySet().toArray(String[]::new));
            RowsRecordFormat.DESCRIBED.check(
                    h, Integer.parseInt(h.get(RowsRecord.RECORD_VERSION)), "block " + b.seq());
            seen.addAll(h.keySet());
        }
        java.util.Set<String> unseen =
                new java.util.HashSet<>(RowsRecordFormat.DESCRIBED.headers().keySet());
        unseen.removeAll(seen);
        assertThat(unseen)
                .containsExactlyInAnyOrder(
                        RowsRecord.LIST_COLUMNS,
                        RowsRecord.LIST_VALUES,
                        RowsRecord.FLOAT32_COLUMNS,
                        RowsRecord.BUCKETIZED_COLUMNS,
                        RowsRecord.BUCKETIZED_BUCKETS,
                        RowsRecord.CHECKPOINT); // CheckpointStamp's, after the encoder
    }
}
