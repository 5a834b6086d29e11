package dev.piper.core.cost;

import dev.piper.hwmodel.FpgaModel;
import dev.piper.hwmodel.Parameter;
import dev.piper.hwmodel.Provenance;
import java.io.Serializable;

/**
 * How the cost model reports.
 *
 * @param intervalMillis processing time between interval reports
 * @param intervalLines also report after this many more decoded lines (0: never)
 * @param fpgaVocabularyBytes on-chip bytes for vocabularies on the FPGA, or -1 for the model's
 *     default
 * @param fieldBytesEvery a decoder counts each field's bytes in its first block and every this many
 *     after it
 * @param warmupLines lines a warm-up run over the input's prefix processed in this JVM before the
 *     measured job (0: the measured job ran cold, its JIT warm-up included), stated in the report
 * @param fleet the throughput to size a fleet for, with power and prices
 */
public record ReportSettings(
        long intervalMillis,
        long intervalLines,
        long fpgaVocabularyBytes,
        int fieldBytesEvery,
        long warmupLines,
        FleetTarget fleet)
        implements Serializable {

    /** Settings without a warm-up or a fleet to size. */
    public ReportSettings(
            long intervalMillis,
            long intervalLines,
            long fpgaVocabularyBytes,
            int fieldBytesEvery) {
        this(
                intervalMillis,
                intervalLines,
                fpgaVocabularyBytes,
                fieldBytesEvery,
                0,
                FleetTarget.NONE);
    }

    /**
     * A trainer's rows per second to size the fleet of each device for (0: no sizing), with what
     * the fleet costs to run ({@code NaN}: unknown).
     *
     * @param rowsPerSecond the target
     * @param cpuWatts this machine's CPU package power, all its cores
     * @param dollarsPerKwh the electricity price
     * @param fpgaDollars one FPGA card's price
     * @param smartSsdDollars one SmartSSD's price
     * @param coreDollars one CPU core's price
     */
    public record FleetTarget(
            double rowsPerSecond,
            double cpuWatts,
            double dollarsPerKwh,
            double fpgaDollars,
            double smartSsdDollars,
            double coreDollars)
            implements Serializable {

        /** No sizing. */
        public static final FleetTarget NONE =
                new FleetTarget(
                        0,
                        Double.NaN,
                        dev.piper.hwmodel.Fleet.PRESTO_DOLLARS_PER_KWH,
                        Double.NaN,
                        Double.NaN,
                        Double.NaN);
    }

    /** The configuration key that sets {@link #fpgaVocabularyBytes}, named in the report. */
    public static final String FPGA_VOCABULARY_BYTES_KEY = "piper.report.fpga.vocabulary-bytes";

    /** The FPGA model for {@code pipelines} pipelines (one MiniPipe each) with these settings. */
    public FpgaModel fpga(int pipelines) {
        FpgaModel m = FpgaModel.piperNetwork(pipelines);
        if (fpgaVocabularyBytes < 0) {
            return m;
        }
        return new FpgaModel(
                m.design(),
                m.sramBytes(),
                new Parameter(
                        fpgaVocabularyBytes / m.sramBytes().value(),
                        "",
                        Provenance.ASSUME,
                        "set by " + FPGA_VOCABULARY_BYTES_KEY),
                m.linkBytesPerSecond(),
                m.deviceMemoryBytes(),
                m.vocabularyPasses());
    }
}
