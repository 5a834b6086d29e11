package dev.piper.operators.decode;

import java.io.Serializable;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * The stateless column operators a pipeline runs next to the decoder, per column: neg2zero and log
 * on dense columns, the modulus on sparse ones (fill_missing and hex2int always run; the vocabulary
 * is the keyed operator's). Compiled from a pipeline spec, or {@link #dlrm(long)} for the built-in
 * DLRM Criteo pipeline.
 *
 * <p>{@code log} writes {@code log(x + 1)} as float32, computed as DLRM's loader does on its
 * float32 tensors: {@code float32(x) + 1} in float32, its logarithm rounded to float32; the row
 * holds the float's IEEE bits in the column's int32 slot.
 *
 * <p>Each sparse column also has a vocabulary epoch, stamped on its key chunks: 0 for the spec a
 * job starts with; a spec switch that changes the column's chain before the vocabulary gives it the
 * next epoch, a vocabulary of its own with indices from 0.
 */
public final class ColumnProgram implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final int version;
    private final long[] modulus;
    private final boolean[] neg2zero;
    private final boolean[] log;
    private final int[] epochs;

    /**
     * @param name the pipeline's name
     * @param version the pipeline spec's version
     * @param modulus per sparse column (26), the modulus, or 0 or less for none
     * @param neg2zero per field (label and 13 dense; the label's entry must be false)
     * @param log per field (label and 13 dense; needs neg2zero on the same field)
     */
    public ColumnProgram(
            String name, int version, long[] modulus, boolean[] neg2zero, boolean[] log) {
        this(name, version, modulus, neg2zero, log, new int[CriteoLayout.SPARSE]);
    }

    /**
     * @param epochs per sparse column (26), the vocabulary epoch its keys go to, from 0
     */
    public ColumnProgram(
            String name,
            int version,
            long[] modulus,
            boolean[] neg2zero,
            boolean[] log,
            int[] epochs) {
        if (epochs.length != CriteoLayout.SPARSE) {
            throw new IllegalArgumentException("one epoch per sparse column expected");
        }
        for (int e : epochs) {
            if (e < 0) {
                throw new IllegalArgumentException("negative vocabulary epoch " + e);
            }
        }
        if (modulus.length != CriteoLayout.SPARSE
                || neg2zero.length != CriteoLayout.LABEL_DENSE_WIDTH
                || log.length != CriteoLayout.LABEL_DENSE_WIDTH) {
            throw new IllegalArgumentException("one entry per column expected");
        }
        if (neg2zero[0] || log[0]) {
            throw new IllegalArgumentException("the label takes neither neg2zero nor log");
        }
        for (int f = 1; f < log.length; f++) {
            if (log[f] && !neg2zero[f]) {
                throw new IllegalArgumentException(
                        CriteoLayout.fieldName(f) + ": log needs neg2zero before it");
            }
        }
        this.name = name;
        this.version = version;
        this.modulus = modulus.clone();
        this.neg2zero = neg2zero.clone();
        this.log = log.clone();
        this.epochs = epochs.clone();
    }

    /** DLRM's Criteo pipeline: neg2zero on every dense column, one modulus (if M > 0) for all. */
    public static ColumnProgram dlrm(long maxIndRange) {
        long[] modulus = new long[CriteoLayout.SPARSE];
        Arrays.fill(modulus, maxIndRange > 0 ? maxIndRange : -1);
        boolean[] neg2zero = new boolean[CriteoLayout.LABEL_DENSE_WIDTH];
        Arrays.fill(neg2zero, 1, neg2zero.length, true);
        return new ColumnProgram(
                "dlrm-criteo", 1, modulus, neg2zero, new boolean[CriteoLayout.LABEL_DENSE_WIDTH]);
    }

    public String name() {
        return name;
    }

    public int version() {
        return version;
    }

    /** The modulus of sparse column {@code c} (0 for C1), or 0 or less for none. */
    public long modulus(int c) {
        return modulus[c];
    }

    /** The vocabulary epoch of sparse column {@code c} (0 for C1). */
    public int epoch(int c) {
        return epochs[c];
    }

    /** Whether field {@code f} (0 the label, 1..13 dense) has neg2zero. */
    public boolean neg2zero(int f) {
        return neg2zero[f];
    }

    /** Whether field {@code f} (0 the label, 1..13 dense) has log. */
    public boolean log(int f) {
        return log[f];
    }

    /** The fields (1..13 for I1..I13) that have log, in order. */
    public int[] logFields() {
        int n = 0;
        for (boolean l : log) {
            n += l ? 1 : 0;
        }
        int[] fields = new int[n];
        for (int f = 0, i = 0; f < log.length; f++) {
            if (log[f]) {
                fields[i++] = f;
            }
        }
        return fields;
    }

    /** Whether any dense column has log. */
    public boolean anyLog() {
        for (boolean l : log) {
            if (l) {
                return true;
            }
        }
        return false;
    }

    /**
     * If this is DLRM's pipeline shape (neg2zero on every dense column, no log, one modulus for all
     * sparse columns), that modulus, or -1 for none; otherwise empty.
     */
    public OptionalLong dlrmMaxIndRange() {
        for (int f = 1; f < CriteoLayout.LABEL_DENSE_WIDTH; f++) {
            if (!neg2zero[f] || log[f]) {
                return OptionalLong.empty();
            }
        }
        for (long m : modulus) {
            if ((m > 0 ? m : -1) != (modulus[0] > 0 ? modulus[0] : -1)) {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.of(modulus[0] > 0 ? modulus[0] : -1);
    }

    /** The stateless part of field {@code f}'s chain, e.g. {@code hex2int modulus(1000)}. */
    public String chainOf(int f) {
        StringBuilder sb = new StringBuilder("decode fill_missing");
        if (f == 0) {
            return sb.toString();
        }
        if (f <= CriteoLayout.DENSE) {
            if (neg2zero[f]) {
                sb.append(" neg2zero");
            }
            if (log[f]) {
                sb.append(" log");
            }
            return sb.toString();
        }
        sb.append(" hex2int");
        long m = modulus[f - 1 - CriteoLayout.DENSE];
        if (m > 0) {
            sb.append(" modulus(").append(m).append(')');
        }
        return sb.append(" vocab").toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ColumnProgram p
                && version == p.version
                && name.equals(p.name)
                && Arrays.equals(modulus, p.modulus)
                && Arrays.equals(neg2zero, p.neg2zero)
                && Arrays.equals(log, p.log)
                && Arrays.equals(epochs, p.epochs);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * name.hashCode() + version) + Arrays.hashCode(modulus);
    }

    @Override
    public String toString() {
        return name + "/" + version;
    }
}
