package dev.piper.hwmodel;

import dev.piper.hwmodel.MiniPipeDesign.Packing;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Time of a PIPER placement for measured column work (COMBINING.md, "Formulas"). The default is the
 * network-attached design of P2 on a U55C ({@link #piperNetwork(int)}): MiniPipe clock for the
 * configured pipeline count, column-packed beats, the stated off-chip IIs, and two passes over the
 * data when a column has a vocabulary (generate, then apply).
 *
 * @param design the MiniPipe design
 * @param sramBytes the device's on-chip memory
 * @param vocabularyShare the share of it that holds vocabularies
 * @param linkBytesPerSecond the input link
 * @param deviceMemoryBytes the off-chip memory: a two-pass run whose input does not fit is streamed
 *     twice
 * @param vocabularyPasses 2 as built; 1 models a fused single-pass design no paper built
 */
public record FpgaModel(
        MiniPipeDesign design,
        Parameter sramBytes,
        Parameter vocabularyShare,
        Parameter linkBytesPerSecond,
        Parameter deviceMemoryBytes,
        int vocabularyPasses) {

    /** Resources a device's time can be bound by. */
    public enum Resource {
        COMPUTE,
        DECODE,
        DATAPATH,
        LINK;

        public String modelName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public FpgaModel {
        if (vocabularyPasses != 1 && vocabularyPasses != 2) {
            throw new IllegalArgumentException(
                    "vocabulary passes: 1 or 2, not " + vocabularyPasses);
        }
    }

    /** P2's network-attached U55C running {@code pipelines} pipelines (one MiniPipe each). */
    public static FpgaModel piperNetwork(int pipelines) {
        return new FpgaModel(
                new MiniPipeDesign(
                        Math.min(pipelines, MiniPipeDesign.MAX_MINIPIPES), Packing.COLUMN),
                Parameter.quoted(43e6, "B", "P1 §4.1 / P2 §4.1.2: U55c 43 MB SRAM"),
                Parameter.assumed(0.5, "", "bracketed by the papers in [2%, 100%] (PARAMS.md §6)"),
                Parameter.quoted(
                        11e9,
                        "B/s",
                        "P2 §4.2.4: RDMA \"the maximum achieved throughput is about 11GB/s\""),
                Parameter.quoted(16e9, "B", "P1 §4.1: U55c 16 GB HBM"),
                2);
    }

    /**
     * The device's power while it runs the configuration whose vocabularies sit in {@code tiers}
     * (null: a column without one), as P2 Table 5 measured it on both datasets: 24 W for a
     * stateless pipeline (P-I), 25 W with small, on-chip vocabularies (P-II), 26 W with a large one
     * off chip (P-III); 17 W of it static.
     */
    public Parameter power(List<Tier> tiers) {
        boolean any = false;
        boolean offChip = false;
        for (Tier t : tiers) {
            any |= t != null;
            offChip |= t == Tier.OFFCHIP;
        }
        if (!any) {
            return Parameter.quoted(24, "W", "P2 Table 5: P-I (stateless), 24 W");
        }
        return offChip
                ? Parameter.quoted(26, "W", "P2 Table 5: P-III (large vocabularies), 26 W")
                : Parameter.quoted(25, "W", "P2 Table 5: P-II (small vocabularies), 25 W");
    }

    private double clockHz() {
        return design.clock().value();
    }

    /** The SRAM bytes given to vocabularies. */
    public double vocabularyBudgetBytes() {
        return sramBytes.value() * vocabularyShare.value();
    }

    /** The tier of each column's vocabulary (null for a column without one), in order. */
    public List<Tier> tiers(List<ColumnWork> columns) {
        return VocabularyTiers.assignColumns(columns, vocabularyBudgetBytes());
    }

    /** Bytes per value an operator reads: hex ids as 8 characters, everything else as int32. */
    static int inputWidth(Operator op) {
        return op == Operator.HEX2INT ? 8 : 4;
    }

    /** Beats {@code op} processes for {@code column} in one pass. */
    long beats(Operator op, ColumnWork column) {
        return MiniPipeDesign.columnBeats(column.values(), inputWidth(op));
    }

    /** Passes over the data for {@code column}. */
    int passes(ColumnWork column) {
        return column.hasVocabulary() ? vocabularyPasses : 1;
    }

    /**
     * The column's time with the device to itself ("isolated"): per pass, the slowest processing
     * element, the UTF-8 decoder being one of them when {@code utf8}; summed over the passes.
     */
    public double columnSeconds(ColumnWork column, Tier tier, boolean utf8) {
        return columnTime(column, tier, utf8).seconds();
    }

    /** {@link #columnSeconds} with the element that binds the column's longest pass. */
    public ColumnTime columnTime(ColumnWork column, Tier tier, boolean utf8) {
        int passes = passes(column);
        double decode = utf8 ? column.inputBytes() / 4.0 / clockHz() : 0;
        double[] seconds = new double[passes];
        String[] bound = new String[passes];
        for (int pass = 0; pass < passes; pass++) {
            seconds[pass] = decode;
            bound[pass] = "decode";
            for (Operator op : column.ops()) {
                if (op.runsIn(pass, passes)) {
                    double t = design.seconds(op, tier, beats(op, column));
                    if (t > seconds[pass]) {
                        seconds[pass] = t;
                        bound[pass] = op.modelName();
                    }
                }
            }
        }
        return ColumnTime.ofPasses(seconds, bound);
    }

    /**
     * The device's time for all {@code columns} together: the largest of the compute engines' (one
     * per operator and tier, serving every column that uses it), the shared decoder's, the
     * datapath's and the link's times.
     *
     * @param tiers each column's vocabulary tier, as {@link #tiers} gives them
     * @param utf8 whether the input is UTF-8 (then the decoder is a shared resource)
     */
    public BoundTime<Resource> deviceSeconds(
            List<ColumnWork> columns, List<Tier> tiers, boolean utf8) {
        Map<String, Double> engines = new LinkedHashMap<>();
        double bytes = 0;
        int passes = 1;
        for (int i = 0; i < columns.size(); i++) {
            ColumnWork c = columns.get(i);
            Tier tier = tiers.get(i) == null ? Tier.ONCHIP : tiers.get(i);
            int p = passes(c);
            passes = Math.max(passes, p);
            bytes += c.inputBytes();
            for (Operator op : c.ops()) {
                int runs = 0;
                for (int pass = 0; pass < p; pass++) {
                    runs += op.runsIn(pass, p) ? 1 : 0;
                }
                String engine = op.modelName() + (op.usesVocabulary() ? "/" + tier : "");
                engines.merge(engine, runs * design.seconds(op, tier, beats(op, c)), Double::sum);
            }
        }
        EnumMap<Resource, Double> byResource = new EnumMap<>(Resource.class);
        byResource.put(
                Resource.COMPUTE,
                engines.values().stream().mapToDouble(Double::doubleValue).max().orElse(0));
        byResource.put(Resource.DECODE, utf8 ? passes * bytes / 4.0 / clockHz() : 0);
        byResource.put(Resource.DATAPATH, passes * bytes / design.datapathBytesPerSecond());
        boolean restream = passes == 2 && bytes > deviceMemoryBytes.value();
        byResource.put(Resource.LINK, (restream ? 2 : 1) * bytes / linkBytesPerSecond.value());
        return BoundTime.of(byResource);
    }
}
