package dev.piper.core.cost;

import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;

/**
 * One pipeline's measurements added up per field of its layout (label, I1.., G1.., C1..), with the
 * CPU time of each sample attributed to fields (COMBINING.md pitfall 4, consistently with the
 * model's side). A sample's time is its thread's CPU time since the previous sample: the element's
 * own work and what the task did to get it (reading the source, receiving and deserializing the
 * input), so the attributed time adds up to the tasks' busy CPU time:
 *
 * <ul>
 *   <li>reading and decoding a block with the fused stateless operators: by each field's share of
 *       the block's encoded bytes (the model's link and decoder are priced by the same bytes);
 *   <li>the log pass: evenly over the block's log columns (each did the same number of values);
 *   <li>a vocabulary call: to its column;
 *   <li>concatenating and writing rows: evenly over the fields.
 * </ul>
 *
 * <p>A decoder counts each field's bytes only in a sample of its blocks (its first, then every
 * {@link ReportSettings#fieldBytesEvery()}-th): the other blocks' accepted bytes, exact, are split
 * by the shares counted so far. Decoding time of a block without one accepted line (all dead
 * letters) stays unattributed; the label's share is reported apart from the columns.
 */
public final class ColumnAccounts {

    /** The layout's fields: the label, the dense, the generated and the sparse columns. */
    final int fields;

    private final RowLayout layout;

    /** Rows each field's values came from (a list column's ids are {@link #vocabularyKeys}). */
    final long[] values;

    /** Keys each categorical column's vocabulary applied: a list column's ids. */
    final long[] vocabularyKeys;

    /**
     * Blocks on which a decoder measured its kinds of fields ({@link CostSample#parseNanos}); the
     * cost model turns the measurements into the weights below.
     */
    long kindBlocks;

    /** Blocks whose decoding was split by measured kinds, and the weights last used. */
    long weightedBlocks;

    double[] lastWeights;

    /** Encoded bytes per field: counted in the sampled blocks, split by shares in the others. */
    final double[] bytes;

    /** The elements' own work, per stage: decoding, the column passes, lookups, assembling. */
    final double[] decodeNanos;

    final double[] passNanos;
    final double[] vocabularyNanos;
    final double[] outputNanos;

    /**
     * The tasks' overhead around that work, attributed as the work it served is: reading the source
     * and handing blocks over (decoders), receiving and deserializing keys (vocabularies) and
     * blocks (the concatenation).
     */
    final double[] overheadNanos;

    /** Per {@link CostSample.Stage}: the work's and the threads' CPU nanoseconds. */
    final long[] stageWorkNanos = new long[CostSample.Stage.values().length];

    final long[] stageThreadNanos = new long[CostSample.Stage.values().length];

    long lines;
    long rows;
    long blocks;
    double unattributedNanos;

    /** Each field's share of the column passes' time: its pass operators over all of them. */
    private final double[] passShare;

    private final boolean anyPasses;

    public ColumnAccounts(ColumnProgram program) {
        layout = program.layout();
        fields = layout.fields();
        values = new long[fields];
        vocabularyKeys = new long[layout.sparse()];
        bytes = new double[fields];
        decodeNanos = new double[fields];
        passNanos = new double[fields];
        vocabularyNanos = new double[fields];
        outputNanos = new double[fields];
        overheadNanos = new double[fields];
        passShare = new double[fields];
        int total = 0;
        for (int f = 0; f < fields; f++) {
            total += program.passOps(f).size();
        }
        for (int f = 0; f < fields && total > 0; f++) {
            passShare[f] = program.passOps(f).size() / (double) total;
        }
        anyPasses = total > 0;
    }

    /**
     * Adds {@code s}; a decoded block whose fields were not counted is split by {@code shares},
     * each field's share of the bytes counted so far (null if none were).
     */
    public void add(CostSample s, double[] shares) {
        add(s, shares, null);
    }

    /**
     * Adds {@code s} as {@link #add(CostSample, double[])} does, a block's decoding split by each
     * field's bytes times {@code weights}, the measured cost per byte of its kind of field (null:
     * every byte alike).
     */
    public void add(CostSample s, double[] shares, double[] weights) {
        stageWorkNanos[s.stage().ordinal()] += s.workNanos() + s.passNanos();
        stageThreadNanos[s.stage().ordinal()] += s.threadNanos();
        switch (s.stage()) {
            case DECODE -> addDecode(s, s.fieldBytes().length > 0 ? null : shares, weights);
            case VOCABULARY -> {
                vocabularyKeys[s.column()] += s.values();
                int f = layout.sparseField(s.column());
                vocabularyNanos[f] += s.workNanos();
                overheadNanos[f] += overhead(s);
            }
            case OUTPUT -> {
                for (int f = 0; f < fields; f++) {
                    outputNanos[f] += s.workNanos() / (double) fields;
                    overheadNanos[f] += overhead(s) / (double) fields;
                }
            }
        }
    }

    private void addDecode(CostSample s, double[] shares, double[] weights) {
        blocks++;
        lines += s.lines();
        rows += s.values();
        boolean counted = s.fieldBytes().length > 0;
        if (counted && s.parseNanos().length == 2) {
            kindBlocks++;
        }
        double[] share = shares;
        long total = s.acceptedBytes();
        if (counted) {
            total = 0;
            for (int b : s.fieldBytes()) {
                total += b;
            }
            share = new double[fields];
            for (int f = 0; f < fields && total > 0; f++) {
                share[f] = s.fieldBytes()[f] / (double) total;
            }
        }
        // decoding the block with the fused operators and handing its output over; reading it
        double work = s.workNanos();
        double overhead = overhead(s);
        boolean split = share != null && total > 0;
        double[] time = split ? weighted(share, weights) : null;
        if (split && weights != null) {
            weightedBlocks++;
            lastWeights = weights;
        }
        for (int f = 0; f < fields; f++) {
            values[f] += s.values();
            if (split) {
                bytes[f] += counted ? s.fieldBytes()[f] : total * share[f];
                decodeNanos[f] += work * time[f];
                overheadNanos[f] += overhead * time[f];
            }
        }
        if (!split) {
            unattributedNanos += work + overhead;
        }
        if (anyPasses) {
            for (int f = 0; f < fields; f++) {
                passNanos[f] += s.passNanos() * passShare[f];
            }
        } else {
            unattributedNanos += s.passNanos();
        }
    }

    /** Byte shares times weights, normalized (the byte shares themselves without weights). */
    private static double[] weighted(double[] share, double[] weights) {
        if (weights == null) {
            return share;
        }
        double sum = 0;
        for (int f = 0; f < share.length; f++) {
            sum += share[f] * weights[f];
        }
        if (!(sum > 0)) {
            return share;
        }
        double[] out = new double[share.length];
        for (int f = 0; f < share.length; f++) {
            out[f] = share[f] * weights[f] / sum;
        }
        return out;
    }

    /**
     * What the thread spent around the sample's own work (and its column passes): never negative,
     * the clock being read at the work's start and end and at the sample's end.
     */
    private static double overhead(CostSample s) {
        return Math.max(0, s.threadNanos() - s.workNanos() - s.passNanos());
    }

    /** The threads' CPU nanoseconds, all stages. */
    long threadNanos() {
        return sum(stageThreadNanos);
    }

    /** The elements' own work in CPU nanoseconds, all stages. */
    long workNanos() {
        return sum(stageWorkNanos);
    }

    private static long sum(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return s;
    }

    /** CPU nanoseconds attributed to field {@code f}. */
    double nanos(int f) {
        return decodeNanos[f]
                + passNanos[f]
                + vocabularyNanos[f]
                + outputNanos[f]
                + overheadNanos[f];
    }

    /** CPU nanoseconds attributed to the 39 feature columns. */
    double columnNanos() {
        double sum = 0;
        for (int f = 1; f < fields; f++) {
            sum += nanos(f);
        }
        return sum;
    }

    /** Whether any sample arrived. */
    public boolean isEmpty() {
        return threadNanos() == 0 && workNanos() == 0 && blocks == 0;
    }
}
