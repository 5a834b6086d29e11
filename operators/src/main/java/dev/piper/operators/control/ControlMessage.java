package dev.piper.operators.control;

import dev.piper.operators.block.BlockSerializer;
import dev.piper.operators.block.BlockSerializerSnapshot;
import dev.piper.operators.block.SerializerTypeInfo;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * One message of the control stream: a spec's text, not yet parsed, and where it came from.
 *
 * @param source where the message came from, for the status output: {@code topic/partition@offset}
 *     for the control topic, the file's path for a control directory
 * @param text the spec's JSON text as published
 * @param problem why the message could not be read (then {@code text} is empty), or empty
 */
public record ControlMessage(String source, byte[] text, String problem) {

    /** A message read without a problem. */
    public ControlMessage(String source, byte[] text) {
        this(source, text, "");
    }

    /** A message that could not be read, for the status. */
    public static ControlMessage unreadable(String source, String problem) {
        return new ControlMessage(source, new byte[0], problem);
    }

    public static final TypeInformation<ControlMessage> TYPE =
            new SerializerTypeInfo<>(ControlMessage.class, Serializer.INSTANCE);

    /**
     * Serializer of {@link ControlMessage}. Format 1: the source as modified UTF-8, the text (int32
     * length, bytes), the problem as modified UTF-8.
     */
    public static final class Serializer extends BlockSerializer<ControlMessage> {

        private static final long serialVersionUID = 1L;

        public static final Serializer INSTANCE = new Serializer();

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

        /** Snapshot of {@link Serializer}; its version is the byte format. */
        public static final class Snapshot extends BlockSerializerSnapshot<ControlMessage> {
            public Snapshot() {
                super("control message", FORMAT, () -> INSTANCE);
            }
        }
    }
}
