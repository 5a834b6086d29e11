package dev.piper.job.control;

/**
 * Savepoint compatibility only: the name under which piper 0.1 (before the modules were
 * restructured) wrote the active-spec serializer's snapshot into savepoints. Flink restores a
 * serializer snapshot by its class name, so this name must stay loadable for users' running streams
 * to upgrade; the serializer itself is {@link dev.piper.operators.control.ActiveSpecSerializer}.
 * {@code SavepointCompatibilityITCase} restores a frozen 0.1 savepoint through it.
 */
public final class ActiveSpecSerializer {

    private ActiveSpecSerializer() {}

    /** The 0.1 snapshot class: restores as the current one, whose format it reads. */
    public static final class Snapshot
            extends dev.piper.operators.control.ActiveSpecSerializer.Snapshot {}
}
