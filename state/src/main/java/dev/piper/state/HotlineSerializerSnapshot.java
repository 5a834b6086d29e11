package dev.piper.state;

import dev.piper.pipeline.hotline.Hotline;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of {@link HotlineSerializer}. Its version is the Hotline state's byte format; it carries
 * no payload. Version history: 1, the first; 2 adds the window in event time. A later format must
 * keep a reader for every earlier one and answer "compatible after migration" for it.
 */
public final class HotlineSerializerSnapshot implements TypeSerializerSnapshot<Hotline> {

    private int readVersion;

    /** The snapshot Flink creates to read one back. */
    public HotlineSerializerSnapshot() {
        this(HotlineSerializer.CURRENT_FORMAT);
    }

    HotlineSerializerSnapshot(int format) {
        this.readVersion = format;
    }

    @Override
    public int getCurrentVersion() {
        return HotlineSerializer.CURRENT_FORMAT;
    }

    @Override
    public void writeSnapshot(DataOutputView out) {}

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
            throws IOException {
        if (readVersion < 1 || readVersion > HotlineSerializer.CURRENT_FORMAT) {
            throw new IOException(
                    "unknown Hotline state format "
                            + readVersion
                            + "; this build reads 1.."
                            + HotlineSerializer.CURRENT_FORMAT);
        }
        this.readVersion = readVersion;
    }

    /** The format version of the state this snapshot describes. */
    public int formatVersion() {
        return readVersion;
    }

    @Override
    public TypeSerializer<Hotline> restoreSerializer() {
        return HotlineSerializer.ofFormat(readVersion);
    }

    @Override
    public TypeSerializerSchemaCompatibility<Hotline> resolveSchemaCompatibility(
            TypeSerializerSnapshot<Hotline> oldSerializerSnapshot) {
        if (!(oldSerializerSnapshot instanceof HotlineSerializerSnapshot old)) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        return old.readVersion == HotlineSerializer.CURRENT_FORMAT
                ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                : TypeSerializerSchemaCompatibility.compatibleAfterMigration();
    }
}
