package dev.piper.operators.block;

import java.util.function.Supplier;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Snapshot of a block serializer. Its version is the serializer's byte format (each serializer's
 * class comment gives the format and its history); it carries no payload.
 *
 * <p>Blocks live in state only while in flight (waiting for their turn or for their other columns),
 * so a build keeps a reader for its current format only. State written in another format is
 * reported as incompatible, naming both formats; such a savepoint restores with the build that
 * wrote it, after which a run with {@code --until-idle} drains the in-flight blocks.
 */
public abstract class BlockSerializerSnapshot<T> extends FormatSnapshot<T> {

    protected BlockSerializerSnapshot(
            String name, int currentFormat, Supplier<TypeSerializer<T>> serializer) {
        super(name, currentFormat, currentFormat, serializer);
    }
}
