package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code consume}'s replay of an evicting column's assignment records into {@code rows.bin}'s rows:
 * records before or after their block's rows, and the orders {@code rows.bin} cannot hold.
 */
class EvictingVocabulariesTest {

    @TempDir Path dir;

    private long offset;

    /** C1 in epoch 0, with 2 OOV buckets. */
    private static final long C1 = 0;

    private EvictingVocabularies vocab;

    @BeforeEach
    void create() {
        vocab = new EvictingVocabularies(key -> "C1", key -> dir.resolve("C1.tsv"));
    }

    /** A rows record of {@code rows} rows (label, C1) of a block, its assignments before it. */
    private RowsRecord rows(int partition, long block, int rows, long before) {
        RecordHeaders h = new RecordHeaders();
        h.add(RowsRecord.FORMAT, ascii("piper-dlrm-criteo"));
        h.add(RowsRecord.FORMAT_VERSION, ascii(1));
        h.add(RowsRecord.RECORD_VERSION, ascii(2));
        h.add(RowsRecord.ROW_COLUMNS, ascii("label,C1"));
        h.add(RowsRecord.PIPELINE, ascii("p/1"));
        h.add(RowsRecord.EPOCHS, ascii(0));
        h.add(RowsRecord.ROWS, ascii(rows));
        h.add(RowsRecord.LINES, ascii(rows));
        h.add(RowsRecord.DEAD_LETTERS, ascii(0));
        h.add(StreamFormat.INPUT_TOPIC, ascii("clicks"));
        h.add(StreamFormat.INPUT_PARTITION, ascii(partition));
        h.add(StreamFormat.BLOCK, ascii(block));
        h.add(RowsRecord.ASSIGNMENTS, ascii(before));
        h.add(RowsRecord.BLOCK_ASSIGNMENTS, ascii(0));
        h.add(StreamFormat.EVICT, ascii("lfu"));
        h.add(StreamFormat.OOV_BUCKETS, ascii(2));
        return RowsRecord.of(record("rows", new byte[rows * 8], h));
    }

    /** C1's assignment record of a block: lines {@code index, key, row, evicted}. */
    private ConsumerRecord<byte[], byte[]> assignments(
            int partition, long block, long first, String... lines) {
        RecordHeaders h = new RecordHeaders();
        h.add(StreamFormat.COLUMN, ascii("C1"));
        h.add(StreamFormat.EPOCH, ascii(0));
        h.add(StreamFormat.EVICT, ascii("lfu"));
        h.add(StreamFormat.FIRST_ASSIGNMENT, ascii(first));
        h.add(StreamFormat.COUNT, ascii(lines.length));
        h.add(StreamFormat.INPUT_PARTITION, ascii(partition));
        h.add(StreamFormat.BLOCK, ascii(block));
        h.add(StreamFormat.OOV_BUCKETS, ascii(2));
        StringBuilder text = new StringBuilder();
        for (String line : lines) {
            text.append(line.replace(' ', '\t')).append('\n');
        }
        return record("vocab", text.toString().getBytes(StandardCharsets.UTF_8), h);
    }

    private ConsumerRecord<byte[], byte[]> record(String topic, byte[] value, RecordHeaders h) {
        return new ConsumerRecord<>(
                topic,
                0,
                offset++,
                0L,
                TimestampType.CREATE_TIME,
                0,
                value.length,
                new byte[0],
                value,
                h,
                Optional.empty());
    }

    private static byte[] ascii(Object v) {
        return String.valueOf(v).getBytes(StandardCharsets.US_ASCII);
    }

    private void add(ConsumerRecord<byte[], byte[]> r) throws Exception {
        vocab.add(r, C1, 2);
    }

    @Test
    void assignmentsLandAtTheirBlocksRowsWhicheverComesFirst() throws Exception {
        add(assignments(0, 0, 0, "2 10 0 ", "3 11 4 "));
        assertThat(vocab.complete()).isTrue(); // no block written waits for anything
        vocab.blockWritten(rows(0, 0, 5, 0), 0, new long[] {C1});
        vocab.blockWritten(rows(0, 1, 5, 2), 5, new long[] {C1});
        assertThat(vocab.complete()).as("block 1 says 2 assignments came before it").isTrue();
        vocab.blockWritten(rows(0, 2, 5, 2), 10, new long[] {C1});
        assertThat(vocab.held(C1)).isEqualTo(2);
        // block 2's assignments, evicting key 10 at its row 3; announced after its rows were read
        vocab.blockWritten(rows(0, 3, 5, 3), 15, new long[] {C1});
        assertThat(vocab.complete()).as("block 3 follows 3 assignments, 2 replayed").isFalse();
        add(assignments(0, 2, 2, "2 12 3 10"));
        assertThat(vocab.complete()).isTrue();
        vocab.finish();

        assertThat(Files.readString(dir.resolve("C1.assignments.tsv")))
                .isEqualTo("0\t2\t10\t\n4\t3\t11\t\n13\t2\t12\t10\n");
        assertThat(Files.readString(dir.resolve("C1.tsv"))).isEqualTo("2\t12\n3\t11\n");
    }

    /**
     * Assignments of a string column carry each key's string as a fifth field: the assignments file
     * keeps it, and the final map names each index by the string of the key it then holds.
     */
    @Test
    void aStringColumnsAssignmentsNameTheirKeys() throws Exception {
        add(assignments(0, 0, 0, "2 10 0  u_1", "3 11 4  u\\t2"));
        vocab.blockWritten(rows(0, 0, 5, 0), 0, new long[] {C1});
        vocab.blockWritten(rows(0, 1, 5, 2), 5, new long[] {C1});
        vocab.blockWritten(rows(0, 2, 5, 2), 10, new long[] {C1});
        vocab.blockWritten(rows(0, 3, 5, 3), 15, new long[] {C1});
        add(assignments(0, 2, 2, "2 12 3 10 ü"));
        vocab.finish();
        assertThat(Files.readString(dir.resolve("C1.assignments.tsv")))
                .isEqualTo("0\t2\t10\t\tu_1\n4\t3\t11\t\tu\\t2\n13\t2\t12\t10\tü\n");
        assertThat(Files.readString(dir.resolve("C1.tsv"))).isEqualTo("2\t12\tü\n3\t11\tu\\t2\n");
    }

    @Test
    void aBlockTheVocabularyAppliedEarlierThanRowsBinHoldsItFailsByName() throws Exception {
        // the vocabulary applied partition 1's block 0 (assignments 0, 1) before partition 0's
        add(assignments(1, 0, 0, "2 10 0 ", "3 11 1 "));
        vocab.blockWritten(rows(0, 0, 5, 2), 0, new long[] {C1});
        assertThatThrownBy(() -> vocab.blockWritten(rows(1, 0, 5, 0), 5, new long[] {C1}))
                .hasMessageContaining("C1: its vocabulary applied block 0 of input partition 1")
                .hasMessageContaining("after 0 assignments");
    }

    @Test
    void aBlockWithoutAssignmentsAppliedBeforeOneWithThemButWrittenAfterItFails() throws Exception {
        // both follow no assignment, so the vocabulary applied partition 1's block (which assigns
        // nothing) first: rows.bin holding it after partition 0's block gives its rows key 10
        vocab.blockWritten(rows(0, 0, 5, 0), 0, new long[] {C1});
        vocab.blockWritten(rows(1, 0, 5, 0), 5, new long[] {C1});
        assertThatThrownBy(() -> add(assignments(0, 0, 0, "2 10 0 ")))
                .hasMessageContaining("block 0 of input partition 1")
                .hasMessageContaining("after 0 assignments");
    }

    @Test
    void aReplayedAssignmentThatContradictsTheKeysHeldFails() throws Exception {
        vocab.blockWritten(rows(0, 0, 5, 0), 0, new long[] {C1});
        add(assignments(0, 0, 0, "2 10 0 "));
        vocab.blockWritten(rows(0, 1, 5, 1), 5, new long[] {C1});
        assertThatThrownBy(() -> add(assignments(0, 1, 1, "2 12 0 99")))
                .hasMessageContaining("vocab/0@")
                .hasMessageContaining(
                        "C1: assignment 1 evicts key 99 from index 2, which holds key 10");
        assertThatThrownBy(() -> add(assignments(0, 1, 0, "3 10 0 ")))
                .hasMessageContaining("C1 assignments from 0 seen twice");
    }

    @Test
    void anAssignmentThatNeverArrivedFailsTheFinish() throws Exception {
        vocab.blockWritten(rows(0, 0, 5, 0), 0, new long[] {C1});
        vocab.blockWritten(rows(0, 1, 5, 1), 5, new long[] {C1});
        add(assignments(0, 1, 1, "3 11 0 "));
        assertThat(vocab.complete()).isFalse();
        assertThatThrownBy(vocab::finish)
                .hasMessageContaining("C1: assignments from 0 never arrived");
    }
}
