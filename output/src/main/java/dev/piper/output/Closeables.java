package dev.piper.output;

import java.io.Closeable;
import java.io.IOException;

/** Closing the several files of an output together. */
public final class Closeables {

    private Closeables() {}

    /**
     * Closes every one of {@code all}, even when some fail; then throws the first failure, with the
     * others suppressed in it.
     */
    public static void closeAll(Iterable<? extends Closeable> all) throws IOException {
        IOException first = null;
        for (Closeable c : all) {
            try {
                c.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
