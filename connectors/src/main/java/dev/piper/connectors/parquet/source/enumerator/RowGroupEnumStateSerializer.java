package dev.piper.connectors.parquet.source.enumerator;

import dev.piper.connectors.parquet.source.split.RowGroupSplit;
import dev.piper.connectors.parquet.source.split.RowGroupSplitSerializer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Serializes a {@link RowGroupEnumerator}'s checkpoint, the splits not handed out yet, in order: an
 * int32 count and the splits ({@link RowGroupSplitSerializer}, whose version it has).
 */
public final class RowGroupEnumStateSerializer
        implements SimpleVersionedSerializer<List<RowGroupSplit>> {
    @Override
    public int getVersion() {
        return RowGroupSplitSerializer.VERSION;
    }

    @Override
    public byte[] serialize(List<RowGroupSplit> pending) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(pending.size());
            for (RowGroupSplit s : pending) {
                RowGroupSplitSerializer.write(s, out);
            }
        }
        return bytes.toByteArray();
    }

    @Override
    public List<RowGroupSplit> deserialize(int version, byte[] serialized) throws IOException {
        RowGroupSplitSerializer.check(version);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            int n = in.readInt();
            List<RowGroupSplit> pending = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                pending.add(RowGroupSplitSerializer.read(in));
            }
            return pending;
        }
    }
}
