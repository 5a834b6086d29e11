package dev.piper.hwmodel;

/**
 * Where a parameter of the model comes from, as tagged in {@code shared/hwmodel/PARAMS.md}. A
 * {@link #FIT} value was chosen to make a paper figure come out, so that figure no longer validates
 * the model.
 */
public enum Provenance {
    /** Quoted from a seed paper. */
    QUOTED,
    /** Not in the seeds; another public source. */
    EXT,
    /** Set to make a paper number come out exactly. */
    FIT,
    /** Arithmetic on quoted numbers. */
    DERIVED,
    /** No paper number behind it. */
    ASSUME
}
