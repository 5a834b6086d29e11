package dev.piper.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.FastForward;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.Lanes;
import dev.piper.core.block.Origin;
import dev.piper.feed.OutputPastSnapshot;
import dev.piper.feed.StreamFormat;
import dev.piper.feed.TestKafka;
import dev.piper.pipeline.ops.DecodeOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.IntPredicate;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the output topics hold past a snapshot, on a real broker: a feed of two input partitions
 * whose blocks (each adding two entries to C2) are encoded as the stream encodes them and stamped
 * one checkpoint each, the lanes' records interleaved. Past a snapshot it finds each lane's blocks
 * and C2's entries; a block missing from the middle, or a vocabulary record missing, is refused
 * naming the record; a snapshot as new as the output finds nothing, after reading only the last
 * records back.
 */
class OutputPastSnapshotTest {

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    private static final int BLOCKS = 6; // per lane

    /**
     * Block {@code seq} of input partition {@code partition}: 3 input records, 2 new keys of C2.
     */
    private static AssembledBlock block(int partition, int seq, int firstNew) {
        long[][] newKeys = new long[26][0];
        int[] first = new int[26];
        java.util.Arrays.fill(first, 0);
        newKeys[1] = new long[] {1_000 + firstNew, 1_001 + firstNew};
        first[1] = firstNew;
        long base = 100L * seq;
        Origin origin =
                new Origin(new long[] {base, base + 1, base + 2}, new int[] {0, 1, 2}, 10, 12);
        return AssembledBlock.builder()
                .lane(Lanes.of(0, partition))
                .seq(seq)
                .lines(3)
                .rows(3)
                .rowBytes(new byte[3 * 160])
                .deadLetters(new DeadLetter[0])
                .newKeys(first, newKeys)
                .origin(origin)
                .version(1)
                .epochs(new int[26])
                .build();
    }

    /**
     * Writes the feed: the blocks of both lanes alternately, block k of a lane with stamp k + 1
     * (its rows record and its vocabulary record), leaving out rows of blocks {@code skipRows} and
     * vocabulary records of blocks {@code skipVocab} (counted over both lanes, in write order).
     */
    private static void feed(String name, IntPredicate skipRows, IntPredicate skipVocab)
            throws Exception {
        kafka.createTopic(name + "-rows", 2);
        kafka.createTopic(name + "-vocab", 1);
        OutputEncoder encoder = new OutputEncoder("in", true, DecodeOptions.defaults());
        Properties p = new Properties();
        p.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            int written = 0;
            for (int seq = 0; seq < BLOCKS; seq++) {
                for (int partition = 0; partition < 2; partition++) {
                    int n = written++;
                    List<KafkaOut> out = new ArrayList<>();
                    encoder.flatMap(
                            block(partition, seq, 2 * n),
                            new Collector<>() {
                                @Override
                                public void collect(KafkaOut r) {
                                    out.add(r);
                                }

                                @Override
                                public void close() {}
                            });
                    for (KafkaOut r : out) {
                        boolean rows = r.target() % KafkaOut.KINDS == KafkaOut.ROWS;
                        if (rows ? skipRows.test(n) : skipVocab.test(n)) {
                            continue;
                        }
                        KafkaOut s =
                                StreamFormat.withCheckpoint(
                                        r, StreamFormat.checkpointStamp(seq + 1));
                        RecordHeaders headers = new RecordHeaders();
                        for (int i = 0; i < s.headerNames().length; i++) {
                            headers.add(s.headerNames()[i], s.headerValues()[i]);
                        }
                        producer.send(
                                new ProducerRecord<>(
                                        name + (rows ? "-rows" : "-vocab"),
                                        rows ? (partition + seq) % 2 : 0,
                                        null,
                                        s.key(),
                                        s.value(),
                                        headers));
                    }
                }
            }
        }
    }

    private static OutputPastSnapshot.Result read(String name, long stamp) throws Exception {
        return new OutputPastSnapshot(kafka.bootstrapServers(), Map.of(), Duration.ofSeconds(30))
                .read(
                        List.of(
                                new OutputPastSnapshot.Pipeline(
                                        0, "p", "in", name + "-rows", name + "-vocab")),
                        stamp);
    }

    @Test
    void findsEachLanesBlocksAndTheEntriesPastTheSnapshot() throws Exception {
        feed("past", n -> false, n -> false);
        // snapshot stamped 4: blocks 4 and 5 of each lane (stamps 5, 6) are past it
        OutputPastSnapshot.Result r = read("past", 4);
        FastForward ff = r.fastForward();
        assertThat(ff.floorStamp()).isEqualTo(BLOCKS);
        assertThat(ff.lanes())
                .containsEntry(Lanes.of(0, 0), new FastForward.LaneTail(4, 5, 502))
                .containsEntry(Lanes.of(0, 1), new FastForward.LaneTail(4, 5, 502))
                .hasSize(2);
        FastForward.Entries c2 = ff.entries(0, 1);
        // blocks 8 to 11 in write order added entries 16 to 23
        assertThat(c2.firstIndex()).isEqualTo(16);
        assertThat(c2.keys()).hasSize(8).startsWith(1_016, 1_017).endsWith(1_022, 1_023);
        assertThat(ff.entries(0, 0).keys()).isEmpty(); // C1 gained none: checked at its position
        assertThat(r.rowsRecords()).isEqualTo(4);
        assertThat(r.summary()).contains("in/0: blocks 4 to 5, input to offset 502");

        OutputPastSnapshot.Result none = read("past", BLOCKS);
        assertThat(none.fastForward().skipsAnything()).isFalse();
        assertThat(none.fastForward().floorStamp()).isEqualTo(BLOCKS);
    }

    @Test
    void aBlockOrAVocabularyRecordMissingIsRefusedByName() throws Exception {
        feed("gap", n -> n == 6, n -> false); // block 3 of lane 0
        assertThatThrownBy(() -> read("gap", 2))
                .isInstanceOf(OutputPastSnapshot.Refused.class)
                .hasMessageContaining(
                        "input partition 0 of pipeline p: the output committed after the snapshot"
                                + " holds block 2 (gap-rows/")
                .hasMessageContaining(") and then block 4 (gap-rows/");
        feed("novocab", n -> false, n -> n == 9); // block 4 of lane 1's entries 18, 19
        assertThatThrownBy(() -> read("novocab", 2))
                .isInstanceOf(OutputPastSnapshot.Refused.class)
                .hasMessageContaining(
                        "column C2's entries from index 20 follow those up to index 17 in the"
                                + " output committed after the snapshot: a gap");
    }
}
