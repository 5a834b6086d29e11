package dev.piper.pipeline.ops;

import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;

/**
 * The operators of sparse and list columns between {@code hex2int} and {@code vocab}: PIPER's
 * modulus, RAP's hashing and mapping operators, and those of lists. Each record is one operator's
 * room: its {@link OpDefinition} and its pass.
 */
public sealed interface IdOp extends Op {

    /**
     * What this operator makes of one id on its own: the same function its pass applies to every
     * id, used to find the key a hash64 string ends as (the original strings of a vocabulary), or
     * null where an id's result depends on the other ids of its list (an n-gram of two or more).
     *
     * @param tables a mapid table by file name, read once
     */
    LongUnaryOperator perId(Function<String, Long2LongOpenHashMap> tables);

    /** {@code id mod m} (unsigned), {@code m > 0}. */
    record Modulus(long m) implements IdOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "modulus",
                        Modulus.class,
                        List.of("m"),
                        "`m`: a positive integer",
                        "key = id mod m (unsigned)",
                        "PIPER, DLRM",
                        OpDefinition.IDS,
                        "modulus",
                        115,
                        p -> new Modulus(p.longValue("m", 1)));

        @Override
        public LongUnaryOperator perId(Function<String, Long2LongOpenHashMap> tables) {
            return id -> Long.remainderUnsigned(id, m);
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Modulus(g.width, g.fields, g.longs(Modulus.class, Modulus::m));
        }

        public Modulus {
            if (m <= 0) {
                throw new IllegalArgumentException("modulus m must be positive, not " + m);
            }
        }

        @Override
        public String label() {
            return "modulus(" + m + ")";
        }
    }

    /** Meta's SigridHash ({@link SigridHash}): the id hashed into {@code [0, max)}. */
    record SigridHashOp(long salt, long max) implements IdOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "sigrid_hash",
                        SigridHashOp.class,
                        List.of("salt", "max"),
                        "`salt`: int64, default 0; `max`: a positive integer",
                        "Meta's definition: `floorMod(hash_128_to_64(salt, twang_mix64(id)), max)` (folly's mixes, the hash read as signed), so keys lie in `[0, max)`",
                        "TorchRec, PreSto, RAP SigridHash",
                        OpDefinition.IDS,
                        "sigridhash",
                        123,
                        p ->
                                new SigridHashOp(
                                        p.has("salt") ? p.longValue("salt", Long.MIN_VALUE) : 0,
                                        p.longValue("max", 1)));

        @Override
        public LongUnaryOperator perId(Function<String, Long2LongOpenHashMap> tables) {
            return hash()::hash;
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.Sigrid(
                    g.width,
                    g.fields,
                    g.each(SigridHashOp.class, SigridHashOp::hash, SigridHash[]::new));
        }

        public SigridHashOp {
            new SigridHash(salt, max); // validates
        }

        /** The function this operator applies. */
        public SigridHash hash() {
            return new SigridHash(salt, max);
        }

        @Override
        public String label() {
            return "sigrid_hash(" + salt + "," + max + ")";
        }
    }

    /**
     * RAP's Mapid ({@link IdMap}): an id the table in {@code file} holds becomes its value; another
     * becomes {@code fallback}, or stays as it is when {@code fallback} is null.
     */
    record MapIdOp(String file, Long fallback) implements IdOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "mapid",
                        MapIdOp.class,
                        List.of("file", "default"),
                        "`file`: a table of `id<TAB>value` lines (unsigned decimals, an id at most once); `default` (optional): an id ≥ 0",
                        "an id the table holds becomes its value; another becomes `default`, or stays as it is without one. The table is read where the column's decoder runs (each decoder holds it: a fastutil map, about 24 bytes an id), once per file",
                        "RAP Mapid (\"maps feature IDs to fixed values\")",
                        OpDefinition.IDS,
                        "mapid",
                        124,
                        p ->
                                new MapIdOp(
                                        p.text("file"),
                                        p.has("default") ? p.longValue("default", 0) : null));

        @Override
        public LongUnaryOperator perId(Function<String, Long2LongOpenHashMap> tables) {
            return new IdMap(tables.apply(file), fallback)::map;
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.MapId(
                    g.width,
                    g.fields,
                    g.each(
                            MapIdOp.class,
                            op -> new IdMap(g.table(op.file()), op.fallback()),
                            IdMap[]::new));
        }

        public MapIdOp {
            if (file == null || file.isEmpty()) {
                throw new IllegalArgumentException("mapid needs a table file");
            }
        }

        @Override
        public String label() {
            return "mapid("
                    + file
                    + (fallback == null ? "" : ";default=" + Long.toUnsignedString(fallback))
                    + ")";
        }
    }

    /** RAP's FirstX ({@link FirstX}): a list cut to its first {@code x} ids; lists only. */
    record FirstXOp(int x) implements IdOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "firstx",
                        FirstXOp.class,
                        List.of("x"),
                        "`x`: an integer ≥ 1",
                        "lists only: a list cut to its first `min(x, length)` ids, no padding",
                        "RAP FirstX, TorchArrow `firstx`",
                        Set.of(Chains.Kind.list),
                        "firstx",
                        125,
                        p -> new FirstXOp(p.intValue("x", 1)));

        @Override
        public LongUnaryOperator perId(Function<String, Long2LongOpenHashMap> tables) {
            return LongUnaryOperator.identity(); // keeps the ids it keeps
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.ListPass(
                    g.width,
                    g.fields,
                    g.each(FirstXOp.class, FirstXOp::firstx, FirstX[]::new),
                    null);
        }

        public FirstXOp {
            if (x < 1) {
                throw new IllegalArgumentException("firstx \"x\" must be at least 1, not " + x);
            }
        }

        /** The function this operator applies. */
        public FirstX firstx() {
            return new FirstX(x);
        }

        @Override
        public String label() {
            return "firstx(" + x + ")";
        }
    }

    /**
     * RAP's Ngram ({@link Ngram}): a list's runs of {@code n} consecutive ids, each hashed into one
     * id; lists only.
     */
    record NgramOp(int n) implements IdOp {
        /** This operator's declaration ({@link OpDefinition}). */
        public static final OpDefinition DEFINITION =
                new OpDefinition(
                        "ngram",
                        NgramOp.class,
                        List.of("n"),
                        "`n`: 1 to 16",
                        "lists only: each run of `n` consecutive ids becomes one id, `h = x[i]`, then `h = hash_128_to_64(h, x[i+j])` for j = 1..n-1 (folly's mix, unsigned 64 bits); a list of k ids gives `max(0, k - n + 1)`. RAP describes Ngram as crossing several sparse features; this is the n-gram within one list. Follow it with `modulus` or `sigrid_hash` to bound the ids",
                        "RAP Ngram",
                        Set.of(Chains.Kind.list),
                        "ngram",
                        126,
                        p -> new NgramOp(p.intValue("n", 1)));

        @Override
        public LongUnaryOperator perId(Function<String, Long2LongOpenHashMap> tables) {
            return n == 1 ? LongUnaryOperator.identity() : null; // h = x[i] for n = 1
        }

        @Override
        public ColumnPasses.Pass pass(ColumnPasses.Group g) {
            return new ColumnPasses.ListPass(
                    g.width, g.fields, null, g.each(NgramOp.class, NgramOp::ngram, Ngram[]::new));
        }

        public NgramOp {
            new Ngram(n); // validates
        }

        /** The function this operator applies. */
        public Ngram ngram() {
            return new Ngram(n);
        }

        @Override
        public String label() {
            return "ngram(" + n + ")";
        }
    }
}
