package dev.piper.operators.block;

import java.io.IOException;
import java.util.function.Supplier;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of a block serializer. Its version is the serializer's byte format (each serializer's
 * class comment gives the format and its history); it carries no payload.
 *
 * <p>Blocks live in state only while in flight (waiting for their turn or for their other columns),
 * so a build keeps a reader for its current format only. State written in another format is
 * reported as incompatible, naming both formats; such a savepoint restores with the build that
 * wrote it, after which a run with {@code --until-idle} drains the in-flight blocks.
 */
public abstract class BlockSerializerSnapshot<T> implements TypeSerializerSnapshot<T> {

    private final String name;
    private final int currentFormat;
    private final Supplier<TypeSerializer<T>> serializer;
    private int readFormat;

    protected BlockSerializerSnapshot(
            String name, int currentFormat, Supplier<TypeSerializer<T>> serializer) {
        this.name = name;
        this.currentFormat = currentFormat;
        this.serializer = serializer;
        this.readFormat = currentFormat;
    }

    @Override
    public final int getCurrentVersion() {
        return currentFormat;
    }

    @Override
    public final void writeSnapshot(DataOutputView out) {}

    @Override
    public final void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
            throws IOException {
        if (readVersion < 1) {
            throw new IOException(
                    "corrupt " + name + " serializer snapshot: format " + readVersion);
        }
        this.readFormat = readVersion;
    }

    /** The byte format of the state this snapshot describes. */
    final int formatVersion() {
        return readFormat;
    }

    @Override
    public final TypeSerializer<T> restoreSerializer() {
        if (readFormat != currentFormat) {
            throw new IllegalStateException(
                    name
                            + " state was written in format "
                            + readFormat
                            + "; this build reads only format "
                            + currentFormat);
        }
        return serializer.get();
    }

    @Override
    public final TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
            TypeSerializerSnapshot<T> oldSerializerSnapshot) {
        if (oldSerializerSnapshot.getClass() == getClass()
                && ((BlockSerializerSnapshot<T>) oldSerializerSnapshot).readFormat
                        == currentFormat) {
            return TypeSerializerSchemaCompatibility.compatibleAsIs();
        }
        return TypeSerializerSchemaCompatibility.incompatible();
    }
}
