package dev.piper.operators.control;

import dev.piper.core.control.ActiveSpec;
import dev.piper.operators.block.FormatSnapshot;
import dev.piper.pipeline.spec.PipelineSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link ActiveSpec} for the broadcast state and the control operator's state.
 *
 * <p>Format 1: the spec as {@link PipelineSpecSerializer} writes it (int32 length, then Kryo bytes
 * with registration required, which start with their own format), then the epochs as int32 count
 * and int32 values. {@code ActiveSpecSerializerTest} holds the frozen bytes; a later format keeps a
 * reader for this one.
 */
public final class ActiveSpecSerializer extends TypeSerializer<ActiveSpec> {

    private static final long serialVersionUID = 1L;

    /** The byte format this class writes. */
    static final int FORMAT = 1;

    private final PipelineSpecSerializer specs = new PipelineSpecSerializer();

    /**
     * {@code spec}'s bytes, for functions that carry a spec into the cluster (a spec is not {@code
     * java.io.Serializable}, and Java serialization would tie the job graph to its class layout).
     */
    public static byte[] toBytes(ActiveSpec spec) {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        try {
            new ActiveSpecSerializer().serialize(spec, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.getCopyOfBuffer();
    }

    /** The spec written by {@link #toBytes}. */
    public static ActiveSpec fromBytes(byte[] bytes) {
        try {
            return new ActiveSpecSerializer().deserialize(new DataInputDeserializer(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<ActiveSpec> duplicate() {
        return new ActiveSpecSerializer(); // its Kryo is not thread-safe
    }

    @Override
    public ActiveSpec createInstance() {
        return ActiveSpec.initial(specs.createInstance());
    }

    @Override
    public ActiveSpec copy(ActiveSpec from) {
        return from;
    }

    @Override
    public ActiveSpec copy(ActiveSpec from, ActiveSpec reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(ActiveSpec value, DataOutputView target) throws IOException {
        specs.serialize(value.spec(), target);
        int[] epochs = value.epochs();
        target.writeInt(epochs.length);
        for (int e : epochs) {
            target.writeInt(e);
        }
    }

    @Override
    public ActiveSpec deserialize(DataInputView source) throws IOException {
        PipelineSpec spec = specs.deserialize(source);
        int n = source.readInt();
        if (n != spec.layout().sparse()) {
            throw new IOException(
                    "corrupt active spec: "
                            + n
                            + " epochs, expected "
                            + spec.layout().sparse()
                            + " (spec "
                            + spec.name()
                            + "/"
                            + spec.version()
                            + ")");
        }
        int[] epochs = new int[n];
        for (int i = 0; i < n; i++) {
            epochs[i] = source.readInt();
        }
        return new ActiveSpec(spec, epochs);
    }

    @Override
    public ActiveSpec deserialize(ActiveSpec reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof ActiveSpecSerializer;
    }

    @Override
    public int hashCode() {
        return ActiveSpecSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<ActiveSpec> snapshotConfiguration() {
        return new Snapshot();
    }

    /**
     * Snapshot of {@link ActiveSpecSerializer}; its version is the byte format. Not final: the
     * class name savepoints of 0.1 carry ({@code
     * dev.piper.job.control.ActiveSpecSerializer$Snapshot}, in the job module) extends it, so that
     * they restore.
     */
    public static class Snapshot extends FormatSnapshot<ActiveSpec> {
        public Snapshot() {
            super("active spec", FORMAT, 1, ActiveSpecSerializer::new);
        }
    }
}
