package dev.piper.cli;

import java.nio.file.Path;

/** The checkout {@code bin/piper} runs from (its {@code -Dpiper.home}). */
final class PiperHome {

    private PiperHome() {}

    /**
     * @throws IllegalStateException if the command line was not started by {@code bin/piper}
     */
    static Path get() {
        String home = System.getProperty("piper.home");
        if (home == null) {
            throw new IllegalStateException(
                    "piper.home is not set: run this through bin/piper, which sets it");
        }
        return Path.of(home);
    }
}
