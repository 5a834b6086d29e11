package dev.piper.hwmodel;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The report of issue 7: per column of the data that flowed, the CPU core-seconds the job spent on
 * it against the time the model gives a PIPER FPGA and a PreSto SmartSSD for the same work, and the
 * whole device's time with its binding resource (COMBINING.md).
 *
 * <p>Speedups are {@code cpu_core_seconds / device seconds}: "vs one core" of the measuring
 * machine. A column's device time is its isolated time (the column has the device to itself); the
 * device time of all columns together is not their sum but the largest shared resource (pitfall 3),
 * and its speedup divides the job's whole CPU time by it.
 *
 * @param utf8 whether the input is UTF-8 text (the decoder is then a processing element and a
 *     shared resource)
 * @param columns each column's figures, in input order
 * @param fpga the FPGA's time for all columns together
 * @param smartSsd one SmartSSD's time for all columns together
 * @param jobCpuSeconds the CPU core-seconds of the whole job the device times are compared with
 * @param fpgaPower the FPGA's power in the configuration its vocabularies' tiers make
 * @param binaryFpga the FPGA's time for the same work on a binary input (a what-if)
 * @param binarySmartSsd one SmartSSD's time for the same work on a binary input (a what-if)
 */
public record CostReport(
        boolean utf8,
        List<ColumnCost> columns,
        BoundTime<FpgaModel.Resource> fpga,
        BoundTime<SmartSsdModel.Resource> smartSsd,
        double jobCpuSeconds,
        Parameter fpgaPower,
        BoundTime<FpgaModel.Resource> binaryFpga,
        BoundTime<SmartSsdModel.Resource> binarySmartSsd) {

    /**
     * Whether a column holds numbers (dense, or generated from a dense column's value) or
     * categorical ids (single or a list).
     */
    public enum Kind {
        DENSE,
        GENERATED,
        SPARSE;

        public String modelName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * What the job measured for one column.
     *
     * @param kind dense or sparse
     * @param work the values, bytes, chain and vocabulary
     * @param cpuCoreSeconds the CPU core-seconds attributed to the column
     */
    public record Measured(Kind kind, ColumnWork work, double cpuCoreSeconds) {
        public Measured {
            Objects.requireNonNull(kind);
            Objects.requireNonNull(work);
        }
    }

    /**
     * One column's figures.
     *
     * @param measured what the job measured
     * @param tier the vocabulary's tier on the FPGA (null without a vocabulary)
     * @param smartSsdTier the vocabulary's tier on the SmartSSD (null without a vocabulary)
     * @param fpga the column's isolated time on the FPGA, with what binds it
     * @param smartSsd its isolated time on one SmartSSD, with what binds it
     * @param binaryFpga the FPGA's time for the column on a binary input (a what-if: its values as
     *     int32, nothing to parse)
     * @param binarySmartSsd one SmartSSD's, likewise
     * @param smartSsdExtrapolated the operators of its chain PreSto never built
     */
    public record ColumnCost(
            Measured measured,
            Tier tier,
            Tier smartSsdTier,
            ColumnTime fpga,
            ColumnTime smartSsd,
            ColumnTime binaryFpga,
            ColumnTime binarySmartSsd,
            List<Operator> smartSsdExtrapolated) {

        /** The column's isolated time on the FPGA. */
        public double fpgaSeconds() {
            return fpga.seconds();
        }

        /** The column's isolated time on one SmartSSD. */
        public double smartSsdSeconds() {
            return smartSsd.seconds();
        }

        /** CPU core-seconds over FPGA seconds (0 when the column did no work). */
        public double fpgaSpeedup() {
            return ratio(measured.cpuCoreSeconds(), fpgaSeconds());
        }

        /** CPU core-seconds over SmartSSD seconds (0 when the column did no work). */
        public double smartSsdSpeedup() {
            return ratio(measured.cpuCoreSeconds(), smartSsdSeconds());
        }

        /** CPU core-seconds over the FPGA's seconds on a binary input (the what-if). */
        public double binaryFpgaSpeedup() {
            return ratio(measured.cpuCoreSeconds(), binaryFpga.seconds());
        }

        /** CPU core-seconds over one SmartSSD's seconds on a binary input (the what-if). */
        public double binarySmartSsdSpeedup() {
            return ratio(measured.cpuCoreSeconds(), binarySmartSsd.seconds());
        }
    }

    /**
     * Prices {@code columns} on {@code fpga} and {@code ssd}, each device placing the vocabularies
     * in its own on-chip memory.
     */
    public static CostReport of(
            List<Measured> columns,
            boolean utf8,
            double jobCpuSeconds,
            FpgaModel fpga,
            SmartSsdModel ssd) {
        List<ColumnWork> work = columns.stream().map(Measured::work).toList();
        List<Tier> tiers = fpga.tiers(work);
        List<Tier> ssdTiers = ssd.tiers(work);
        List<ColumnCost> out = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            ColumnWork w = work.get(i);
            Tier tier = tiers.get(i) == null ? Tier.ONCHIP : tiers.get(i);
            out.add(
                    new ColumnCost(
                            columns.get(i),
                            tiers.get(i),
                            ssdTiers.get(i),
                            fpga.columnTime(w, tier, utf8),
                            ssd.columnTime(w, ssdTiers.get(i)),
                            fpga.columnTime(w.asBinary(), tier, false),
                            ssd.columnTime(w.asBinary(), ssdTiers.get(i)),
                            SmartSsdModel.extrapolated(w)));
        }
        List<ColumnWork> binary = work.stream().map(ColumnWork::asBinary).toList();
        return new CostReport(
                utf8,
                List.copyOf(out),
                fpga.deviceSeconds(work, tiers, utf8),
                ssd.seconds(work, ssdTiers, utf8),
                jobCpuSeconds,
                fpga.power(tiers),
                fpga.deviceSeconds(binary, tiers, false),
                ssd.seconds(binary, ssdTiers, false));
    }

    /** The job's CPU core-seconds over the FPGA's time for all columns. */
    public double fpgaSpeedup() {
        return ratio(jobCpuSeconds, fpga.seconds());
    }

    /** The job's CPU core-seconds over one SmartSSD's time for all columns. */
    public double smartSsdSpeedup() {
        return ratio(jobCpuSeconds, smartSsd.seconds());
    }

    private static double ratio(double cpu, double device) {
        return device > 0 ? cpu / device : 0;
    }
}
