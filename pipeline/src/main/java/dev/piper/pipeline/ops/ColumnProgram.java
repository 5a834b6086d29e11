package dev.piper.pipeline.ops;

import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.Op.ValueType;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * The column chains a pipeline runs, one per field of its {@link RowLayout} (Criteo's unless the
 * spec declares another), as {@link Chains} allows them; compiled from a pipeline spec, or {@link
 * #dlrm(long)} for the built-in DLRM Criteo pipeline. The decoder runs everything but the
 * vocabulary, which is the keyed operator's.
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

    private static final long serialVersionUID = 3L;

    private final String name;
    private final int version;
    private final RowLayout layout;
    private final Op[][] chains;
    private final int[] epochs;

    // Derived from the chains, for the decoder's inner loops.
    private final long[] fill;
    private final boolean[] neg2zero;
    private final long[] modulus;
    private final Op[][] passOps;
    private final ValueType[] types;

    /** Per label/dense slot, the size of its trailing onehot, or 0 (a value of its own). */
    private final int[] onehot;

    /** A program of Criteo's layout. */
    public ColumnProgram(String name, int version, List<List<Op>> chains, int[] epochs) {
        this(name, version, RowLayout.CRITEO, chains, epochs);
    }

    /**
     * @param chains one chain per field of {@code layout} (label, I1.., C1..), each valid for its
     *     kind
     * @param epochs per sparse column, the vocabulary epoch its keys go to, from 0
     * @throws IllegalArgumentException naming the field of an invalid chain
     */
    public ColumnProgram(
            String name, int version, RowLayout layout, List<List<Op>> chains, int[] epochs) {
        int fields = layout.fields();
        if (chains.size() != fields) {
            throw new IllegalArgumentException(
                    "one chain per field (" + fields + ") expected, got " + chains.size());
        }
        if (epochs.length != layout.sparse()) {
            throw new IllegalArgumentException("one epoch per sparse column expected");
        }
        for (int e : epochs) {
            if (e < 0) {
                throw new IllegalArgumentException("negative vocabulary epoch " + e);
            }
        }
        this.name = name;
        this.version = version;
        this.layout = layout;
        this.epochs = epochs.clone();
        this.fill = new long[fields];
        this.neg2zero = new boolean[layout.labelDenseWidth()];
        this.modulus = new long[layout.sparse()];
        this.passOps = new Op[fields][];
        this.types = new ValueType[fields];
        this.onehot = new int[layout.labelDenseWidth()];
        this.chains = new Op[fields][];
        for (int f = 0; f < fields; f++) {
            List<Op> chain = List.copyOf(chains.get(f));
            int field = f;
            Chains.check(Chains.kindOf(layout, f), chain)
                    .ifPresent(
                            p -> {
                                throw new IllegalArgumentException(
                                        layout.fieldName(field)
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
        if (layout.isLabelOrDense(f)) {
            if (from < to && chain.get(from) instanceof DenseOp.Neg2Zero) {
                neg2zero[f] = true;
                from++;
            }
            if (from < to && chain.get(to - 1) instanceof DenseOp.OneHotOp h) {
                onehot[f] = h.size(); // applied as the row is written: the value is the category
                to--;
            }
        } else {
            from = 3; // after hex2int or hash64
            to--; // vocab
            if (from < to && chain.get(from) instanceof IdOp.Modulus m) {
                modulus[f - layout.labelDenseWidth()] = m.m();
                from++;
            } else {
                modulus[f - layout.labelDenseWidth()] = -1;
            }
        }
        passOps[f] = chain.subList(from, to).toArray(new Op[0]);
    }

    /**
     * The chains of PIPER's flags, in Criteo's layout: for sparse column {@code c} {@code
     * modulus[c]} (0 or less: none); for field {@code f} (1..13) {@code neg2zero[f]} and {@code
     * log[f]} (which needs neg2zero).
     */
    public ColumnProgram(
            String name, int version, long[] modulus, boolean[] neg2zero, boolean[] log) {
        this(name, version, modulus, neg2zero, log, new int[CriteoLayout.SPARSE]);
    }

    /** As above, with each sparse column's vocabulary epoch. */
    public ColumnProgram(
            String name,
            int version,
            long[] modulus,
            boolean[] neg2zero,
            boolean[] log,
            int[] epochs) {
        this(
                name,
                version,
                RowLayout.CRITEO,
                flagChains(RowLayout.CRITEO, modulus, neg2zero, log),
                epochs);
    }

    /**
     * The chains of PIPER's flags in any layout: as above, with one entry per column of {@code
     * layout}.
     */
    public static ColumnProgram ofFlags(
            String name,
            int version,
            RowLayout layout,
            long[] modulus,
            boolean[] neg2zero,
            boolean[] log) {
        return new ColumnProgram(
                name,
                version,
                layout,
                flagChains(layout, modulus, neg2zero, log),
                new int[layout.sparse()]);
    }

    private static List<List<Op>> flagChains(
            RowLayout layout, long[] modulus, boolean[] neg2zero, boolean[] log) {
        if (modulus.length != layout.sparse()
                || neg2zero.length != layout.labelDenseWidth()
                || log.length != layout.labelDenseWidth()) {
            throw new IllegalArgumentException("one entry per column expected");
        }
        if (neg2zero[0] || log[0]) {
            throw new IllegalArgumentException("the label takes neither neg2zero nor log");
        }
        List<List<Op>> chains = new ArrayList<>(neg2zero.length + modulus.length);
        chains.add(List.of(new Op.Decode(), new Op.FillMissing()));
        for (int f = 1; f < neg2zero.length; f++) {
            List<Op> chain = new ArrayList<>(List.of(new Op.Decode(), new Op.FillMissing()));
            if (neg2zero[f]) {
                chain.add(new DenseOp.Neg2Zero());
            }
            if (log[f]) {
                chain.add(new DenseOp.Log());
            }
            chains.add(chain);
        }
        for (int c = 0; c < modulus.length; c++) {
            List<Op> chain =
                    new ArrayList<>(
                            List.of(new Op.Decode(), new Op.FillMissing(), new Op.Hex2Int()));
            if (modulus[c] > 0) {
                chain.add(new IdOp.Modulus(modulus[c]));
            }
            chain.add(new Op.Vocab());
            chains.add(chain);
        }
        return chains;
    }

    /** DLRM's Criteo pipeline: neg2zero on every dense column, one modulus (if M > 0) for all. */
    public static ColumnProgram dlrm(long maxIndRange) {
        return dlrm(RowLayout.CRITEO, maxIndRange);
    }

    /** DLRM's pipeline in another layout: the same chains for more or fewer columns. */
    public static ColumnProgram dlrm(RowLayout layout, long maxIndRange) {
        long[] modulus = new long[layout.sparse()];
        Arrays.fill(modulus, maxIndRange > 0 ? maxIndRange : -1);
        boolean[] neg2zero = new boolean[layout.labelDenseWidth()];
        Arrays.fill(neg2zero, 1, neg2zero.length, true);
        return ofFlags(
                "dlrm-criteo", 1, layout, modulus, neg2zero, new boolean[layout.labelDenseWidth()]);
    }

    /**
     * The program that changes no value: each field as the line holds it (an empty field 0), ids as
     * parsed from hex, no modulus. For conversions ({@code bin/piper convert}).
     */
    public static ColumnProgram raw() {
        return raw(RowLayout.CRITEO);
    }

    /** {@link #raw()} in another layout. */
    public static ColumnProgram raw(RowLayout layout) {
        long[] modulus = new long[layout.sparse()];
        Arrays.fill(modulus, -1);
        return ofFlags(
                "raw",
                1,
                layout,
                modulus,
                new boolean[layout.labelDenseWidth()],
                new boolean[layout.labelDenseWidth()]);
    }

    public String name() {
        return name;
    }

    public int version() {
        return version;
    }

    /** The fields of the rows the program reads and writes. */
    public RowLayout layout() {
        return layout;
    }

    /** Field {@code f}'s chain. */
    public List<Op> chain(int f) {
        return List.of(chains[f]);
    }

    /**
     * Whether an empty list of sparse column {@code c} (a list column's empty field) becomes the
     * list of its fill value: with fill_null, not with fill_missing (which leaves it empty).
     */
    public boolean fillsEmptyList(int c) {
        return chains[layout.sparseField(c)][1] instanceof Op.FillNull;
    }

    /** The value an empty field {@code f} takes (an int32, or a sparse column's id). */
    public long fill(int f) {
        return fill[f];
    }

    /** Whether the parser applies neg2zero to field {@code f} (0 the label, then the dense). */
    public boolean neg2zero(int f) {
        return neg2zero[f];
    }

    /**
     * Whether sparse column {@code c} reads its ids with hash64 (a string id hashed), rather than
     * hex2int (hexadecimal text parsed).
     */
    public boolean hashesIds(int c) {
        return chains[layout.sparseField(c)][2] instanceof Op.Hash64;
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

    /**
     * Per label/dense slot, the size of the onehot its chain ends with (its value then becomes
     * {@code size - 1} columns of the output row), or 0; null if no chain has one.
     */
    public int[] onehotSizes() {
        for (int size : onehot) {
            if (size > 0) {
                return onehot.clone();
            }
        }
        return null;
    }

    /**
     * Bytes of one output row of int32 values: the layout's ({@link RowLayout#rowBytes()}), with
     * each onehot column's {@code size - 1} values in place of one.
     */
    public int rowBytes() {
        return layout.rowBytes(onehot);
    }

    /**
     * The names of an output row's int32 slots, in order ({@link #rowBytes()} / 4 of them): {@code
     * label}, the dense ({@code I1}..) and generated ({@code G1}..) columns, a onehot column of
     * {@code size} as {@code size - 1} slots {@code I3_0}, {@code I3_1}.., then the sparse columns
     * that hold one id per row ({@code C1}..; list columns are not in the row).
     */
    public List<String> rowColumns() {
        List<String> names = new ArrayList<>(rowBytes() / Integer.BYTES);
        for (int f = 0; f < layout.labelDenseWidth(); f++) {
            String name = layout.fieldName(f);
            if (onehot[f] > 0) {
                for (int k = 0; k < onehot[f] - 1; k++) {
                    names.add(name + "_" + k);
                }
            } else {
                names.add(name);
            }
        }
        for (int c : layout.scalarColumns()) {
            names.add(layout.fieldName(layout.sparseField(c)));
        }
        return names;
    }

    /**
     * If label/dense field {@code f}'s chain ends with a {@code bucketize}, its number of buckets
     * (its values are then ids {@code 0..n-1}, an embedding table's rows); otherwise 0.
     */
    public int bucketCount(int f) {
        Op[] chain = chains[f];
        return f < layout.labelDenseWidth()
                        && chain.length > 0
                        && chain[chain.length - 1] instanceof DenseOp.BucketizeOp b
                ? b.bucketize().buckets()
                : 0;
    }

    /** The names of the fields whose row slots hold float32 bits, in field order. */
    public List<String> float32Columns() {
        List<String> names = new ArrayList<>();
        for (int f = 0; f < layout.fields(); f++) {
            if (types[f] == ValueType.float32) {
                names.add(layout.fieldName(f));
            }
        }
        return names;
    }

    /** The type of field {@code f}'s output value: int32, or float32 written as its bits. */
    public ValueType type(int f) {
        return types[f];
    }

    /**
     * The number of distinct keys sparse column {@code c}'s chain can produce before its
     * vocabulary: the smallest modulus or sigrid_hash range after its last mapid or ngram, or 0 for
     * unbounded (2^64).
     */
    public long keyBound(int c) {
        long bound = 0;
        for (Op op : chains[layout.sparseField(c)]) {
            if (op instanceof IdOp.MapIdOp || op instanceof IdOp.NgramOp) {
                bound = 0; // a table's values, or an n-gram's hash, may lie anywhere
                continue;
            }
            long m =
                    op instanceof IdOp.Modulus mod
                            ? mod.m()
                            : op instanceof IdOp.SigridHashOp s ? s.max() : 0;
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
        Op[] chain = chains[layout.sparseField(c)];
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
        for (int f = 1; f <= layout.dense(); f++) {
            if (!chainOf(f).equals("decode fill_missing neg2zero")) {
                return OptionalLong.empty();
            }
        }
        long m = modulus[0];
        String sparse =
                "decode fill_missing hex2int" + (m > 0 ? " modulus(" + m + ")" : "") + " vocab";
        for (int c = 0; c < layout.sparse(); c++) {
            if (!chainOf(layout.sparseField(c)).equals(sparse)) {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.of(m > 0 ? m : -1);
    }

    /**
     * A short digest of what this program does to every field (each field's name, whether it is a
     * list, its chain with every parameter and vocabulary policy, its output type): equal for equal
     * programs, whatever their name and version; 16 hex digits of a SHA-256.
     */
    public String fingerprint() {
        StringBuilder text = new StringBuilder();
        for (int f = 0; f < layout.fields(); f++) {
            boolean list = !layout.isLabelOrDense(f) && layout.isList(f - layout.labelDenseWidth());
            text.append(layout.fieldName(f))
                    .append(list ? "[]" : "")
                    .append(' ')
                    .append(chainOf(f))
                    .append(' ')
                    .append(types[f])
                    .append('\n');
        }
        try {
            byte[] digest =
                    java.security.MessageDigest.getInstance("SHA-256")
                            .digest(
                                    text.toString()
                                            .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(digest, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
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
                && layout.equals(p.layout)
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
