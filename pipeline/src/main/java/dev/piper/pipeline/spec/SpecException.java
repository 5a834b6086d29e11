package dev.piper.pipeline.spec;

import java.util.List;

/** A rejected spec: every problem found, each naming the field ({@code path: message}). */
public final class SpecException extends Exception {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public SpecException(String source, List<String> problems) {
        super(source + ": " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** Each problem as {@code path: message}. */
    public List<String> problems() {
        return problems;
    }
}
