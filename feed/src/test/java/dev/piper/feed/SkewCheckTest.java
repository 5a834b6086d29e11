package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.Origin;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The skew check's verdict on one record: the rows record of {@link RowsRecordFormatTest} (rows of
 * label, I1, C1, C3; list column C2; C3 evicts and its block made one assignment) against served
 * rows that differ in a dense slot, in C1, in C3 and in a value of C2. Only C3's is the block's own
 * learning; the others are skew, each named with its record, row, column and both values.
 */
class SkewCheckTest {

    private static final String SPEC =
            """
            {"name": "p", "version": 1,
             "input": {"format": "criteo-tsv", "dense": 1, "sparse": 3, "list_columns": ["C2"]},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1": ["decode", "fill_missing"],
               "C1": ["decode", "fill_missing", "hex2int", "vocab"],
               "C2": ["decode", "fill_missing", "hex2int", "vocab"],
               "C3": ["decode", "fill_missing", "hex2int",
                      {"op": "vocab", "capacity": 4, "evict": "lfu", "oov_buckets": 2}]
             }}""";

    @Test
    void onlyABlocksOwnLearningIsNotSkew() throws Exception {
        DecodeOptions options =
                SpecCompiler.decodeOptions(
                        SpecParser.parse(SPEC.getBytes(StandardCharsets.UTF_8), "p"), 1024);
        RowsRecord feed =
                RowsRecord.of(RowsRecordFormatTest.record(RowsRecordFormatTest.everyHeader()));
        ByteBuffer rows = ByteBuffer.allocate(2 * 4 * 4).order(ByteOrder.LITTLE_ENDIAN);
        rows.putInt(1).putFloat(0.25f).putInt(9).putInt(2); // I1 (slot 1) and C1 differ
        rows.putInt(0).putFloat(1.5f).putInt(4).putInt(1); // C3 differs: its block assigned
        AssembledBlock served =
                AssembledBlock.builder()
                        .lane(0)
                        .seq(0)
                        .lines(2)
                        .rows(2)
                        .rowBytes(rows.array())
                        .deadLetters(new DeadLetter[0])
                        .newKeys(new int[3], new long[3][0])
                        .origin(new Origin(new long[] {10}, new int[] {0}, -1, -1))
                        .version(1)
                        .epochs(new int[3])
                        .lists(new int[][] {{0, 2, 3}}, new int[][] {{6, 7, 5}})
                        .split( // row 1's C2 id differs
                                null)
                        .build();
        long[][] counts = new long[3][3];
        List<String> skewed = new ArrayList<>();
        long[] skew = {0};
        new SkewCheck("127.0.0.1:1", Map.of(), options, "p/1")
                .compare(feed, served, counts, skewed, skew);
        assertThat(skew[0]).isEqualTo(3);
        assertThat(counts[0]).containsExactly(2, 0, 1); // C1: compared, learning, skew
        assertThat(counts[1]).containsExactly(3, 0, 1); // C2, the list column
        assertThat(counts[2]).containsExactly(2, 1, 0); // C3
        assertThat(skewed)
                .containsExactly(
                        "rows/0@9 row 0 slot 1: feed 1056964608, served 1048576000",
                        "rows/0@9 row 0 C1: feed 3, served 9",
                        "rows/0@9 row 1 C2: feed 8, served 5");
    }
}
