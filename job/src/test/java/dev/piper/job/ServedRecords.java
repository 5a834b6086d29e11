package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.serve.Transform;
import dev.piper.core.serve.VocabularyPosition;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.TestKafka;
import dev.piper.feed.TopicSnapshot;
import dev.piper.pipeline.ops.DecodeOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A stream's committed rows records beside the input records they were made of, and the serving
 * transform ({@link Transform}) of each record's input records ({@code piper.input.offsets}) at the
 * record's own vocabulary position ({@code piper.vocab.position}), cut from the vocabulary topic
 * ({@link TopicSnapshot.History}), compared with the record slot by slot.
 */
final class ServedRecords {

    /**
     * A stream's committed rows records, its input records by partition and offset, its options.
     */
    record Run(
            List<ConsumerRecord<byte[], byte[]>> rows,
            Map<Integer, Map<Long, byte[]>> inputs,
            DecodeOptions options,
            String vocabTopic) {

        /** Reads the committed records of a stream's input and rows topics. */
        static Run read(
                TestKafka kafka,
                String inputTopic,
                String rowsTopic,
                String vocabTopic,
                DecodeOptions options)
                throws Exception {
            Map<Integer, Map<Long, byte[]>> inputs = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : kafka.readCommitted(inputTopic)) {
                inputs.computeIfAbsent(r.partition(), p -> new HashMap<>())
                        .put(r.offset(), r.value());
            }
            return new Run(kafka.readCommitted(rowsTopic), inputs, options, vocabTopic);
        }

        /** The input records of rows record {@code r}, in offset order. */
        List<byte[]> inputsOf(RowsRecord r) {
            long[] offsets = r.inputOffsets();
            List<byte[]> records = new ArrayList<>();
            for (long o = offsets[0]; o <= offsets[1]; o++) {
                records.add(inputs.get(r.inputPartition()).get(o));
            }
            return records;
        }
    }

    /**
     * What the transform at a record's position gave against the record: the record, its input
     * records, the snapshot at its position, the transform's result, and per sparse column the
     * slots whose index differs.
     */
    record Compared(
            RowsRecord record,
            List<byte[]> inputs,
            VocabularySnapshot at,
            Transform.Result result,
            int[] differing) {

        int rows() {
            return record.rows();
        }

        /** Keys the snapshot did not hold, over all sparse columns. */
        long unknown() {
            return Arrays.stream(result.unknown()).sum();
        }
    }

    private ServedRecords() {}

    /**
     * Transforms record {@code r}'s input records at its own position and compares: rows and dead
     * letters must match in number, every slot but a sparse column's bit for bit, list lengths
     * exactly; per sparse column (list columns included), the slots whose index differs.
     */
    static Compared compare(
            Run run, ConsumerRecord<byte[], byte[]> r, TopicSnapshot.History history)
            throws Exception {
        RowsRecord expected = RowsRecord.of(r);
        VocabularySnapshot at = history.at(TopicSnapshot.positionOf(expected));
        List<byte[]> inputs = run.inputsOf(expected);
        Transform.Result result = new Transform(run.options(), at).apply(inputs);
        AssembledBlock got = result.block();
        String what = r.topic() + "/" + r.partition() + "@" + r.offset();
        assertThat(got.rows()).as(what).isEqualTo(expected.rows());
        assertThat(got.deadLetters().length)
                .as(what)
                .isEqualTo(Integer.parseInt(TestKafka.header(r, RowsRecord.DEAD_LETTERS)));
        int[] differing = new int[expected.epochs().length];
        ByteBuffer want = ByteBuffer.wrap(expected.value()).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer have = ByteBuffer.wrap(got.rowBytes()).order(ByteOrder.LITTLE_ENDIAN);
        for (int row = 0; row < expected.rows(); row++) {
            int base = row * expected.rowBytes();
            for (int slot = 0; slot < expected.rowBytes() / 4; slot++) {
                if (want.getInt(base + 4 * slot) != have.getInt(base + 4 * slot)) {
                    int column = columnOfSlot(expected, slot);
                    assertThat(column)
                            .as("%s: row %d slot %d (not sparse)", what, row, slot)
                            .isNotNegative();
                    differing[column]++;
                }
            }
        }
        for (int l = 0; l < expected.listColumns().length; l++) {
            assertThat(listLengths(got, l))
                    .as("%s: list %d lengths", what, l)
                    .isEqualTo(expected.listLengths()[l]);
            int[] values = listValues(got, l);
            for (int i = 0; i < values.length; i++) {
                if (values[i] != expected.listValues()[l][i]) {
                    differing[expected.listColumns()[l]]++;
                }
            }
        }
        return new Compared(expected, inputs, at, result, differing);
    }

    /** The length of each row's list {@code l} in {@code block}. */
    static int[] listLengths(AssembledBlock block, int l) {
        int[] o = block.listOffsets()[l];
        int[] lengths = new int[block.rows()];
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = o[i + 1] - o[i];
        }
        return lengths;
    }

    /** The indices of list {@code l} in {@code block}, its rows' one after the other. */
    static int[] listValues(AssembledBlock block, int l) {
        int[] o = block.listOffsets()[l];
        return Arrays.copyOfRange(block.listIndices()[l], o[0], o[block.rows()]);
    }

    /**
     * The vocabulary topic of {@code run} read once, up to the furthest position of its records;
     * the snapshot at the first and the last record's position is the same when read from the topic
     * for that record alone (by its topic, partition and offset) and through a snapshot file
     * (written under {@code tmp}).
     */
    static TopicSnapshot.History history(Run run, TopicSnapshot topic, Path tmp) throws Exception {
        List<VocabularySnapshot.Column> furthest = null;
        for (ConsumerRecord<byte[], byte[]> r : run.rows()) {
            VocabularyPosition p = TopicSnapshot.positionOf(RowsRecord.of(r));
            if (furthest == null) {
                furthest = new ArrayList<>(p.columns());
            }
            for (int c = 0; c < furthest.size(); c++) {
                if (p.columns().get(c).position() > furthest.get(c).position()) {
                    furthest.set(c, p.columns().get(c));
                }
            }
        }
        TopicSnapshot.History history =
                topic.history(
                        run.vocabTopic(),
                        new VocabularyPosition("", "the run's furthest", furthest),
                        Duration.ofSeconds(30),
                        TestClusters.QUIET);
        for (ConsumerRecord<byte[], byte[]> r :
                List.of(run.rows().get(0), run.rows().get(run.rows().size() - 1))) {
            VocabularyPosition at =
                    topic.positionOf(r.topic(), r.partition(), r.offset(), Duration.ofSeconds(30));
            Path alone = tmp.resolve("alone.snapshot");
            topic.read(run.vocabTopic(), at, Duration.ofSeconds(30), TestClusters.QUIET)
                    .write(alone);
            Path cut = tmp.resolve("cut.snapshot");
            history.at(at).write(cut);
            assertThat(Files.readAllBytes(cut)).as(r.topic()).isEqualTo(Files.readAllBytes(alone));
            assertThat(VocabularySnapshot.load(cut).entries(0)).isPositive();
        }
        return history;
    }

    /** The sparse column whose index is in {@code slot} of a row, or -1 for another slot. */
    private static int columnOfSlot(RowsRecord r, int slot) {
        for (int[] s : r.sparseColumns()) {
            if (s[1] == slot) {
                return s[0];
            }
        }
        return -1;
    }
}
