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
 * no payload. Version history: 1, the first. A later format must keep a reader for every earlier
 * one and answer "compatible after migration" for it.
 */
public final class HotlineSerializerSnapshot implements TypeSerializerSnapshot<Hotline> {

    @Override
    public int getCurrentVersion() {
        return HotlineSerializer.CURRENT_FORMAT;
    }

    @Override
    public void writeSnapshot(DataOutputView out) {}

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
            throws IOException {
        if (readVersion != HotlineSerializer.CURRENT_FORMAT) {
            throw new IOException(
                    "unknown Hotline state format "
                            + readVersion
                            + "; this build reads "
                            + HotlineSerializer.CURRENT_FORMAT);
        }
    }

    @Override
    public TypeSerializer<Hotline> restoreSerializer() {
        return HotlineSerializer.INSTANCE;
    }

    @Override
    public TypeSerializerSchemaCompatibility<Hotline> resolveSchemaCompatibility(
            TypeSerializerSnapshot<Hotline> oldSerializerSnapshot) {
        return oldSerializerSnapshot instanceof HotlineSerializerSnapshot
                ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                : TypeSerializerSchemaCompatibility.incompatible();
    }
}
