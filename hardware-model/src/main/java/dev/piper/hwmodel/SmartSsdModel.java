package dev.piper.hwmodel;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Time of a PreSto placement (PS, {@code seeds/004_f9986ac17eaafd7a.txt}): the FPGA of a Samsung
 * SmartSSD reads its data peer-to-peer from the SSD, decodes and transforms it, double buffered, so
 * in each pass over the data its time is the largest of the three (COMBINING.md). PreSto publishes
 * units and resources but no initiation intervals: one element per cycle per unit and a 4 B/cycle
 * decoder are assumed (PARAMS.md §3.3). PreSto built only Decode, Bucketize, SigridHash and Log:
 * other operators are priced with PIPER's initiation intervals and {@link #extrapolated flagged}. A
 * column with a vocabulary takes two passes (generate, then apply), as on PIPER: each pass reads
 * and decodes again, and its own operators run in it.
 *
 * <p>The vocabulary tables get the on-chip memory PreSto's units leave free on the SmartSSD's FPGA
 * ({@link #presto()}); a table that does not fit lives in the FPGA's DDR4, where each access takes
 * {@link #offChipInitiationInterval} cycles.
 *
 * @param clock the units' clock
 * @param p2pBytesPerSecond the SSD to FPGA read bandwidth
 * @param decodeBytesPerCycle the Parquet/UTF-8 decoder's width
 * @param power the device's power
 * @param vocabularyBytes the on-chip memory the vocabulary tables may use
 * @param offChipInitiationInterval cycles per element of GenVocab and ApplyVocab with their table
 *     off chip
 */
public record SmartSsdModel(
        Parameter clock,
        Parameter p2pBytesPerSecond,
        Parameter decodeBytesPerCycle,
        Parameter power,
        Parameter vocabularyBytes,
        Parameter offChipInitiationInterval) {

    /** Operators PreSto built (PS Table II), with fill_missing as part of decoding. */
    public static final Set<Operator> BUILT =
            EnumSet.of(
                    Operator.FILL_MISSING, Operator.BUCKETIZE, Operator.SIGRIDHASH, Operator.LOG);

    /** Resources a SmartSSD's time can be bound by. */
    public enum Resource {
        P2P,
        DECODE,
        TRANSFORM;

        public String modelName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Block RAM of the XCKU15P, the SmartSSD's FPGA [EXT], in bits. */
    static final double KU15P_BLOCK_RAM_BITS = 34.6e6;

    /** UltraRAM of the XCKU15P [EXT], in bits. */
    static final double KU15P_ULTRA_RAM_BITS = 36.0e6;

    /** Shares of the device's block RAM and UltraRAM PreSto's units use (PS Table II, total). */
    static final double PRESTO_BRAM_SHARE = 0.4805;

    static final double PRESTO_URAM_SHARE = 0.2759;

    /** PreSto's SmartSSD. */
    public static SmartSsdModel presto() {
        double freeBits =
                KU15P_BLOCK_RAM_BITS * (1 - PRESTO_BRAM_SHARE)
                        + KU15P_ULTRA_RAM_BITS * (1 - PRESTO_URAM_SHARE);
        return new SmartSsdModel(
                Parameter.quoted(
                        223e6,
                        "Hz",
                        "PS Table II caption: \"synthesized with an operating frequency of"
                                + " 223MHz\""),
                new Parameter(
                        2.36e9,
                        "B/s",
                        Provenance.EXT,
                        "Xilinx Vitis_Accel_Examples p2p_bandwidth on the SmartSSD platform"),
                Parameter.assumed(4, "B/cycle", "no PreSto figure; as PIPER's decoder"),
                Parameter.quoted(
                        25, "W", "PS §IV-B: \"within the NVMe's 25 Watts power envelope\" (TDP)"),
                new Parameter(
                        freeBits / 8,
                        "B",
                        Provenance.DERIVED,
                        "the XCKU15P's 34.6 Mb block RAM and 36.0 Mb UltraRAM [EXT: AMD UltraScale+"
                                + " selection guide; the SmartSSD's FPGA, a Kintex UltraScale+ of"
                                + " 1,143K logic cells] less PreSto's units (PS Table II: BRAM"
                                + " 48.05%, URAM 27.59%)"),
                Parameter.quoted(
                        6,
                        "cycles/element",
                        "P2 §3.4.2: off-chip memory \"achieving an II of approximately six"
                                + " cycles\" (VocabGen; VocabMap likewise)"));
    }

    /**
     * Cycles per element of {@code op} with its vocabulary in {@code tier}: 1 for PreSto's units
     * [ASSUME]; the vocabulary operators as PIPER's network design (P2 §3.4.2: GenVocab 2 and
     * ApplyVocab 1 on chip, about 6 off chip).
     */
    public Parameter initiationInterval(Operator op, Tier tier) {
        if (op == Operator.FILL_MISSING) {
            return Parameter.quoted(0, "cycles/element", "merged into decoding (P1 §3.1)");
        }
        if (!op.usesVocabulary()) {
            return Parameter.assumed(1, "cycles/element", "PreSto publishes no II (PARAMS §3.3)");
        }
        if (tier == Tier.OFFCHIP) {
            return offChipInitiationInterval;
        }
        return op == Operator.GENVOCAB
                ? Parameter.quoted(
                        2,
                        "cycles/element",
                        "P2 §3.4.2: \"on-chip memory offering an II of two cycles\"")
                : Parameter.quoted(
                        1, "cycles/element", "P2 §3.4.2: \"one cycle when stored in on-chip\"");
    }

    /** The operators of {@code column} that PreSto never built, priced by extrapolation. */
    public static List<Operator> extrapolated(ColumnWork column) {
        List<Operator> out = new ArrayList<>();
        for (Operator op : column.ops()) {
            if (!BUILT.contains(op)) {
                out.add(op);
            }
        }
        return out;
    }

    /** Passes over the data for {@code column}: two with a vocabulary (generate, apply). */
    static int passes(ColumnWork c) {
        return c.hasVocabulary() ? 2 : 1;
    }

    /** The tier of each column's vocabulary on the SmartSSD (null without one), in order. */
    public List<Tier> tiers(List<ColumnWork> columns) {
        return VocabularyTiers.assignColumns(columns, vocabularyBytes.value());
    }

    private double clockHz() {
        return clock.value();
    }

    /** Seconds of one unit running {@code op} over {@code values} elements. */
    double unitSeconds(Operator op, Tier tier, long values) {
        return values * initiationInterval(op, tier).value() / clockHz();
    }

    /**
     * The column's time with the device to itself ("isolated"): per pass, the largest of reading
     * its bytes, decoding them and the slowest of its units running in that pass; summed over the
     * passes.
     */
    public double columnSeconds(ColumnWork column, Tier tier) {
        return columnTime(column, tier).seconds();
    }

    /** {@link #columnSeconds} with the resource or unit that binds the column's longest pass. */
    public ColumnTime columnTime(ColumnWork column, Tier tier) {
        Tier t = tier == null ? Tier.ONCHIP : tier;
        int passes = passes(column);
        double read = column.inputBytes() / p2pBytesPerSecond.value();
        double decode = column.inputBytes() / decodeBytesPerCycle.value() / clockHz();
        double[] seconds = new double[passes];
        String[] bound = new String[passes];
        for (int pass = 0; pass < passes; pass++) {
            seconds[pass] = Math.max(read, decode);
            bound[pass] = read > decode ? Resource.P2P.modelName() : Resource.DECODE.modelName();
            for (Operator op : column.ops()) {
                if (op.runsIn(pass, passes)) {
                    double u = unitSeconds(op, t, column.values());
                    if (u > seconds[pass]) {
                        seconds[pass] = u;
                        bound[pass] = op.modelName();
                    }
                }
            }
        }
        return ColumnTime.ofPasses(seconds, bound);
    }

    /**
     * The time of {@code columns} together on one SmartSSD: the largest of the P2P read, the
     * decoder and the busiest unit (one per operator and tier, serving every column that uses it,
     * in every pass it runs in). A second pass reads again what it needs: on UTF-8 text, whole rows
     * (a column's bytes cannot be read apart from its row's); on a columnar input, only the columns
     * with a vocabulary.
     *
     * @param tiers each column's vocabulary tier, as {@link #tiers} gives them
     * @param utf8 whether the input is UTF-8 text
     */
    public BoundTime<Resource> seconds(List<ColumnWork> columns, List<Tier> tiers, boolean utf8) {
        double readBytes = 0;
        double allBytes = 0;
        int passes = 1;
        Map<String, Double> units = new LinkedHashMap<>();
        for (int i = 0; i < columns.size(); i++) {
            ColumnWork c = columns.get(i);
            Tier tier = tiers.get(i) == null ? Tier.ONCHIP : tiers.get(i);
            int p = passes(c);
            passes = Math.max(passes, p);
            allBytes += c.inputBytes();
            readBytes += p * (double) c.inputBytes();
            for (Operator op : c.ops()) {
                int runs = 0;
                for (int pass = 0; pass < p; pass++) {
                    runs += op.runsIn(pass, p) ? 1 : 0;
                }
                String unit = op.modelName() + (op.usesVocabulary() ? "/" + tier : "");
                units.merge(unit, runs * unitSeconds(op, tier, c.values()), Double::sum);
            }
        }
        if (utf8) {
            readBytes = passes * allBytes;
        }
        EnumMap<Resource, Double> byResource = new EnumMap<>(Resource.class);
        byResource.put(Resource.P2P, readBytes / p2pBytesPerSecond.value());
        byResource.put(Resource.DECODE, readBytes / decodeBytesPerCycle.value() / clockHz());
        byResource.put(
                Resource.TRANSFORM,
                units.values().stream().mapToDouble(Double::doubleValue).max().orElse(0));
        return BoundTime.of(byResource);
    }
}
