package dev.piper.job.spec;

import java.io.IOException;
import java.util.function.Supplier;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of a serializer whose values each name their own byte format and whose current build
 * reads every earlier format: its version is the format of the state it describes; state in an
 * earlier format is compatible after migration (read, written anew), a later one is refused with a
 * message naming both.
 */
public abstract class FormatSnapshot<T> implements TypeSerializerSnapshot<T> {

    private final String what;
    private final int currentFormat;
    private final Supplier<TypeSerializer<T>> serializer;
    private int readFormat;

    /**
     * @param what the state's name in messages
     * @param currentFormat the format this build writes
     * @param serializer a new serializer of this build
     */
    protected FormatSnapshot(
            String what, int currentFormat, Supplier<TypeSerializer<T>> serializer) {
        this.what = what;
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
        if (readVersion < 1 || readVersion > currentFormat) {
            throw new IOException(
                    what
                            + " state in format "
                            + readVersion
                            + "; this build reads 1.."
                            + currentFormat);
        }
        readFormat = readVersion;
    }

    @Override
    public final TypeSerializer<T> restoreSerializer() {
        return serializer.get();
    }

    @Override
    public final TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
            TypeSerializerSnapshot<T> old) {
        if (old.getClass() != getClass()) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        return ((FormatSnapshot<T>) old).readFormat == currentFormat
                ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                : TypeSerializerSchemaCompatibility.compatibleAfterMigration();
    }
}
