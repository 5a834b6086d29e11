package dev.piper.operators.decode;

import static dev.piper.operators.decode.CriteoLayout.DENSE;
import static dev.piper.operators.decode.CriteoLayout.FIELDS;
import static dev.piper.operators.decode.CriteoLayout.LABEL_DENSE_WIDTH;
import static dev.piper.operators.decode.CriteoLayout.SPARSE;

import dev.piper.operators.ops.Chains;
import dev.piper.operators.ops.Op;
import dev.piper.operators.ops.Op.ValueType;
import dev.piper.state.VocabularyPolicy;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * The column chains a pipeline runs, one per field of the Criteo layout, as {@link Chains} allows
 * them; compiled from a pipeline spec, or {@link #dlrm(long)} for the built-in DLRM Criteo
 * pipeline. The decoder runs everything but the vocabulary, which is the keyed operator's.
 *
 * <p>How the decoder runs a chain: the fill (fill_missing's 0 or fill_null's value) takes the place
 * of an empty field while parsing; a neg2zero right after the fill of a dense column, and a modulus
 * right after hex2int, are fused into the parser too (PIPER merges them into its decoder); the rest
 * of each chain ({@link #passOps(int)}) runs as column passes over the decoded block ({@code
 * ColumnPasses}), the same operator over several columns in one loop (RAP's horizontal fusion).
 *
 * <p>A dense column's value is an int32 or a float32 ({@link #type(int)}); a float32 is written as
 * its IEEE bits in the row's int32 slot. {@code log} writes {@code log(x + 1)} computed as DLRM's
 * loader does on its float32 tensors: {@code float32(x) + 1} in float32, its logarithm rounded to
 * float32.
 *
 * <p>Each sparse column also has a vocabulary epoch, stamped on its key chunks: 0 for the spec a
 * job starts with; a spec switch that changes the column's chain before the vocabulary gives it the
 * next epoch, a vocabulary of its own with indices from 0.
 */
public final class ColumnProgram implements Serializable {

    private static final long serialVersionUID = 2L;

    private final String name;
    private final int version;
    private final Op[][] chains;
    private final int[] epochs;

    // Derived from the chains, for the decoder's inner loops.
    private final long[] fill = new long[FIELDS];
    private final boolean[] neg2zero = new boolean[LABEL_DENSE_WIDTH];
    private final long[] modulus = new long[SPARSE];
    private final Op[][] passOps = new Op[FIELDS][];
    private final ValueType[] types = new ValueType[FIELDS];

    /**
     * @param chains one chain per field (label, I1..I13, C1..C26), each valid for its kind
     * @param epochs per sparse column (26), the vocabulary epoch its keys go to, from 0
     * @throws IllegalArgumentException naming the field of an invalid chain
     */
    public ColumnProgram(String name, int version, List<List<Op>> chains, int[] epochs) {
        if (chains.size() != FIELDS) {
            throw new IllegalArgumentException(
                    "one chain per field expected, got " + chains.size());
        }
        if (epochs.length != SPARSE) {
            throw new IllegalArgumentException("one epoch per sparse column expected");
        }
        for (int e : epochs) {
            if (e < 0) {
                throw new IllegalArgumentException("negative vocabulary epoch " + e);
            }
        }
        this.name = name;
        this.version = version;
        this.epochs = epochs.clone();
        this.chains = new Op[FIELDS][];
        for (int f = 0; f < FIELDS; f++) {
            List<Op> chain = List.copyOf(chains.get(f));
            int field = f;
            Chains.check(Chains.kindOf(f), chain)
                    .ifPresent(
                            p -> {
                                throw new IllegalArgumentException(
                                        CriteoLayout.fieldName(field)
                                                + (p.at() >= 0 ? "[" + p.at() + "]" : "")
                                                + ": "
                                                + p.message());
                            });
            this.chains[f] = chain.toArray(new Op[0]);
            derive(f, chain);
        }
    }

    private void derive(int f, List<Op> chain) {
        fill[f] = chain.get(1) instanceof Op.FillNull n ? n.value() : 0;
        types[f] = Chains.resultType(chain);
        int from = 2;
        int to = chain.size();
        if (f == 0) {
            passOps[f] = new Op[0];
            return;
        }
        if (f <= DENSE) {
            if (from < to && chain.get(from) instanceof Op.Neg2Zero) {
                neg2zero[f] = true;
                from++;
            }
        } else {
            from = 3; // after hex2int
            to--; // vocab
            if (from < to && chain.get(from) instanceof Op.Modulus m) {
                modulus[f - 1 - DENSE] = m.m();
                from++;
            } else {
                modulus[f - 1 - DENSE] = -1;
            }
        }
        passOps[f] = chain.subList(from, to).toArray(new Op[0]);
    }

    /**
     * The chains of PIPER's flags: for sparse column {@code c} {@code modulus[c]} (0 or less:
     * none); for field {@code f} (1..13) {@code neg2zero[f]} and {@code log[f]} (which needs
     * neg2zero).
     */
    public ColumnProgram(
            String name, int version, long[] modulus, boolean[] neg2zero, boolean[] log) {
        this(name, version, modulus, neg2zero, log, new int[SPARSE]);
    }

    /** As above, with each sparse column's vocabulary epoch. */
    public ColumnProgram(
            String name,
            int version,
            long[] modulus,
            boolean[] neg2zero,
            boolean[] log,
            int[] epochs) {
        this(name, version, flagChains(modulus, neg2zero, log), epochs);
    }

    private static List<List<Op>> flagChains(long[] modulus, boolean[] neg2zero, boolean[] log) {
        if (modulus.length != SPARSE
                || neg2zero.length != LABEL_DENSE_WIDTH
                || log.length != LABEL_DENSE_WIDTH) {
            throw new IllegalArgumentException("one entry per column expected");
        }
        if (neg2zero[0] || log[0]) {
            throw new IllegalArgumentException("the label takes neither neg2zero nor log");
        }
        List<List<Op>> chains = new ArrayList<>(FIELDS);
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        for (int f = 1; f <= DENSE; f++) {
            List<Op> chain = new ArrayList<>(List.of(new Op.Decode(), new Op.FillMissing()));
            if (neg2zero[f]) {
                chain.add(new Op.Neg2Zero());
            }
            if (log[f]) {
                chain.add(new Op.Log());
            }
            chains.add(chain);
        }
        for (int c = 0; c < SPARSE; c++) {
            List<Op> chain =
                    new ArrayList<>(
                            List.of(new Op.Decode(), new Op.FillMissing(), new Op.Hex2Int()));
            if (modulus[c] > 0) {
                chain.add(new Op.Modulus(modulus[c]));
            }
            chain.add(new Op.Vocab());
            chains.add(chain);
        }
        return chains;
    }

    /** DLRM's Criteo pipeline: neg2zero on every dense column, one modulus (if M > 0) for all. */
    public static ColumnProgram dlrm(long maxIndRange) {
        long[] modulus = new long[SPARSE];
        Arrays.fill(modulus, maxIndRange > 0 ? maxIndRange : -1);
        boolean[] neg2zero = new boolean[LABEL_DENSE_WIDTH];
        Arrays.fill(neg2zero, 1, neg2zero.length, true);
        return new ColumnProgram(
                "dlrm-criteo", 1, modulus, neg2zero, new boolean[LABEL_DENSE_WIDTH]);
    }

    /**
     * The program that changes no value: each field as the line holds it (an empty field 0), ids as
     * parsed from hex, no modulus. For conversions ({@code bin/piper convert}).
     */
    public static ColumnProgram raw() {
        long[] modulus = new long[SPARSE];
        Arrays.fill(modulus, -1);
        return new ColumnProgram(
                "raw", 1, modulus, new boolean[LABEL_DENSE_WIDTH], new boolean[LABEL_DENSE_WIDTH]);
    }

    public String name() {
        return name;
    }

    public int version() {
        return version;
    }

    /** Field {@code f}'s chain. */
    public List<Op> chain(int f) {
        return List.of(chains[f]);
    }

    /** The value an empty field {@code f} takes (an int32, or a sparse column's id). */
    public long fill(int f) {
        return fill[f];
    }

    /** Whether the parser applies neg2zero to field {@code f} (0 the label, 1..13 dense). */
    public boolean neg2zero(int f) {
        return neg2zero[f];
    }

    /** The modulus the parser applies to sparse column {@code c} (0 for C1), or -1 for none. */
    public long modulus(int c) {
        return modulus[c];
    }

    /** The operators of field {@code f} that run as column passes after the block is decoded. */
    public List<Op> passOps(int f) {
        return List.of(passOps[f]);
    }

    /** Whether any field has column passes. */
    public boolean anyPasses() {
        for (Op[] ops : passOps) {
            if (ops.length > 0) {
                return true;
            }
        }
        return false;
    }

    /** The type of field {@code f}'s output value: int32, or float32 written as its bits. */
    public ValueType type(int f) {
        return types[f];
    }

    /**
     * The number of distinct keys sparse column {@code c}'s chain can produce before its
     * vocabulary: the smallest modulus or sigrid_hash range after its last mapid, or 0 for
     * unbounded (2^64).
     */
    public long keyBound(int c) {
        long bound = 0;
        for (Op op : chains[LABEL_DENSE_WIDTH + c]) {
            if (op instanceof Op.MapIdOp) {
                bound = 0; // a table's values may lie anywhere
                continue;
            }
            long m =
                    op instanceof Op.Modulus mod
                            ? mod.m()
                            : op instanceof Op.SigridHashOp s ? s.max() : 0;
            if (m > 0 && (bound == 0 || m < bound)) {
                bound = m;
            }
        }
        return bound;
    }

    /** The vocabulary epoch of sparse column {@code c} (0 for C1). */
    public int epoch(int c) {
        return epochs[c];
    }

    /** How sparse column {@code c}'s vocabulary gives out indices (its chain's last operator). */
    public VocabularyPolicy vocabPolicy(int c) {
        Op[] chain = chains[LABEL_DENSE_WIDTH + c];
        return ((Op.Vocab) chain[chain.length - 1]).policy();
    }

    /**
     * If this is DLRM's pipeline shape (decode, fill_missing, neg2zero on every dense column, one
     * modulus or none for all sparse columns), that modulus, or -1 for none; otherwise empty.
     */
    public OptionalLong dlrmMaxIndRange() {
        if (!chainOf(0).equals("decode fill_missing")) {
            return OptionalLong.empty();
        }
        for (int f = 1; f <= DENSE; f++) {
            if (!chainOf(f).equals("decode fill_missing neg2zero")) {
                return OptionalLong.empty();
            }
        }
        long m = modulus[0];
        String sparse =
                "decode fill_missing hex2int" + (m > 0 ? " modulus(" + m + ")" : "") + " vocab";
        for (int c = 0; c < SPARSE; c++) {
            if (!chainOf(LABEL_DENSE_WIDTH + c).equals(sparse)) {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.of(m > 0 ? m : -1);
    }

    /**
     * Field {@code f}'s chain as specs print it, e.g. {@code decode fill_missing hex2int vocab}.
     */
    public String chainOf(int f) {
        return Chains.label(List.of(chains[f]));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ColumnProgram p
                && version == p.version
                && name.equals(p.name)
                && Arrays.deepEquals(chains, p.chains)
                && Arrays.equals(epochs, p.epochs);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * name.hashCode() + version) + Arrays.deepHashCode(chains);
    }

    @Override
    public String toString() {
        return name + "/" + version;
    }
}
