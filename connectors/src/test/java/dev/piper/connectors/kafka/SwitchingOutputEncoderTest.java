package dev.piper.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.Origin;
import dev.piper.core.control.ActiveSpec;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.StreamFormat;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The encoder of a reconfigurable stream, in a harness: blocks of a version whose spec has not been
 * announced wait, with the later blocks of their lane, and are encoded in order once it is; blocks
 * still waiting at a checkpoint survive a restore and go out with the next announcement.
 */
class SwitchingOutputEncoderTest {

    private static final ActiveSpec V1 = ActiveSpec.initial(SpecParser.builtin());

    /** The built-in spec as version 2, with log on I5 (a float32 column). */
    private static ActiveSpec v2() throws Exception {
        String text =
                new String(SpecParser.builtinText(), StandardCharsets.UTF_8)
                        .replace("\"version\": 1", "\"version\": 2")
                        .replace(
                                "\"I1..I13\": [\"decode\", \"fill_missing\", \"neg2zero\"]",
                                "\"I1..I4\": [\"decode\", \"fill_missing\", \"neg2zero\"],"
                                        + " \"I5\": [\"decode\", \"fill_missing\", \"neg2zero\","
                                        + " \"log\"], \"I6..I13\": [\"decode\", \"fill_missing\","
                                        + " \"neg2zero\"]");
        return V1.next(SpecParser.parse(text.getBytes(StandardCharsets.UTF_8), "v2"));
    }

    private static AssembledBlock block(int lane, long seq, int version) {
        return AssembledBlock.builder()
                .lane(lane)
                .seq(seq)
                .lines(1)
                .rows(1)
                .rowBytes(new byte[160])
                .deadLetters(new dev.piper.core.block.DeadLetter[0])
                .newKeys(new int[26], new long[26][0])
                .origin(new Origin(new long[] {seq}, new int[] {0}, 1000 + seq, 1000 + seq))
                .version(version)
                .epochs(new int[26])
                .build();
    }

    /** A harness around the encoder, not yet initialized nor opened. */
    private static KeyedBroadcastOperatorTestHarness<Integer, AssembledBlock, ActiveSpec, KafkaOut>
            harness() throws Exception {
        KeySelector<AssembledBlock, Integer> byLane = AssembledBlock::lane;
        return new KeyedBroadcastOperatorTestHarness<>(
                new CoBroadcastWithKeyedOperator<>(
                        new SwitchingOutputEncoder(
                                new OutputEncoder("clicks", false, V1.options(1024)),
                                new String[] {"dlrm-criteo"}),
                        List.of(SwitchingOutputEncoder.SPECS)),
                byLane,
                Types.INT,
                128,
                1,
                0);
    }

    /** The (lane, block, version) of each rows record emitted, as "lane/block@pipeline". */
    private static List<String> rows(List<KafkaOut> out) {
        return out.stream()
                .filter(r -> r.target() == KafkaOut.ROWS)
                .map(
                        r -> {
                            String block = null;
                            String partition = null;
                            String pipeline = null;
                            for (int i = 0; i < r.headerNames().length; i++) {
                                String v =
                                        new String(r.headerValues()[i], StandardCharsets.US_ASCII);
                                switch (r.headerNames()[i]) {
                                    case StreamFormat.BLOCK -> block = v;
                                    case StreamFormat.INPUT_PARTITION -> partition = v;
                                    case RowsRecord.PIPELINE -> pipeline = v;
                                    default -> {}
                                }
                            }
                            return partition + "/" + block + "@" + pipeline;
                        })
                .toList();
    }

    @Test
    void blocksOfAnUnannouncedVersionWaitInOrderUntilItsSpecArrives() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(block(0, 0, 1), 0);
            h.processElement(block(0, 1, 2), 0); // v2 not announced yet: waits
            h.processElement(block(1, 0, 1), 0); // another lane goes on
            h.processElement(block(0, 2, 2), 0); // behind the waiting one
            assertThat(rows(h.extractOutputValues()))
                    .containsExactly("0/0@dlrm-criteo/1", "1/0@dlrm-criteo/1");
            h.processBroadcastElement(v2(), 0);
            assertThat(rows(h.extractOutputValues()))
                    .containsExactly(
                            "0/0@dlrm-criteo/1",
                            "1/0@dlrm-criteo/1",
                            "0/1@dlrm-criteo/2",
                            "0/2@dlrm-criteo/2");
            KafkaOut switched = h.extractOutputValues().get(2);
            assertThat(
                            new String(
                                    switched.headerValues()[headerIndex(switched)],
                                    StandardCharsets.US_ASCII))
                    .isEqualTo("I5");
        }
    }

    private static int headerIndex(KafkaOut r) {
        for (int i = 0; i < r.headerNames().length; i++) {
            if (r.headerNames()[i].equals(RowsRecord.FLOAT32_COLUMNS)) {
                return i;
            }
        }
        throw new AssertionError("no " + RowsRecord.FLOAT32_COLUMNS);
    }

    @Test
    void blocksWaitingAtACheckpointGoOutAfterTheRestore() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness()) {
            h.open();
            h.processElement(block(0, 0, 2), 0);
            assertThat(h.extractOutputValues()).isEmpty();
            snapshot = h.snapshot(1, 1);
        }
        try (var h = harness()) {
            h.initializeState(snapshot);
            h.open();
            h.processElement(block(0, 1, 2), 0); // still unknown: waits behind the restored one
            assertThat(h.extractOutputValues()).isEmpty();
            h.processBroadcastElement(v2(), 0); // a decoder announces it again
            assertThat(rows(h.extractOutputValues()))
                    .containsExactly("0/0@dlrm-criteo/2", "0/1@dlrm-criteo/2");
        }
    }
}
