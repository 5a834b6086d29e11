package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The Java reader against {@code formats/rows-record.json}: a record with every described header
 * reads; for each described header, a record without it (where it is always there), with it alone
 * of its group, or with a value not of its type, is refused naming it. The Python reader runs the
 * same iteration ({@code clients/python/tests/test_records.py}); the writer is checked in {@code
 * connectors}' {@code OutputEncoderTest.everyRowsRecordIsAsDescribed}.
 */
public class RowsRecordFormatTest {

    private static final RowsRecordFormat FORMAT = RowsRecordFormat.DESCRIBED;

    /**
     * Every described header, valid, for a record of format 3 of 2 rows of {@code label,I1,C1,C3}
     * with list column C2 (3 values) and Hotline's split: C1..C3 are its sparse columns.
     */
    public static Map<String, String> everyHeader() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put(RowsRecord.FORMAT, "piper-dlrm-criteo");
        h.put(RowsRecord.FORMAT_VERSION, "1");
        h.put(RowsRecord.RECORD_VERSION, "3");
        h.put(RowsRecord.ROW_COLUMNS, "label,I1,C1,C3");
        h.put(RowsRecord.FLOAT32_COLUMNS, "I1");
        h.put(RowsRecord.BUCKETIZED_COLUMNS, "label");
        h.put(RowsRecord.BUCKETIZED_BUCKETS, "2");
        h.put(RowsRecord.PIPELINE, "p/1");
        h.put(RowsRecord.PIPELINE_PARAMS, "chains=abc");
        h.put(RowsRecord.EPOCHS, "0,1,0");
        h.put(StreamFormat.OOV_BUCKETS, "0,0,2");
        h.put(RowsRecord.ASSIGNMENTS, "5,0,7");
        h.put(RowsRecord.BLOCK_ASSIGNMENTS, "0,0,1");
        h.put(StreamFormat.EVICT, ",,lfu");
        h.put(RowsRecord.VOCAB_POSITION, "6,2,8");
        h.put(RowsRecord.ROWS, "2");
        h.put(RowsRecord.LINES, "3");
        h.put(RowsRecord.DEAD_LETTERS, "1");
        h.put(StreamFormat.BLOCK, "4");
        h.put(StreamFormat.INPUT_TOPIC, "clicks");
        h.put(StreamFormat.INPUT_PARTITION, "0");
        h.put(RowsRecord.INPUT_OFFSETS, "10-12");
        h.put(RowsRecord.INPUT_TIMESTAMPS, "1000-1002");
        h.put(RowsRecord.CHECKPOINT, "7");
        h.put(StreamFormat.HOTLINE_FIRST_ROW, "40");
        h.put(RowsRecord.HOTLINE_POPULAR, "1");
        h.put(RowsRecord.HOTLINE_WORKING, "1,0,0");
        h.put(RowsRecord.LIST_COLUMNS, "C2");
        h.put(RowsRecord.LIST_VALUES, "3");
        h.put(RowsRecord.EVENT_TIMES, "ms");
        return h;
    }

    /**
     * The value {@link #everyHeader()} describes: rows, C2's lengths and values, the split, the
     * event times.
     */
    private static byte[] value() {
        java.nio.ByteBuffer b =
                java.nio.ByteBuffer.allocate((2 * 4 + 2 + 3 + 1) * 4 + 2 + 2 * 8)
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(1).putFloat(0.5f).putInt(3).putInt(2); // row 0: label, I1, C1, C3
        b.putInt(0).putFloat(1.5f).putInt(4).putInt(0); // row 1
        b.putInt(2).putInt(1); // C2's lengths
        b.putInt(6).putInt(7).putInt(8); // C2's values
        b.putInt(4); // C1's working parameter
        b.put((byte) 1).put((byte) 0); // row 0 popular
        b.putLong(1_795_766_400_123L).putLong(-1L); // the rows' event times
        return b.array();
    }

    static ConsumerRecord<byte[], byte[]> record(Map<String, String> headers) {
        RecordHeaders h = new RecordHeaders();
        headers.forEach((k, v) -> h.add(k, v.getBytes(StandardCharsets.US_ASCII)));
        return new ConsumerRecord<>(
                "rows",
                0,
                9,
                0L,
                TimestampType.CREATE_TIME,
                0,
                value().length,
                new byte[0],
                value(),
                h,
                java.util.Optional.empty());
    }

    @Test
    void everyDescribedHeaderIsANamedConstantAndTheFullRecordReads() throws Exception {
        Set<String> names = new HashSet<>();
        for (Class<?> named : List.of(RowsRecord.class, StreamFormat.class)) {
            for (Field f : named.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                    names.add((String) f.get(null));
                }
            }
        }
        assertThat(names).containsAll(FORMAT.headers().keySet());
        assertThat(everyHeader().keySet())
                .containsExactlyInAnyOrderElementsOf(FORMAT.headers().keySet());
        RowsRecord read = RowsRecord.of(record(everyHeader()));
        assertThat(read.rows()).isEqualTo(2);
        assertThat(read.listValues()[0]).containsExactly(6, 7, 8);
        assertThat(read.popular()).containsExactly(1, 0);
        assertThat(read.inputOffsets()).containsExactly(10, 12);
        assertThat(read.eventTimes()).containsExactly(1_795_766_400_123L, -1L);
        assertThat(read.vocabPosition()).containsExactly(6, 2, 8);
    }

    @Test
    void eventTimesOfAnotherUnitOrAShortValueAreRefused() {
        Map<String, String> headers = everyHeader();
        headers.put(RowsRecord.EVENT_TIMES, "s");
        assertThatThrownBy(() -> RowsRecord.of(record(headers)))
                .hasMessage(
                        "rows/0@9: header piper.event.times \"s\": event times in ms are read, no"
                                + " other unit");
        Map<String, String> without = everyHeader();
        without.remove(RowsRecord.EVENT_TIMES); // the value still ends with them: too long
        assertThatThrownBy(() -> RowsRecord.of(record(without)))
                .hasMessageContaining("take 58 bytes, the value has 74");
    }

    @Test
    void aColumnNumberPastAnyLayoutIsRefusedNamingTheColumns() {
        for (String column : List.of("C99999999999", "C4294967297", "C3000000000000000000000")) {
            Map<String, String> headers = everyHeader();
            headers.put(RowsRecord.ROW_COLUMNS, "label,I1,C1," + column);
            assertThatThrownBy(() -> RowsRecord.of(record(headers)))
                    .as(column)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("rows/0@9: ")
                    .hasMessageContaining(column);
        }
    }

    @Test
    void aRecordWithoutAnAlwaysPresentHeaderIsRefusedNamingIt() {
        for (RowsRecordFormat.Header h : FORMAT.headers().values()) {
            if (!h.when().equals("always") || h.name().equals(RowsRecord.RECORD_VERSION)) {
                continue; // without piper.record.version a record is of format 1 (below)
            }
            Map<String, String> headers = everyHeader();
            headers.remove(h.name());
            assertThatThrownBy(() -> RowsRecord.of(record(headers)))
                    .as(h.name())
                    .hasMessageStartingWith("rows/0@9: ")
                    .hasMessageContaining("no " + h.name() + " header");
        }
    }

    @Test
    void aHeaderWithoutTheRestOfItsGroupIsRefusedNamingWhatIsMissing() {
        for (RowsRecordFormat.Header h : FORMAT.headers().values()) {
            var group = FORMAT.namesWhen(h.when());
            if (h.when().equals("always") || group.size() < 2) {
                continue;
            }
            Map<String, String> headers = everyHeader();
            group.stream().filter(n -> !n.equals(h.name())).forEach(headers::remove);
            assertThatThrownBy(() -> FORMAT.check(headers, 3, "rows/0@9"))
                    .as(h.name())
                    .hasMessageStartingWith("rows/0@9: header " + h.name() + " without ")
                    .hasMessageContaining("with " + h.when() + " a record has all of");
        }
    }

    @Test
    void aValueNotOfItsTypeIsRefusedNamingTheHeader() {
        for (RowsRecordFormat.Header h : FORMAT.headers().values()) {
            for (String bad : badValues(h)) {
                Map<String, String> headers = everyHeader();
                headers.put(h.name(), bad);
                assertThatThrownBy(() -> FORMAT.check(headers, 3, "rows/0@9"))
                        .as(h.name() + " = \"" + bad + "\"")
                        .hasMessageStartingWith("rows/0@9: header " + h.name() + " \"" + bad);
            }
        }
    }

    @Test
    void aHeaderOfALaterFormatIsRefusedAndFormat1NeedsOnlyItsRows() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(RowsRecord.ROWS, "0");
        FORMAT.check(headers, 1, "rows/0@9");
        headers.put(StreamFormat.HOTLINE_FIRST_ROW, "1");
        assertThatThrownBy(() -> FORMAT.check(headers, 1, "rows/0@9"))
                .hasMessageContaining(
                        "header piper.hotline.first.row in a record of format 1 (it belongs to"
                                + " format 3 and later)");
    }

    /** Values that header {@code h} must refuse, by its type. */
    static java.util.List<String> badValues(RowsRecordFormat.Header h) {
        return switch (h.type()) {
            case "text" -> java.util.List.of("");
            case "count" -> java.util.List.of("-1", "x", "2147483648", "");
            case "number" -> java.util.List.of("-1", "1.5", "9223372036854775808");
            case "counts", "numbers" -> {
                // everyHeader() has 3 sparse columns, 1 list column and 1 bucketized column
                int n = "lists".equals(h.count()) || "bucketized".equals(h.count()) ? 1 : 3;
                yield java.util.List.of(
                        "0,".repeat(n) + "0", "0,".repeat(n - 1) + "-1", "0,".repeat(n - 1) + "");
            }
            case "choices" -> java.util.List.of("lfu", ",,lru");
            case "names" -> java.util.List.of("", "label,,C1", "1x", "a,a");
            case "range" -> java.util.List.of("5", "5-3", "a-b", "-1-2");
            default -> throw new IllegalStateException("no bad values for type " + h.type());
        };
    }
}
