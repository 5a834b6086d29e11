package dev.piper.pipeline.generate;

import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.sampling.distribution.RejectionInversionZipfSampler;
import org.apache.commons.rng.sampling.distribution.SharedStateDiscreteSampler;
import org.apache.commons.rng.simple.RandomSource;

/**
 * Seeded synthetic Criteo-like text: a label, 13 dense integer columns and 26 categorical columns
 * of hex ids, tab-separated, one row per line; or as many columns as another {@link RowLayout} has,
 * dense column {@code j} shaped as Criteo's {@code I(j mod 13 + 1)} and sparse column {@code c} as
 * {@code C(c mod 26 + 1)} (for PreSto's production mixes, which are described by their column
 * counts only). A list column of the layout holds a list of such ids, its length drawn uniformly
 * from {@code [0, 2 * meanListLength]}, joined by the layout's separator.
 *
 * <p>Shape, after the Criteo Kaggle (Display Advertising Challenge) training set:
 *
 * <ul>
 *   <li>per-column categorical cardinalities are Kaggle's ({@link CriteoLayout#KAGGLE_CARDINALITY})
 *       times {@code scale} (at least 1); ids are drawn Zipf-skewed (exponent {@value
 *       #ZIPF_EXPONENT}), so a few ids are hot and the tail is long;
 *   <li>missing-value rates per column are close to Kaggle's;
 *   <li>dense values are heavy-tailed non-negative counts; I2 is negative (-1, -2 or -3) in about 1
 *       row in 10, as in Kaggle;
 *   <li>ids are 8 hex digits (32-bit) except in {@link #WIDE_COLUMNS}, which carry 16-digit 64-bit
 *       ids (half of them at or above 2^63), so unsigned 64-bit parsing is exercised.
 * </ul>
 *
 * <p>With {@code badRate > 0}, that fraction of lines is replaced by a malformed line of one of the
 * kinds in {@link BadLine}, so every dead-letter reason occurs.
 *
 * <p>The same seed, row count, scale and bad rate give the same bytes.
 */
public final class CriteoGenerator {

    /** Approximate missing rates of Kaggle's dense columns I1..I13. */
    private static final double[] DENSE_MISSING = {
        0.45, 0.0, 0.21, 0.22, 0.03, 0.22, 0.04, 0.0005, 0.04, 0.45, 0.04, 0.77, 0.22
    };

    /** Largest typical value per dense column (the tail is drawn log-uniformly below it). */
    private static final int[] DENSE_MAX = {
        100, 3000, 10000, 100, 500000, 10000, 1000, 100, 2000, 5, 50, 100, 500
    };

    /** Approximate missing rates of Kaggle's categorical columns C1..C26. */
    private static final double[] SPARSE_MISSING = {
        0, 0, 0.034, 0.034, 0, 0.12, 0, 0, 0, 0, 0, 0.034, 0, 0, 0, 0.034, 0, 0, 0.44, 0.44, 0.034,
        0.76, 0, 0.034, 0.44, 0.44
    };

    /** Categorical columns (0-based) with 64-bit ids: C3 and C16. */
    public static final int[] WIDE_COLUMNS = {2, 15};

    public static final double ZIPF_EXPONENT = 1.05;

    private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes();

    private final RowLayout layout;
    private final UniformRandomProvider rng;
    private final SharedStateDiscreteSampler[] zipf;
    private final boolean[] wide;

    /** Per sparse column, whether it holds lists (the layout's, as an array for the row loop). */
    private final boolean[] list;

    private final long[] salt;
    private final long seed;
    private final double badRate;

    /** The hidden click model the labels follow, or null for Criteo's click rate alone. */
    private ClickModel model;

    /** The line from which the click model drifts, or -1 for never. */
    private long driftAt = -1;

    /** The click model's phase: 0, 1 after the drift. */
    private int phase;

    /** Per phase, the AUC of the model's probabilities against the labels drawn from them. */
    private final ClickModel.Auc[] bayes = {new ClickModel.Auc(), new ClickModel.Auc()};

    /** Lines written so far. */
    private long written;

    /** Scratch for a click-model row's fields. */
    private long[] dense;

    private boolean[] denseMissing;
    private long[] ids;
    private boolean[] idMissing;
    private final int maxListLength;
    private final byte[] line;
    private long bad;

    /** A generator of Criteo's layout. */
    public CriteoGenerator(long seed, double scale, double badRate) {
        this(RowLayout.CRITEO, seed, scale, badRate);
    }

    /** A generator of {@code layout}; its lists (if any) have 5 ids on average. */
    public CriteoGenerator(RowLayout layout, long seed, double scale, double badRate) {
        this(layout, seed, scale, badRate, 5);
    }

    /**
     * @param meanListLength the mean number of ids in a list column's field, 0 to 1,000
     */
    public CriteoGenerator(
            RowLayout layout, long seed, double scale, double badRate, int meanListLength) {
        if (!(scale > 0)) {
            throw new IllegalArgumentException("scale must be positive: " + scale);
        }
        if (!(badRate >= 0 && badRate <= 1)) {
            throw new IllegalArgumentException("bad rate must be in [0, 1]: " + badRate);
        }
        if (meanListLength < 0 || meanListLength > 1000) {
            throw new IllegalArgumentException(
                    "mean list length must be 0 to 1000: " + meanListLength);
        }
        this.layout = layout;
        this.maxListLength = 2 * meanListLength;
        this.rng = RandomSource.XO_RO_SHI_RO_128_PP.create(seed);
        this.seed = seed;
        this.badRate = badRate;
        int sparse = layout.sparse();
        zipf = new SharedStateDiscreteSampler[sparse];
        wide = new boolean[sparse];
        list = new boolean[sparse];
        salt = new long[sparse];
        // a label, dense values of at most 11 characters, ids of at most 16 digits, and tabs
        line =
                new byte
                        [12 * (1 + layout.dense())
                                + 17 * sparse
                                + 17 * maxListLength * layout.listColumns().size()];
        for (int c = 0; c < sparse; c++) {
            zipf[c] = RejectionInversionZipfSampler.of(rng, cardinality(c, scale), ZIPF_EXPONENT);
            salt[c] = mix64(seed * 31 + c + 1);
        }
        for (int c = 0; c < sparse; c++) {
            wide[c] = Arrays.binarySearch(WIDE_COLUMNS, c % CriteoLayout.SPARSE) >= 0;
            list[c] = layout.isList(c);
        }
    }

    /**
     * Draws every valid line's label from {@code model} instead of Criteo's click rate, and from
     * line {@code driftAt} on (-1: never) from its second phase, with new popular ids (another
     * scramble of each column's Zipf ranks). Criteo's layout only: the model reads its columns.
     *
     * @return this generator
     */
    public CriteoGenerator withClickModel(ClickModel model, long driftAt) {
        if (!layout.equals(RowLayout.CRITEO)) {
            throw new IllegalArgumentException(
                    "a click model reads Criteo's columns; this generator writes " + layout);
        }
        if (written > 0) {
            throw new IllegalStateException("a click model is set before the first line");
        }
        this.model = model;
        this.driftAt = driftAt;
        dense = new long[CriteoLayout.DENSE];
        denseMissing = new boolean[CriteoLayout.DENSE];
        ids = new long[CriteoLayout.SPARSE];
        idMissing = new boolean[CriteoLayout.SPARSE];
        return this;
    }

    /**
     * The AUC of the click model's probabilities against the labels written in {@code phase} (0:
     * before the drift, 1: from it on): the best AUC any model can expect on those lines. NaN
     * without a click model or without lines of the phase.
     */
    public double bayesAuc(int phase) {
        return model == null ? Double.NaN : bayes[phase].value();
    }

    /** Sparse column {@code c}'s cardinality at {@code scale}: Kaggle's {@code C(c mod 26 + 1)}. */
    public static int cardinality(int c, double scale) {
        return (int)
                Math.max(
                        1,
                        Math.round(
                                CriteoLayout.KAGGLE_CARDINALITY[c % CriteoLayout.SPARSE] * scale));
    }

    /** The fields of the rows written. */
    public RowLayout layout() {
        return layout;
    }

    /** Number of malformed lines written so far. */
    public long badLines() {
        return bad;
    }

    /** Writes {@code rows} lines, each ending in {@code \n}. */
    public void write(OutputStream out, long rows) throws IOException {
        for (long i = 0; i < rows; i++) {
            if (written == driftAt && model != null) {
                drift();
            }
            if (badRate > 0 && rng.nextDouble() < badRate) {
                bad++;
                BadLine.pick(rng).write(this, out);
            } else {
                int n = model == null ? formatRow(line) : formatClickRow(line, true);
                out.write(line, 0, n);
            }
            out.write('\n');
            written++;
        }
    }

    /** The click model's second phase: new weights, and new popular ids in every column. */
    private void drift() {
        phase = 1;
        for (int c = 0; c < salt.length; c++) {
            salt[c] = mix64(mix64(seed * 31 + c + 1) ^ 0x5851f42d4c957f2dL);
        }
    }

    /**
     * Formats one valid row of the click model, without line break, into {@code b}: the fields
     * drawn as {@link #formatRow} draws them, then the label from the model's probability (added to
     * the Bayes AUC when {@code score}); returns its length.
     */
    private int formatClickRow(byte[] b, boolean score) {
        for (int j = 0; j < CriteoLayout.DENSE; j++) {
            denseMissing[j] = rng.nextDouble() < DENSE_MISSING[j];
            if (!denseMissing[j]) {
                dense[j] = denseValue(j);
            }
        }
        for (int c = 0; c < CriteoLayout.SPARSE; c++) {
            idMissing[c] = rng.nextDouble() < SPARSE_MISSING[c];
            if (!idMissing[c]) {
                ids[c] = id(c);
            }
        }
        double p = ClickModel.sigmoid(model.logit(phase, dense, denseMissing, ids, idMissing));
        boolean click = rng.nextDouble() < p;
        if (score) {
            bayes[phase].add(p, click);
        }
        int at = writeInt(b, 0, click ? 1 : 0);
        for (int j = 0; j < CriteoLayout.DENSE; j++) {
            b[at++] = '\t';
            if (!denseMissing[j]) {
                at = writeInt(b, at, (int) dense[j]);
            }
        }
        for (int c = 0; c < CriteoLayout.SPARSE; c++) {
            b[at++] = '\t';
            if (!idMissing[c]) {
                at = writeHex(b, at, ids[c], wide[c] ? 16 : 8);
            }
        }
        return at;
    }

    /** A value of dense column {@code j} (Criteo's {@code I(j mod 13 + 1)}), present. */
    private int denseValue(int j) {
        if (j == 1 && rng.nextDouble() < 0.1) {
            return -1 - rng.nextInt(3);
        }
        return (int) Math.floor(Math.expm1(rng.nextDouble() * Math.log1p(DENSE_MAX[j])));
    }

    /** An id of sparse column {@code c}: a Zipf rank, scrambled. */
    private long id(int c) {
        long rank = zipf[c].sample();
        return wide[c] ? mix64(rank ^ salt[c]) : mix32((int) (rank ^ salt[c])) & 0xffffffffL;
    }

    /** Formats one valid row, without line break, into {@code b}; returns its length. */
    int formatRow(byte[] b) {
        if (model != null) {
            return formatClickRow(b, false);
        }
        int p = 0;
        p = writeInt(b, p, rng.nextDouble() < 0.256 ? 1 : 0);
        for (int i = 0; i < layout.dense(); i++) {
            int j = i % CriteoLayout.DENSE;
            b[p++] = '\t';
            if (rng.nextDouble() < DENSE_MISSING[j]) {
                continue;
            }
            int v;
            if (j == 1 && rng.nextDouble() < 0.1) {
                v = -1 - rng.nextInt(3);
            } else {
                v = (int) Math.floor(Math.expm1(rng.nextDouble() * Math.log1p(DENSE_MAX[j])));
            }
            p = writeInt(b, p, v);
        }
        for (int c = 0; c < layout.sparse(); c++) {
            b[p++] = '\t';
            if (rng.nextDouble() < SPARSE_MISSING[c % CriteoLayout.SPARSE]) {
                continue;
            }
            if (list[c]) {
                int n = rng.nextInt(maxListLength + 1);
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        b[p++] = (byte) layout.listSeparator();
                    }
                    p = writeId(b, p, c);
                }
            } else {
                p = writeId(b, p, c);
            }
        }
        return p;
    }

    /** Writes an id of sparse column {@code c}: a Zipf rank, scrambled, in hex. */
    private int writeId(byte[] b, int p, int c) {
        long rank = zipf[c].sample();
        if (wide[c]) {
            return writeHex(b, p, mix64(rank ^ salt[c]), 16);
        }
        return writeHex(b, p, mix32((int) (rank ^ salt[c])) & 0xffffffffL, 8);
    }

    UniformRandomProvider rng() {
        return rng;
    }

    static int writeInt(byte[] b, int p, int v) {
        byte[] digits = Integer.toString(v).getBytes();
        System.arraycopy(digits, 0, b, p, digits.length);
        return p + digits.length;
    }

    static int writeHex(byte[] b, int p, long v, int digits) {
        for (int i = digits - 1; i >= 0; i--) {
            b[p + i] = HEX_DIGITS[(int) (v & 0xf)];
            v >>>= 4;
        }
        return p + digits;
    }

    /** A bijection on 64-bit values (Stafford's variant 13 finalizer). */
    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** A bijection on 32-bit values (MurmurHash3's finalizer). */
    static int mix32(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }

    /** Splits a valid row into its fields (for the malformed-line makers). */
    byte[][] rowFields() {
        int n = formatRow(line);
        byte[][] fields = new byte[layout.inputFields()][];
        int start = 0;
        int f = 0;
        for (int i = 0; i <= n; i++) {
            if (i == n || line[i] == '\t') {
                fields[f++] = Arrays.copyOfRange(line, start, i);
                start = i + 1;
            }
        }
        return fields;
    }
}
