package dev.piper.core.cost;

import dev.piper.pipeline.ops.ColumnProgram;

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
 * @param version {@link Stage#DECODE}, {@link Stage#OUTPUT}: the version of the spec the block was
 *     decoded with; {@link Stage#PROGRAM}: the program's; -1 for the pipeline's starting spec
 * @param epoch {@link Stage#VOCABULARY}: the vocabulary epoch of the column's keys; -1 for the
 *     starting spec's
 * @param program {@link Stage#PROGRAM}: the column program of a spec version, announced by the
 *     decoder that decodes the version's first block, so the cost model can price its chains; null
 *     otherwise
 * @param parseNanos {@link Stage#DECODE}, for a block the decoder measured its kinds of fields on
 *     ({@code CriteoDecoder#measureKinds}): the thread CPU time its fast path took over the block's
 *     label and dense fields, and over its categorical fields, each part parsed apart; empty
 *     otherwise
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
        long entries,
        int version,
        int epoch,
        ColumnProgram program,
        long[] parseNanos) {

    /** A sample of the pipeline's starting spec (tests, and jobs without spec switches). */
    public CostSample(
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
        this(
                stage,
                pipeline,
                column,
                lines,
                values,
                fieldBytes,
                acceptedBytes,
                workNanos,
                passNanos,
                threadNanos,
                entries,
                -1,
                -1,
                null,
                NO_PARSE);
    }

    /** The operator that took a sample. */
    public enum Stage {
        /** Decoding with the fused stateless column operators. */
        DECODE,
        /** One categorical column's GenVocab + ApplyVocab. */
        VOCABULARY,
        /** Concatenating a block's columns into rows and writing them. */
        OUTPUT,
        /** Not work: the column program of a spec version ({@link #program()}). */
        PROGRAM
    }

    private static final int[] NO_BYTES = new int[0];

    private static final long[] NO_PARSE = new long[0];

    public CostSample {
        if (parseNanos.length != 0 && parseNanos.length != 2) {
            throw new IllegalArgumentException(
                    "parse nanoseconds: label and dense, then categorical, or none");
        }
        if ((stage == Stage.PROGRAM) != (program != null)) {
            throw new IllegalArgumentException("a program sample, and only one, has a program");
        }
    }

    /** The announcement of spec version {@code program.version()}'s column program. */
    public static CostSample program(int pipeline, ColumnProgram program) {
        return new CostSample(
                Stage.PROGRAM,
                pipeline,
                -1,
                0,
                0,
                NO_BYTES,
                0,
                0,
                0,
                0,
                -1,
                program.version(),
                -1,
                program,
                NO_PARSE);
    }

    /**
     * This sample with the thread CPU time of its block's label and dense fields and of its
     * categorical fields, each parsed apart ({@link #parseNanos}).
     */
    public CostSample withParseNanos(long labelDense, long categorical) {
        return with(version, epoch, new long[] {labelDense, categorical});
    }

    /** This sample with the spec version of its block. */
    public CostSample withVersion(int version) {
        return with(version, epoch, parseNanos);
    }

    /** This sample with the vocabulary epoch of its keys. */
    public CostSample withEpoch(int epoch) {
        return with(version, epoch, parseNanos);
    }

    private CostSample with(int version, int epoch, long[] parseNanos) {
        return new CostSample(
                stage,
                pipeline,
                column,
                lines,
                values,
                fieldBytes,
                acceptedBytes,
                workNanos,
                passNanos,
                threadNanos,
                entries,
                version,
                epoch,
                program,
                parseNanos);
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
