package dev.piper.pipeline.join;

/**
 * One action stream's labels of a row.
 *
 * @param label whether an action of the stream joined the impression (as the row knows it: a {@link
 *     EmitPolicy#NEGATIVE_FIRST} stream's is false in the first emission)
 * @param delayMs the first joined action's time less the impression's, or -1 without one
 * @param actions the joined actions (distinct ids), as far as the row knows them
 * @param value the sum of their values
 */
public record StreamLabel(boolean label, long delayMs, int actions, double value) {

    /** No action. */
    public static final StreamLabel NONE = new StreamLabel(false, -1, 0, 0);
}
