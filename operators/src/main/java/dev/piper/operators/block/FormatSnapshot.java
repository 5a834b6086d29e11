package dev.piper.operators.block;

import java.io.IOException;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of a serializer whose byte format has a version: the snapshot's version is the format of
 * the state it describes, and it carries no payload. A build writes its current format and reads
 * the formats from {@code oldestFormat} to it: state in the current format is compatible as is, in
 * an older readable one after migration (read, written anew); any other is incompatible, and
 * restoring it fails with a message naming the state's format and the readable ones.
 *
 * <p>Savepoints name the snapshot class. A snapshot class that moves keeps a subclass under its old
 * name, which restores as the new one.
 */
public abstract class FormatSnapshot<T> implements TypeSerializerSnapshot<T> {

    private final String what;
    private final int currentFormat;
    private final int oldestFormat;
    private final IntFunction<TypeSerializer<T>> serializerOf;
    private int readFormat;

    /**
     * @param what the state's name in messages
     * @param currentFormat the format this build writes
     * @param oldestFormat the oldest format this build reads, at most {@code currentFormat}
     * @param serializer a serializer of this build
     */
    protected FormatSnapshot(
            String what,
            int currentFormat,
            int oldestFormat,
            Supplier<TypeSerializer<T>> serializer) {
        this(what, currentFormat, oldestFormat, format -> serializer.get());
    }

    /**
     * As above, for a serializer that reads each readable format with its own instance.
     *
     * @param serializerOf the serializer that reads state in a given readable format
     */
    protected FormatSnapshot(
            String what,
            int currentFormat,
            int oldestFormat,
            IntFunction<TypeSerializer<T>> serializerOf) {
        if (oldestFormat < 1 || oldestFormat > currentFormat) {
            throw new IllegalArgumentException(
                    "readable formats " + oldestFormat + ".." + currentFormat);
        }
        this.what = what;
        this.currentFormat = currentFormat;
        this.oldestFormat = oldestFormat;
        this.serializerOf = serializerOf;
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
                    "corrupt " + what + " serializer snapshot: format " + readVersion);
        }
        this.readFormat = readVersion;
    }

    private boolean readable(int format) {
        return format >= oldestFormat && format <= currentFormat;
    }

    @Override
    public final TypeSerializer<T> restoreSerializer() {
        if (!readable(readFormat)) {
            throw new IllegalStateException(
                    what
                            + " state was written in format "
                            + readFormat
                            + "; this build reads "
                            + (oldestFormat == currentFormat
                                    ? "only format " + currentFormat
                                    : "formats " + oldestFormat + ".." + currentFormat));
        }
        return serializerOf.apply(readFormat);
    }

    @Override
    public final TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
            TypeSerializerSnapshot<T> oldSerializerSnapshot) {
        // The old snapshot is this class, or a subclass kept under the name an earlier build
        // wrote into its savepoints (dev.piper.job.control.ActiveSpecSerializer).
        if (!getClass().isInstance(oldSerializerSnapshot)) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        int old = ((FormatSnapshot<T>) oldSerializerSnapshot).readFormat;
        if (old == currentFormat) {
            return TypeSerializerSchemaCompatibility.compatibleAsIs();
        }
        return readable(old)
                ? TypeSerializerSchemaCompatibility.compatibleAfterMigration()
                : TypeSerializerSchemaCompatibility.incompatible();
    }
}
