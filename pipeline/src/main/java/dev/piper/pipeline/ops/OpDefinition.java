package dev.piper.pipeline.ops;

import dev.piper.pipeline.ops.Chains.Kind;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * One operator's declaration, beside its record in {@link Op} (its {@code DEFINITION}): everything
 * the rest of piper derives from it. The spec parser reads the operator through {@link #parse()}
 * and names its {@link #params()} in messages; {@link Chains} lets the column {@link #kinds()} take
 * it (the record itself states its result type and its sign rules); the cost report prices it as
 * the hardware model's operator {@link #pricedAs()}; the broadcast state's serializer registers it
 * under {@link #tag()}; and the operator table of {@code docs/SPECS.md} is generated from the
 * documentation fields ({@code OpDefinitionTest} checks it).
 *
 * @param name the operator's name in specs
 * @param type its record
 * @param params the parameters a spec may give it, in the order docs name them
 * @param parametersDoc the parameters for the docs' table ("none" for none)
 * @param does what it does, for the docs' table
 * @param reference where the operator comes from, for the docs' table
 * @param kinds the column kinds whose chains take it
 * @param pricedAs the hardware model's name of the operator its work is priced as ({@code
 *     dev.piper.hwmodel.Operator}), or null for decode (the decoder's own work) and vocab (priced
 *     as GenVocab and ApplyVocab)
 * @param tag its serializer registration id: fixed forever, unique, a new operator takes a new one
 * @param parse builds the operator from a spec's parameters
 */
public record OpDefinition(
        String name,
        Class<? extends Op> type,
        List<String> params,
        String parametersDoc,
        String does,
        String reference,
        Set<Kind> kinds,
        String pricedAs,
        int tag,
        Function<OpParams, Op> parse) {

    /** Every column kind: decode and the fills apply to all. */
    static final Set<Kind> ALL_KINDS = Set.of(Kind.label, Kind.dense, Kind.sparse, Kind.list);

    /** The kinds of columns holding ids. */
    static final Set<Kind> IDS = Set.of(Kind.sparse, Kind.list);

    /** Dense columns only. */
    static final Set<Kind> DENSE = Set.of(Kind.dense);

    public OpDefinition {
        params = List.copyOf(params);
        kinds = Set.copyOf(kinds);
    }

    /** An operator without parameters, always the same value. */
    static OpDefinition constant(
            String name,
            Op value,
            String does,
            String reference,
            Set<Kind> kinds,
            String pricedAs,
            int tag) {
        return new OpDefinition(
                name,
                value.getClass(),
                List.of(),
                "none",
                does,
                reference,
                kinds,
                pricedAs,
                tag,
                p -> value);
    }

    /** Every operator's definition, in the order of their records: a chain's order. */
    public static List<OpDefinition> all() {
        return Registry.ALL;
    }

    /** Every operator name a spec may use, in that order. */
    public static List<String> names() {
        return Registry.ALL.stream().map(OpDefinition::name).toList();
    }

    /** The definition of operator {@code name}, if there is one. */
    public static Optional<OpDefinition> byName(String name) {
        return Optional.ofNullable(Registry.BY_NAME.get(name));
    }

    /** The definition of {@code op}'s operator. */
    public static OpDefinition of(Op op) {
        return of(op.getClass());
    }

    /** The definition of the operator whose record is {@code type}. */
    public static OpDefinition of(Class<? extends Op> type) {
        for (OpDefinition d : Registry.ALL) {
            if (d.type() == type) {
                return d;
            }
        }
        throw new IllegalArgumentException("no operator definition for " + type.getName());
    }

    /**
     * The operator table of {@code docs/SPECS.md}: name, parameters, what it does, the columns that
     * take it, where it comes from.
     */
    public static String markdownTable() {
        StringBuilder b = new StringBuilder();
        b.append("| operator | parameters | does | columns | reference |\n");
        b.append("|---|---|---|---|---|\n");
        for (OpDefinition d : Registry.ALL) {
            List<String> kinds = new ArrayList<>();
            for (Kind k : Kind.values()) {
                if (d.kinds().contains(k)) {
                    kinds.add(k.name());
                }
            }
            b.append("| `")
                    .append(d.name())
                    .append("` | ")
                    .append(d.parametersDoc())
                    .append(" | ")
                    .append(d.does())
                    .append(" | ")
                    .append(String.join(", ", kinds))
                    .append(" | ")
                    .append(d.reference())
                    .append(" |\n");
        }
        return b.toString();
    }

    /**
     * The definitions, found as the {@code DEFINITION} field of each record that {@link Op} permits
     * (through {@link DenseOp} and {@link IdOp}), so that a new operator is its record and nothing
     * else to register.
     */
    static final class Registry {
        static final List<OpDefinition> ALL = load();
        static final Map<String, OpDefinition> BY_NAME = byName(ALL);

        private static List<OpDefinition> load() {
            List<OpDefinition> all = new ArrayList<>();
            for (Class<?> type : records(Op.class)) {
                try {
                    Field f = type.getField("DEFINITION");
                    if (!Modifier.isStatic(f.getModifiers()) || f.getType() != OpDefinition.class) {
                        throw new NoSuchFieldException("DEFINITION");
                    }
                    OpDefinition d = (OpDefinition) f.get(null);
                    if (d.type() != type) {
                        throw new IllegalStateException(
                                type.getName() + ".DEFINITION describes " + d.type().getName());
                    }
                    all.add(d);
                } catch (NoSuchFieldException | IllegalAccessException e) {
                    throw new IllegalStateException(
                            "operator record "
                                    + type.getName()
                                    + " has no public static OpDefinition DEFINITION",
                            e);
                }
            }
            return List.copyOf(all);
        }

        /**
         * The operator records {@code type} permits, in order: those of a sealed sub-interface
         * ({@link DenseOp}, {@link IdOp}) at its place.
         */
        static List<Class<?>> records(Class<?> type) {
            List<Class<?>> out = new ArrayList<>();
            for (Class<?> c : type.getPermittedSubclasses()) {
                if (c.isInterface()) {
                    out.addAll(records(c));
                } else {
                    out.add(c);
                }
            }
            return out;
        }

        private static Map<String, OpDefinition> byName(List<OpDefinition> all) {
            Map<String, OpDefinition> m = new LinkedHashMap<>();
            for (OpDefinition d : all) {
                if (m.put(d.name(), d) != null) {
                    throw new IllegalStateException("two operators named " + d.name());
                }
            }
            return m;
        }
    }
}
