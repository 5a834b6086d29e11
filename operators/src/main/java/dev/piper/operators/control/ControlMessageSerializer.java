package dev.piper.operators.control;

import dev.piper.core.control.ControlMessage;
import dev.piper.operators.block.BlockSerializer;
import dev.piper.operators.block.BlockSerializerSnapshot;
import dev.piper.operators.block.SerializerTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link ControlMessage}. Format 1: the source as modified UTF-8, the text (int32
 * length, bytes), the problem as modified UTF-8. Messages only cross the network between the
 * control sources and the control operator, never into state.
 */
public final class ControlMessageSerializer extends BlockSerializer<ControlMessage> {

    private static final long serialVersionUID = 1L;

    public static final ControlMessageSerializer INSTANCE = new ControlMessageSerializer();

    /** Type information with this serializer (no Kryo). */
    public static final TypeInformation<ControlMessage> TYPE =
            new SerializerTypeInfo<>(ControlMessage.class, INSTANCE);

    /** The byte format this class writes and reads. */
    static final int FORMAT = 1;

    @Override
    public ControlMessage createInstance() {
        return new ControlMessage("", new byte[0]);
    }

    @Override
    public ControlMessage copy(ControlMessage from) {
        return from;
    }

    @Override
    public void serialize(ControlMessage r, DataOutputView out) throws IOException {
        out.writeUTF(r.source());
        writeByteArray(out, r.text());
        out.writeUTF(r.problem());
    }

    @Override
    public ControlMessage deserialize(DataInputView in) throws IOException {
        String source = in.readUTF();
        byte[] text = readByteArray(in);
        return new ControlMessage(source, text, in.readUTF());
    }

    @Override
    public TypeSerializerSnapshot<ControlMessage> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link ControlMessageSerializer}; its version is the byte format. */
    public static final class Snapshot extends BlockSerializerSnapshot<ControlMessage> {
        public Snapshot() {
            super("control message", FORMAT, () -> INSTANCE);
        }
    }
}
