package dev.piper.hwmodel;

/**
 * A column's isolated time on a device and what binds it: the processing element (or resource) that
 * is slowest in the pass that takes longest, by its model name ({@code decode}, {@code p2p}, {@code
 * genvocab}, ...).
 *
 * @param seconds the time, summed over the column's passes
 * @param bound the binding element of the longest pass ({@code "idle"} for a column without work)
 */
public record ColumnTime(double seconds, String bound) {

    /** The time of passes whose slowest elements took {@code passSeconds}, named {@code names}. */
    static ColumnTime ofPasses(double[] passSeconds, String[] names) {
        double total = 0;
        int longest = -1;
        for (int p = 0; p < passSeconds.length; p++) {
            total += passSeconds[p];
            if (passSeconds[p] > 0 && (longest < 0 || passSeconds[p] > passSeconds[longest])) {
                longest = p;
            }
        }
        return new ColumnTime(total, longest < 0 ? "idle" : names[longest]);
    }
}
