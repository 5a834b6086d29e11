package dev.piper.state;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of {@link VocabularySerializer}. Its version is the vocabulary byte format version; the
 * snapshot itself carries no payload.
 *
 * <p>Version history:
 *
 * <ul>
 *   <li>1: {@code int32 n} then {@code n} little-endian int64 keys in index order.
 *   <li>2: format 1, then the counts of keys not admitted yet under a frequency threshold: {@code
 *       int32 c}, then {@code c} little-endian (int64 key, int32 count) pairs.
 *   <li>3: format 2, then an evicting vocabulary's order: a byte for its kind (0 none), and for LFU
 *       or TTL the rows applied, the assignments made and every entry's (index, stamp, last row)
 *       from the next victim on.
 *   <li>4: format 3, the eviction order's section with the clock of a TTL in event time after the
 *       assignments made.
 * </ul>
 *
 * A later format must keep a reader for every earlier version, and {@link
 * #resolveSchemaCompatibility} must answer "compatible after migration" for them.
 */
public final class VocabularySerializerSnapshot implements TypeSerializerSnapshot<Vocabulary> {

    private int readVersion = VocabularySerializer.CURRENT_FORMAT;

    @Override
    public int getCurrentVersion() {
        return VocabularySerializer.CURRENT_FORMAT;
    }

    @Override
    public void writeSnapshot(DataOutputView out) {}

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
            throws IOException {
        if (readVersion < 1 || readVersion > VocabularySerializer.CURRENT_FORMAT) {
            throw new IOException(
                    "unknown vocabulary format version "
                            + readVersion
                            + "; this build reads 1.."
                            + VocabularySerializer.CURRENT_FORMAT);
        }
        this.readVersion = readVersion;
    }

    /** The format version of the state this snapshot describes. */
    public int formatVersion() {
        return readVersion;
    }

    @Override
    public TypeSerializer<Vocabulary> restoreSerializer() {
        return VocabularySerializer.ofFormat(readVersion);
    }

    @Override
    public TypeSerializerSchemaCompatibility<Vocabulary> resolveSchemaCompatibility(
            TypeSerializerSnapshot<Vocabulary> oldSerializerSnapshot) {
        if (!(oldSerializerSnapshot instanceof VocabularySerializerSnapshot)) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        int old = ((VocabularySerializerSnapshot) oldSerializerSnapshot).readVersion;
        return old == VocabularySerializer.CURRENT_FORMAT
                ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                : TypeSerializerSchemaCompatibility.compatibleAfterMigration();
    }
}
