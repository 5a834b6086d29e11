package dev.piper.operators.block;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A serializer of a byte format this build no longer writes, kept so that state written in it
 * restores by migration: the {@link FormatSnapshot} of the current serializer hands it out for that
 * format, Flink reads the old state with it and writes it anew with the current one. A subclass
 * reads and writes the old format; writing fails for a record the old format cannot hold.
 */
abstract class LegacyFormat<T> extends BlockSerializer<T> {

    private static final long serialVersionUID = 1L;

    private final String what;
    private final int format;
    private final BlockSerializer<T> current;

    /**
     * @param what the record's name in messages
     * @param format the old format this serializer reads
     * @param current the serializer of this build's format
     */
    LegacyFormat(String what, int format, BlockSerializer<T> current) {
        this.what = what;
        this.format = format;
        this.current = current;
    }

    @Override
    public final T createInstance() {
        return current.createInstance();
    }

    @Override
    public final T copy(T from) {
        return from;
    }

    @Override
    public final TypeSerializerSnapshot<T> snapshotConfiguration() {
        throw new UnsupportedOperationException(
                what + " format " + format + " is only read, to migrate it");
    }

    /** Fails the write of a record that format {@link #format} cannot hold. */
    final IOException cannotHold(String missing) {
        return new IOException(what + " format " + format + " has no " + missing);
    }

    @Override
    public abstract void serialize(T record, DataOutputView out) throws IOException;

    @Override
    public abstract T deserialize(DataInputView in) throws IOException;
}
