package dev.piper.operators.vocab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.KeyChunk;
import dev.piper.operators.RecordingMetricGroup;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.state.Vocabulary;
import org.junit.jupiter.api.Test;

/** Each column's vocabulary metrics count what its vocabulary did. */
class VocabularyMetricsTest {

    @Test
    void keysNewEntriesAndOovKeysPerColumnUnderItsPipelinesName() {
        RecordingMetricGroup group = new RecordingMetricGroup();
        VocabularyMetrics metrics = new VocabularyMetrics(group, new String[] {"clicks"});
        // C4 admits a key at its second sight, the others go to one of 8 OOV buckets
        VocabularyPolicy threshold = new VocabularyPolicy(2, 8, Vocabulary.MAX_SIZE, null);
        Vocabulary c4 = new Vocabulary();
        KeyChunk first =
                KeyChunk.builder()
                        .lane(0)
                        .column(3)
                        .seq(0)
                        .keys(new long[] {5, 6, 5, 7})
                        .size(4)
                        .epoch(0)
                        .policy(threshold)
                        .build();
        metrics.count(first, VocabularyFunction.apply(c4, first), c4.size());
        KeyChunk second =
                KeyChunk.builder()
                        .lane(0)
                        .column(3)
                        .seq(1)
                        .keys(new long[] {6, 9})
                        .size(2)
                        .epoch(0)
                        .policy(threshold)
                        .build();
        metrics.count(second, VocabularyFunction.apply(c4, second), c4.size());
        // C1 without a policy: every key is an entry at its first sight
        Vocabulary c1 = new Vocabulary();
        KeyChunk plain =
                KeyChunk.builder()
                        .lane(0)
                        .column(0)
                        .seq(0)
                        .keys(new long[] {1, 2, 1})
                        .size(3)
                        .epoch(0)
                        .policy(VocabularyPolicy.FIRST_APPEARANCE)
                        .build();
        metrics.count(plain, VocabularyFunction.apply(c1, plain), c1.size());

        String c4Path = "pipeline.clicks.column.C4.";
        assertThat(group.count(c4Path + VocabularyMetrics.KEYS)).isEqualTo(6);
        // 5 at its second sight in the first block, 6 at its second in the second
        assertThat(group.count(c4Path + VocabularyMetrics.NEW_ENTRIES)).isEqualTo(2);
        assertThat(group.value(c4Path + VocabularyMetrics.ENTRIES)).isEqualTo(2L);
        // 5 (first), 6, 7 and 9: four keys in buckets; the second 5 and the second 6 are entries
        assertThat(group.count(c4Path + VocabularyMetrics.OOV_KEYS)).isEqualTo(4);
        assertThat(group.count(c4Path + VocabularyMetrics.EVICTIONS)).isZero();

        String c1Path = "pipeline.clicks.column.C1.";
        assertThat(group.count(c1Path + VocabularyMetrics.KEYS)).isEqualTo(3);
        assertThat(group.count(c1Path + VocabularyMetrics.NEW_ENTRIES)).isEqualTo(2);
        assertThat(group.count(c1Path + VocabularyMetrics.OOV_KEYS)).isZero();
        assertThat(group.value(c1Path + VocabularyMetrics.ENTRIES)).isEqualTo(2L);
    }
}
