package dev.piper.pipeline.generate;

import dev.piper.pipeline.layout.CriteoLayout;
import java.util.Arrays;

/**
 * The hidden logistic model of a learnable click log ({@code piper generate --click-model}): the
 * probability of a click is {@code sigmoid(bias + sum_j w_j * z_j + sum_c v_c(id_c))} over a few
 * dense columns ({@code z_j = log1p(max(0, I_j))}, centred) and a few categorical columns, where
 * every id of a column carries its own hidden weight {@code v_c(id)}, popular and rare ids alike,
 * drawn from a normal distribution by hashing (model seed, phase, column, id). A missing field
 * contributes nothing.
 *
 * <p>A model has phases: phase 0 from the first line, phase 1 from {@code --drift-at} on, with new
 * weights; the generator also draws new popular ids from then on (another scramble of the Zipf
 * ranks), as real click logs drift. Anyone holding the seed can compute a line's probability from
 * the line alone ({@link #logit}), which is how the Bayes AUC is checked.
 */
public final class ClickModel {

    /** Dense columns of the model (0 for I1). */
    static final int[] DENSE = {0, 1, 2, 3, 4, 5};

    /**
     * Categorical columns of the model (0 for C1), with Kaggle cardinalities from 3 to ~10M: C2,
     * C5, C6, C9, C14, C17, C20, C23 and C3, C4 (the long tail).
     */
    static final int[] SPARSE = {1, 4, 5, 8, 13, 16, 19, 22, 2, 3};

    /** Standard deviation of an id's hidden weight. */
    static final double ID_WEIGHT_SD = 0.4;

    /** Standard deviation of a dense column's hidden weight. */
    static final double DENSE_WEIGHT_SD = 0.3;

    /** Centre of {@code log1p(value)} the dense weights apply to. */
    static final double DENSE_CENTRE = 2.0;

    /** The bias: about a quarter of lines are clicks, as in Criteo's Kaggle set. */
    static final double BIAS = -1.4;

    private final long seed;

    /** Per phase: the dense columns' weights. */
    private final double[][] denseWeights = new double[2][DENSE.length];

    public ClickModel(long seed) {
        this.seed = seed;
        for (int phase = 0; phase < 2; phase++) {
            for (int j = 0; j < DENSE.length; j++) {
                denseWeights[phase][j] = DENSE_WEIGHT_SD * gaussian(hash(seed, phase, -1 - j, 0));
            }
        }
    }

    public long seed() {
        return seed;
    }

    /** The dense columns' weights in {@code phase}, by {@link #denseColumns()}. */
    public double[] denseWeights(int phase) {
        return denseWeights[phase].clone();
    }

    /** The model's dense columns (0 for I1). */
    public static int[] denseColumns() {
        return DENSE.clone();
    }

    /** The model's categorical columns (0 for C1). */
    public static int[] sparseColumns() {
        return SPARSE.clone();
    }

    /** The hidden weight of id {@code id} of categorical column {@code c} in {@code phase}. */
    public double idWeight(int phase, int c, long id) {
        return ID_WEIGHT_SD * gaussian(hash(seed, phase, c, id));
    }

    /**
     * The logit of a line's click in {@code phase}, from its dense values ({@code dense[j]} for
     * I(j+1), {@code missing[j]} where absent) and its categorical ids ({@code ids[c]} for C(c+1),
     * {@code idMissing[c]} where absent).
     */
    public double logit(
            int phase, long[] dense, boolean[] denseMissing, long[] ids, boolean[] idMissing) {
        double z = BIAS;
        for (int j = 0; j < DENSE.length; j++) {
            int col = DENSE[j];
            if (!denseMissing[col]) {
                z += denseWeights[phase][j] * (Math.log1p(Math.max(0, dense[col])) - DENSE_CENTRE);
            }
        }
        for (int c : SPARSE) {
            if (!idMissing[c]) {
                z += idWeight(phase, c, ids[c]);
            }
        }
        return z;
    }

    /** The logistic function. */
    public static double sigmoid(double z) {
        return 1 / (1 + Math.exp(-z));
    }

    /**
     * The probability of a click on one Criteo line (tab-separated label, I1..I13, C1..C26) in
     * {@code phase}, or NaN if the line is not one of 40 well-formed fields.
     */
    public double probability(int phase, String line) {
        String[] f = line.split("\t", -1);
        if (f.length != CriteoLayout.FIELDS) {
            return Double.NaN;
        }
        long[] dense = new long[CriteoLayout.DENSE];
        boolean[] denseMissing = new boolean[CriteoLayout.DENSE];
        long[] ids = new long[CriteoLayout.SPARSE];
        boolean[] idMissing = new boolean[CriteoLayout.SPARSE];
        try {
            for (int j = 0; j < CriteoLayout.DENSE; j++) {
                denseMissing[j] = f[1 + j].isEmpty();
                dense[j] = denseMissing[j] ? 0 : Long.parseLong(f[1 + j]);
            }
            for (int c = 0; c < CriteoLayout.SPARSE; c++) {
                String id = f[1 + CriteoLayout.DENSE + c];
                idMissing[c] = id.isEmpty();
                ids[c] = idMissing[c] ? 0 : Long.parseUnsignedLong(id, 16);
            }
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
        return sigmoid(logit(phase, dense, denseMissing, ids, idMissing));
    }

    /** A 64-bit hash of the weight's coordinates. */
    static long hash(long seed, int phase, int column, long id) {
        long h = CriteoGenerator.mix64(seed * 0x9e3779b97f4a7c15L + phase);
        h = CriteoGenerator.mix64(h ^ (column * 0xc2b2ae3d27d4eb4fL));
        return CriteoGenerator.mix64(h ^ id);
    }

    /** A standard normal value from a hash (Box-Muller on its two 32-bit halves). */
    static double gaussian(long h) {
        double u1 = ((h >>> 32) + 0.5) / 4294967296.0;
        double u2 = ((h & 0xffffffffL) + 0.5) / 4294967296.0;
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }

    /**
     * The exact AUC of {@code scores} against {@code clicks}, by ranks: the fraction of (click,
     * non-click) pairs the scores order right, ties counting one half; NaN without both. For
     * checking a model, or {@link Auc}, on lines read back.
     */
    public static double rankAuc(double[] scores, boolean[] clicks) {
        Integer[] order = new Integer[scores.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(scores[a], scores[b]));
        double wins = 0;
        long positives = 0;
        long negativesBelow = 0;
        for (int i = 0; i < order.length; ) {
            int j = i;
            long pos = 0;
            long neg = 0;
            for (; j < order.length && scores[order[j]] == scores[order[i]]; j++) {
                if (clicks[order[j]]) {
                    pos++;
                } else {
                    neg++;
                }
            }
            wins += pos * (negativesBelow + neg / 2.0);
            positives += pos;
            negativesBelow += neg;
            i = j;
        }
        return positives == 0 || negativesBelow == 0
                ? Double.NaN
                : wins / ((double) positives * negativesBelow);
    }

    /**
     * The AUC of scores against labels, accumulated in {@link #BINS} bins of the score (ties within
     * a bin count one half): the Bayes AUC when the scores are the model's probabilities.
     */
    public static final class Auc {
        static final int BINS = 1 << 20;
        private final long[] positives = new long[BINS];
        private final long[] negatives = new long[BINS];
        private long count;

        public void add(double probability, boolean click) {
            int bin = (int) Math.min(BINS - 1, Math.max(0, probability * BINS));
            (click ? positives : negatives)[bin]++;
            count++;
        }

        public long count() {
            return count;
        }

        /** The AUC, or NaN without both a click and a non-click. */
        public double value() {
            long pos = Arrays.stream(positives).sum();
            long neg = Arrays.stream(negatives).sum();
            if (pos == 0 || neg == 0) {
                return Double.NaN;
            }
            double wins = 0;
            long negativesBelow = 0;
            for (int b = 0; b < BINS; b++) {
                wins += positives[b] * (negativesBelow + negatives[b] / 2.0);
                negativesBelow += negatives[b];
            }
            return wins / ((double) pos * neg);
        }
    }
}
