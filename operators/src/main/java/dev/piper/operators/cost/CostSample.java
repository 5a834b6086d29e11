package dev.piper.operators.cost;

import dev.piper.operators.block.SerializerTypeInfo;
import dev.piper.pipeline.layout.CriteoLayout;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.OutputTag;

/**
 * What one measuring operator did for one input element, for the hardware cost model (COMBINING.md,
 * "What to measure"). The column operators emit one per element on a side output when the job
 * reports; the cost-model operator adds them up per column and interval.
 *
 * <p>Two CPU figures, both from the thread's CPU clock ({@link ThreadCpu}): {@code workNanos} is
 * the element's own work (decoding and the fused column operators, a vocabulary's lookups, the
 * concatenation with the operators chained behind it, each including the hand-over of its output);
 * {@code threadNanos} is everything the thread spent since the previous element's sample (so also
 * reading the source and receiving and deserializing the input), which adds up to the task's busy
 * CPU time. The cost model attributes {@code threadNanos} to columns and reports both.
 *
 * @param stage which operator measured it
 * @param pipeline the pipeline's index (the lane's pipeline; 0 for a file)
 * @param column {@link Stage#VOCABULARY}: the categorical column (0 for C1); otherwise -1
 * @param lines {@link Stage#DECODE}: input lines of the block (rows and dead letters)
 * @param values values processed: rows decoded, keys looked up, rows assembled
 * @param fieldBytes {@link Stage#DECODE}, if the block's fields were counted (a sample of the
 *     blocks is): encoded bytes of each field (label, I1..I13, C1..C26) in its accepted lines,
 *     delimiters included; empty otherwise
 * @param acceptedBytes {@link Stage#DECODE}: the bytes of the block's accepted lines; 0 otherwise
 * @param workNanos CPU time of the element's work, log excluded
 * @param passNanos {@link Stage#DECODE}: CPU time of the column passes (the operators not fused
 *     into the parser)
 * @param threadNanos the thread's CPU time since its previous sample (or since the operator opened)
 * @param entries {@link Stage#VOCABULARY}: entries of the column's newest vocabulary afterwards;
 *     otherwise -1
 */
public record CostSample(
        Stage stage,
        int pipeline,
        int column,
        long lines,
        long values,
        int[] fieldBytes,
        long acceptedBytes,
        long workNanos,
        long passNanos,
        long threadNanos,
        long entries) {

    /** The operator that took a sample. */
    public enum Stage {
        /** Decoding with the fused stateless column operators. */
        DECODE,
        /** One categorical column's GenVocab + ApplyVocab. */
        VOCABULARY,
        /** Concatenating a block's columns into rows and writing them. */
        OUTPUT
    }

    /** Type information with the dedicated serializer (no Kryo). */
    public static final TypeInformation<CostSample> TYPE =
            new SerializerTypeInfo<>(CostSample.class, CostSampleSerializer.INSTANCE);

    /**
     * The accumulator (a {@code LongCounter}) the measuring operators add their task thread's CPU
     * time to, from their {@code open} to their {@code close}: the tasks' busy CPU time measured
     * apart from the samples, which the samples' attribution can be checked against.
     */
    public static final String TASK_CPU_ACCUMULATOR = "piper.task-cpu-nanos";

    /** The side output the measuring operators emit their samples on. */
    public static final OutputTag<CostSample> TAG = new OutputTag<>("cost", TYPE);

    private static final int[] NO_BYTES = new int[0];

    public CostSample {
        if (fieldBytes.length != 0 && fieldBytes.length != CriteoLayout.FIELDS) {
            throw new IllegalArgumentException(
                    "field bytes: one per field (" + CriteoLayout.FIELDS + ") or none");
        }
    }

    /** A decoded block's sample. */
    public static CostSample decode(
            int pipeline,
            long lines,
            long rows,
            int[] fieldBytes,
            long acceptedBytes,
            long workNanos,
            long passNanos,
            long threadNanos) {
        return new CostSample(
                Stage.DECODE,
                pipeline,
                -1,
                lines,
                rows,
                fieldBytes,
                acceptedBytes,
                workNanos,
                passNanos,
                threadNanos,
                -1);
    }

    /** A vocabulary call's sample. */
    public static CostSample vocabulary(
            int pipeline, int column, long keys, long entries, long workNanos, long threadNanos) {
        return new CostSample(
                Stage.VOCABULARY,
                pipeline,
                column,
                0,
                keys,
                NO_BYTES,
                0,
                workNanos,
                0,
                threadNanos,
                entries);
    }

    /** A concatenation call's sample. */
    public static CostSample output(int pipeline, long rows, long workNanos, long threadNanos) {
        return new CostSample(
                Stage.OUTPUT, pipeline, -1, 0, rows, NO_BYTES, 0, workNanos, 0, threadNanos, -1);
    }
}
