package dev.piper.hwmodel;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Time of a PreSto placement (PS, {@code seeds/004_f9986ac17eaafd7a.txt}): the FPGA of a Samsung
 * SmartSSD reads its column data peer-to-peer from the SSD, decodes and transforms it, double
 * buffered, so its time is the largest of the three (COMBINING.md). PreSto publishes units and
 * resources but no initiation intervals: one element per cycle per feature PE and a 4 B/cycle
 * decoder are assumed (PARAMS.md §3.3); PreSto built only Decode, Bucketize, SigridHash and Log, so
 * other operators are priced with PIPER's per-value IIs and {@link #extrapolated flagged}.
 *
 * @param clock the units' clock
 * @param p2pBytesPerSecond the SSD to FPGA read bandwidth
 * @param decodeBytesPerCycle the Parquet/UTF-8 decoder's width
 * @param power the device's power
 */
public record SmartSsdModel(
        Parameter clock,
        Parameter p2pBytesPerSecond,
        Parameter decodeBytesPerCycle,
        Parameter power) {

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

    /** PreSto's SmartSSD. */
    public static SmartSsdModel presto() {
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
                        25, "W", "PS §IV-B: \"within the NVMe's 25 Watts power envelope\" (TDP)"));
    }

    /**
     * Cycles per element of {@code op} with its vocabulary in {@code tier}: 1 for PreSto's units
     * [ASSUME]; vocabulary operators as PIPER's stream design (GenVocab 2 on chip; off chip P1 §3.2
     * "about 15 cycles for a large vocabulary table in off-chip HBM").
     */
    public double initiationInterval(Operator op, Tier tier) {
        if (!op.usesVocabulary()) {
            return op == Operator.FILL_MISSING ? 0 : 1;
        }
        if (tier == Tier.OFFCHIP) {
            return 15;
        }
        return op == Operator.GENVOCAB ? 2 : 1;
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

    private static int passes(ColumnWork c) {
        return c.hasVocabulary() ? 2 : 1;
    }

    /** The time of {@code columns} on one SmartSSD (one column alone: its isolated time). */
    public BoundTime<Resource> seconds(List<ColumnWork> columns, List<Tier> tiers) {
        double f = clock.value();
        double read = 0;
        double decode = 0;
        Map<String, Double> engines = new LinkedHashMap<>();
        for (int i = 0; i < columns.size(); i++) {
            ColumnWork c = columns.get(i);
            Tier tier = tiers.get(i) == null ? Tier.ONCHIP : tiers.get(i);
            int p = passes(c);
            read += p * c.inputBytes() / p2pBytesPerSecond.value();
            decode += p * c.inputBytes() / decodeBytesPerCycle.value() / f;
            for (Operator op : c.ops()) {
                String engine = op.modelName() + (op.usesVocabulary() ? "/" + tier : "");
                engines.merge(engine, c.values() * initiationInterval(op, tier) / f, Double::sum);
            }
        }
        java.util.EnumMap<Resource, Double> byResource = new java.util.EnumMap<>(Resource.class);
        byResource.put(Resource.P2P, read);
        byResource.put(Resource.DECODE, decode);
        byResource.put(
                Resource.TRANSFORM,
                engines.values().stream().mapToDouble(Double::doubleValue).max().orElse(0));
        return BoundTime.of(byResource);
    }
}
