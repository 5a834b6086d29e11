package dev.piper.operators.cost;

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
 */
public record ReportSettings(
        long intervalMillis, long intervalLines, long fpgaVocabularyBytes, int fieldBytesEvery)
        implements Serializable {

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
