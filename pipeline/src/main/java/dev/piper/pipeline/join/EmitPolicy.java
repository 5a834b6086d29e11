package dev.piper.pipeline.join;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * When an action stream's label reaches the rows ({@code docs/SEMANTICS.md}, "Label join"). Both
 * are deterministic in event time: the rows depend on the logs, never on when records arrived or on
 * the job's parallelism.
 */
public enum EmitPolicy {
    /**
     * The impression's row waits until the stream's window has closed by the watermark, then
     * carries 1 if an action joined it in the window, else 0 (Facebook's online joiner, He et al.
     * 2014). Exact labels; every row is as old as the longest such window.
     */
    WAIT("wait"),

    /**
     * The row is emitted at once with this stream's label 0 (a fake negative); if an action joins
     * it within the window, the impression is emitted again as a positive copy (Ktena et al.,
     * RecSys 2019). Fresh rows; the trainer must weigh the copies (the row says which it is).
     */
    NEGATIVE_FIRST("negative-first");

    private final String specName;

    EmitPolicy(String specName) {
        this.specName = specName;
    }

    /** The policy's name in a spec. */
    public String specName() {
        return specName;
    }

    /** The policy named {@code name} in a spec, if there is one. */
    public static Optional<EmitPolicy> of(String name) {
        return Arrays.stream(values()).filter(p -> p.specName.equals(name)).findFirst();
    }

    /** Every policy's spec name, for messages. */
    public static String names() {
        return Arrays.stream(values()).map(EmitPolicy::specName).collect(Collectors.joining(", "));
    }
}
