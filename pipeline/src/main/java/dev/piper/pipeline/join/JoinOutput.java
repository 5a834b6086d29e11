package dev.piper.pipeline.join;

/**
 * Where the join's outcomes go: every impression and every action ends in exactly one of them (the
 * positive copies are rows besides their impression's first emission).
 *
 * @param <T> the impression record's type
 */
public interface JoinOutput<T> {

    /** A row: an impression's first emission or a positive copy of it. */
    void row(JoinedRow<T> row);

    /** An impression whose negative row the sampling left out. */
    void sampledOut(Impression<T> impression);

    /** An impression that does not become a row, and why. */
    void rejected(Impression<T> impression, JoinReason reason);

    /** An action that joined {@code impression}. */
    void joined(Action action, Impression<T> impression);

    /** An action that joined no impression, and why. */
    void rejected(Action action, JoinReason reason);
}
