package dev.piper.pipeline.ops;

import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.Op.ValueType;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which operator chains a column may have: the one place that knows, for the spec parser (which
 * names the offending field) and for {@code ColumnProgram} (which refuses an invalid chain).
 *
 * <ul>
 *   <li>label: {@code decode}, a fill ({@code fill_missing} or {@code fill_null});
 *   <li>dense: {@code decode}, a fill, then any sequence of {@code neg2zero}, {@code clamp}, {@code
 *       log}, {@code bucketize}, {@code boxcox}, {@code logit}, {@code cast}. The value starts as
 *       an int32; {@code log}, {@code boxcox} and {@code logit} make it a float32, {@code
 *       bucketize} an int32, {@code cast} either. {@code log} needs a value known to be
 *       non-negative ({@code log(x + 1)} is undefined below -1): after {@code neg2zero}, a {@code
 *       clamp} with {@code lo >= 0}, a {@code bucketize} or another {@code log}. A {@code clamp} of
 *       an int32 must hold an integer; {@code onehot} takes an int32 and comes last (its value is
 *       several columns);
 *   <li>sparse: {@code decode}, a fill, {@code hex2int} (or {@code hash64}, which reads a string id
 *       of named-field input), then any sequence of {@code modulus}, {@code sigrid_hash} and {@code
 *       mapid}, then {@code vocab};
 *   <li>list (a sparse column of the layout's list columns): as sparse, and {@code firstx} and
 *       {@code ngram} among the operators between {@code hex2int} and {@code vocab}, which apply to
 *       each id of the list (firstx and ngram to the list as a whole).
 * </ul>
 */
public final class Chains {

    /** Kinds of column of a layout. */
    public enum Kind {
        label,
        dense,
        sparse,
        list
    }

    /**
     * A chain's problem.
     *
     * @param at the offending operator's index, or -1 for the chain as a whole
     */
    public record Problem(int at, String message) {}

    /** The operators every chain is built around; the others fill the places between. */
    private static final Set<String> SKELETON =
            Set.of("decode", "fill_missing", "fill_null", "hex2int", "hash64", "vocab");

    private static final Set<String> FILLS = Set.of("fill_missing", "fill_null");

    private Chains() {}

    /** The kind of field {@code f} of the Criteo layout. */
    public static Kind kindOf(int f) {
        return kindOf(RowLayout.CRITEO, f);
    }

    /** The kind of field {@code f} of {@code layout}. */
    public static Kind kindOf(RowLayout layout, int f) {
        if (f == 0) {
            return Kind.label;
        }
        if (layout.isLabelOrDense(f)) {
            return Kind.dense;
        }
        return layout.isList(f - layout.labelDenseWidth()) ? Kind.list : Kind.sparse;
    }

    /** What a chain of {@code kind} may hold, for messages. */
    public static String grammar(Kind kind) {
        return switch (kind) {
            case label -> "label: decode, fill_missing or fill_null";
            case dense ->
                    "dense: decode, fill_missing or fill_null, then any of "
                            + String.join(", ", middle(Kind.dense));
            case sparse ->
                    "sparse: decode, fill_missing or fill_null, hex2int or hash64, any of "
                            + String.join(", ", middle(Kind.sparse))
                            + ", vocab";
            case list ->
                    "list: decode, fill_missing or fill_null, hex2int or hash64, any of "
                            + String.join(", ", middle(Kind.list))
                            + ", vocab";
        };
    }

    /** The chain's first problem, if it has one. */
    public static Optional<Problem> check(Kind kind, List<Op> chain) {
        for (int i = 0; i < chain.size(); i++) {
            Op op = chain.get(i);
            if (!allowed(kind, op.name())) {
                return problem(
                        i,
                        op.name()
                                + " does not apply to "
                                + kind
                                + " columns ("
                                + grammar(kind)
                                + ")");
            }
        }
        if (chain.isEmpty() || !(chain.get(0) instanceof Op.Decode)) {
            int at = indexOf(chain, "decode");
            return at < 0
                    ? problem(-1, "missing decode (" + grammar(kind) + ")")
                    : problem(at, "decode must come first");
        }
        for (int i = 1; i < chain.size(); i++) {
            String name = chain.get(i).name();
            if (name.equals("decode")) {
                return problem(i, "decode appears twice");
            }
            if (FILLS.contains(name) && i != 1) {
                return problem(
                        i,
                        FILLS.contains(chain.get(1).name())
                                ? name + " after " + chain.get(1).name() + ": one fill per column"
                                : name + " must come right after decode");
            }
        }
        if (chain.size() < 2 || !FILLS.contains(chain.get(1).name())) {
            return problem(-1, "missing fill_missing (or fill_null) after decode");
        }
        Optional<Problem> fill = checkFill(kind, chain.get(1));
        if (fill.isPresent()) {
            return fill;
        }
        return switch (kind) {
            case label -> Optional.empty();
            case dense -> checkDense(chain);
            case sparse, list -> checkSparse(kind, chain);
        };
    }

    /** The type of a valid dense chain's result (int32 for label and sparse chains). */
    public static ValueType resultType(List<Op> chain) {
        ValueType type = ValueType.int32;
        for (Op op : chain) {
            type = op.outType(type);
        }
        return type;
    }

    /** A chain as specs print it: its operators' labels, e.g. {@code decode fill_missing log}. */
    public static String label(List<Op> chain) {
        StringBuilder sb = new StringBuilder();
        for (Op op : chain) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(op.label());
        }
        return sb.toString();
    }

    private static Optional<Problem> checkFill(Kind kind, Op fill) {
        if (fill instanceof Op.FillNull f) {
            boolean ids = kind == Kind.sparse || kind == Kind.list;
            if (ids && f.value() < 0) {
                return problem(
                        1,
                        "fill_null \"value\" of a "
                                + kind
                                + " column is an id, 0 or more, not "
                                + f.value());
            }
            if (!ids && (f.value() < Integer.MIN_VALUE || f.value() > Integer.MAX_VALUE)) {
                return problem(
                        1,
                        "fill_null \"value\" of a "
                                + kind
                                + " column must be a 32-bit integer, not "
                                + f.value());
            }
        }
        return Optional.empty();
    }

    /** Each dense operator's own rule on the value it takes (its type, its sign, its place). */
    private static Optional<Problem> checkDense(List<Op> chain) {
        ValueType type = ValueType.int32;
        boolean nonNegative = false;
        for (int i = 2; i < chain.size(); i++) {
            Op op = chain.get(i);
            Optional<String> problem = op.denseProblem(type, nonNegative, i == chain.size() - 1);
            if (problem.isPresent()) {
                return problem(i, problem.get());
            }
            nonNegative = op.nonNegativeAfter(nonNegative);
            type = op.outType(type);
        }
        return Optional.empty();
    }

    private static Optional<Problem> checkSparse(Kind kind, List<Op> chain) {
        int hex = indexOf(chain, "hex2int");
        int hash = indexOf(chain, "hash64");
        if (hex < 0 && hash < 0) {
            return problem(-1, "missing hex2int or hash64 (" + grammar(kind) + ")");
        }
        if (hex >= 0 && hash >= 0) {
            return problem(Math.max(hex, hash), "hex2int and hash64: one reads the id, not both");
        }
        String parse = hex >= 0 ? "hex2int" : "hash64";
        if (Math.max(hex, hash) != 2) {
            return problem(Math.max(hex, hash), parse + " must come right after the fill");
        }
        int vocab = indexOf(chain, "vocab");
        if (vocab < 0) {
            return problem(-1, "missing vocab (" + grammar(kind) + ")");
        }
        for (int i = 3; i < chain.size(); i++) {
            String name = chain.get(i).name();
            if (name.equals(parse)) {
                return problem(i, parse + " appears twice");
            }
            if (name.equals("vocab") && i != chain.size() - 1) {
                return problem(i, "vocab must come last");
            }
        }
        return Optional.empty();
    }

    private static boolean allowed(Kind kind, String name) {
        return OpDefinition.byName(name).map(d -> d.kinds().contains(kind)).orElse(false);
    }

    /** The operators a chain of {@code kind} takes between its skeleton's, in docs order. */
    private static List<String> middle(Kind kind) {
        return OpDefinition.all().stream()
                .filter(d -> d.kinds().contains(kind) && !SKELETON.contains(d.name()))
                .map(OpDefinition::name)
                .toList();
    }

    private static int indexOf(List<Op> chain, String name) {
        for (int i = 0; i < chain.size(); i++) {
            if (chain.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static Optional<Problem> problem(int at, String message) {
        return Optional.of(new Problem(at, message));
    }
}
