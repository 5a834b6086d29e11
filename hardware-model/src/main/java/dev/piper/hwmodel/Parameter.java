package dev.piper.hwmodel;

/**
 * One number of the model with where it comes from.
 *
 * @param value the value
 * @param unit its unit, e.g. {@code cycles/beat}
 * @param provenance how it was obtained
 * @param source the paper, section and quote or reasoning (as in {@code shared/hwmodel/PARAMS.md})
 */
public record Parameter(double value, String unit, Provenance provenance, String source) {

    static Parameter quoted(double value, String unit, String source) {
        return new Parameter(value, unit, Provenance.QUOTED, source);
    }

    static Parameter fit(double value, String unit, String source) {
        return new Parameter(value, unit, Provenance.FIT, source);
    }

    static Parameter assumed(double value, String unit, String source) {
        return new Parameter(value, unit, Provenance.ASSUME, source);
    }
}
