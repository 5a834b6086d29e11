package dev.piper.operators.vocab;

import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.Lanes;
import dev.piper.pipeline.layout.CriteoLayout;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * Per sparse column, the vocabulary's Flink metrics, in the group {@value #PIPELINE} = the
 * pipeline's name, {@value #COLUMN} = the column ({@code C3}) below the operator's: {@value
 * #ENTRIES} (entries of its newest epoch), {@value #KEYS} (keys looked up), {@value #NEW_ENTRIES}
 * (keys admitted, an evicting column's reuses included), {@value #OOV_KEYS} (keys given an OOV
 * bucket) and {@value #EVICTIONS}. A column's metrics are registered by the subtask that holds it,
 * at its first block; counters are per subtask (a dashboard sums them, and rates them).
 */
final class VocabularyMetrics {

    static final String PIPELINE = "pipeline";
    static final String COLUMN = "column";
    static final String ENTRIES = "piperVocabularyEntries";
    static final String KEYS = "piperVocabularyKeys";
    static final String NEW_ENTRIES = "piperVocabularyNewEntries";
    static final String OOV_KEYS = "piperVocabularyOovKeys";
    static final String EVICTIONS = "piperVocabularyEvictions";

    private final MetricGroup group;
    private final String[] pipelineNames;
    private final Map<Long, Column> columns = new HashMap<>();

    private static final class Column {
        final Counter keys;
        final Counter newEntries;
        final Counter oovKeys;
        final Counter evictions;
        volatile long entries;

        Column(MetricGroup g) {
            keys = g.counter(KEYS);
            newEntries = g.counter(NEW_ENTRIES);
            oovKeys = g.counter(OOV_KEYS);
            evictions = g.counter(EVICTIONS);
            g.gauge(ENTRIES, (Gauge<Long>) () -> entries);
        }
    }

    /**
     * @param pipelineNames the pipelines' names by index, or null (the index names them)
     */
    VocabularyMetrics(MetricGroup group, String[] pipelineNames) {
        this.group = group;
        this.pipelineNames = pipelineNames;
    }

    /** Counts one block of the column of {@code chunk}; {@code entries} its vocabulary's now. */
    void count(KeyChunk chunk, IndexChunk result, int entries) {
        int p = Lanes.pipeline(chunk.lane());
        long id = ((long) p << 32) | chunk.column();
        Column col = columns.get(id);
        if (col == null) {
            String pipeline =
                    pipelineNames != null && p < pipelineNames.length
                            ? pipelineNames[p]
                            : Integer.toString(p);
            col =
                    new Column(
                            group.addGroup(PIPELINE, pipeline)
                                    .addGroup(COLUMN, CriteoLayout.sparseName(chunk.column())));
            columns.put(id, col);
        }
        col.keys.inc(chunk.size());
        col.newEntries.inc(result.newKeys().length);
        if (result.assignments() != null) {
            col.evictions.inc(result.assignments().evicted().length);
        }
        int buckets = chunk.policy().oovBuckets();
        if (buckets > 0) {
            int[] indices = result.indices();
            long oov = 0;
            for (int i = 0; i < result.size(); i++) {
                if (indices[i] < buckets) {
                    oov++;
                }
            }
            col.oovKeys.inc(oov);
        }
        col.entries = entries;
    }
}
