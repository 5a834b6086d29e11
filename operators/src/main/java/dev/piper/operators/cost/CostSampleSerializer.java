package dev.piper.operators.cost;

import dev.piper.core.cost.CostSample;
import dev.piper.operators.block.BlockSerializer;
import dev.piper.operators.block.BlockSerializerSnapshot;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.util.InstantiationUtil;

/**
 * Serializer of {@link CostSample}. Format 3: {@code stage} (int8 ordinal), {@code pipeline},
 * {@code column} (int32), {@code lines}, {@code values} (int64), the field bytes (int32 count,
 * int32 values), {@code workNanos}, {@code passNanos}, {@code threadNanos}, {@code entries}
 * (int64), {@code version}, {@code epoch} (int32), the parse nanoseconds (int8 count, 0 or 2, int64
 * values), then for a {@link CostSample.Stage#PROGRAM} sample its program in Java serialization
 * (int32 length, bytes).
 *
 * <p>Samples only cross the network between the measuring operators and the cost model of one job,
 * never into state, so no reader of an earlier format is kept, and Java serialization of the rare
 * program announcement is safe (both ends run the same build).
 */
public final class CostSampleSerializer extends BlockSerializer<CostSample> {

    /** Fields of the largest layout: the label, dense, generated and sparse columns. */
    static final int MAX_FIELDS = 1 + 2 * RowLayout.MAX_DENSE + RowLayout.MAX_SPARSE;

    private static final long serialVersionUID = 1L;

    public static final CostSampleSerializer INSTANCE = new CostSampleSerializer();

    static final int FORMAT = 3;

    private static final CostSample.Stage[] STAGES = CostSample.Stage.values();

    @Override
    public CostSample createInstance() {
        return CostSample.output(0, 0, 0, 0);
    }

    @Override
    public CostSample copy(CostSample from) {
        return from;
    }

    @Override
    public void serialize(CostSample s, DataOutputView out) throws IOException {
        out.writeByte(s.stage().ordinal());
        out.writeInt(s.pipeline());
        out.writeInt(s.column());
        out.writeLong(s.lines());
        out.writeLong(s.values());
        out.writeInt(s.fieldBytes().length);
        for (int b : s.fieldBytes()) {
            out.writeInt(b);
        }
        out.writeLong(s.acceptedBytes());
        out.writeLong(s.workNanos());
        out.writeLong(s.passNanos());
        out.writeLong(s.threadNanos());
        out.writeLong(s.entries());
        out.writeInt(s.version());
        out.writeInt(s.epoch());
        out.writeByte(s.parseNanos().length);
        for (long n : s.parseNanos()) {
            out.writeLong(n);
        }
        if (s.stage() == CostSample.Stage.PROGRAM) {
            byte[] program = InstantiationUtil.serializeObject(s.program());
            out.writeInt(program.length);
            out.write(program);
        }
    }

    @Override
    public CostSample deserialize(DataInputView in) throws IOException {
        int stage = in.readByte();
        if (stage < 0 || stage >= STAGES.length) {
            throw new IOException("cost sample: unknown stage " + stage);
        }
        int pipeline = in.readInt();
        int column = in.readInt();
        long lines = in.readLong();
        long values = in.readLong();
        int n = in.readInt();
        if (n < 0 || n > MAX_FIELDS) {
            throw new IOException("cost sample: bad field count " + n);
        }
        int[] bytes = new int[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = in.readInt();
        }
        long accepted = in.readLong();
        long work = in.readLong();
        long pass = in.readLong();
        long thread = in.readLong();
        long entries = in.readLong();
        int version = in.readInt();
        int epoch = in.readInt();
        int parts = in.readUnsignedByte();
        if (parts != 0 && parts != 2) {
            throw new IOException("cost sample: bad parse count " + parts);
        }
        long[] parse = new long[parts];
        for (int i = 0; i < parts; i++) {
            parse[i] = in.readLong();
        }
        ColumnProgram program = null;
        if (STAGES[stage] == CostSample.Stage.PROGRAM) {
            int length = in.readInt();
            if (length < 0) {
                throw new IOException("cost sample: negative program length " + length);
            }
            byte[] b = new byte[length];
            in.readFully(b);
            try {
                program =
                        InstantiationUtil.deserializeObject(
                                b, ColumnProgram.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IOException("cost sample: cannot read its program", e);
            }
        }
        return new CostSample(
                STAGES[stage],
                pipeline,
                column,
                lines,
                values,
                bytes,
                accepted,
                work,
                pass,
                thread,
                entries,
                version,
                epoch,
                program,
                parse);
    }

    @Override
    public TypeSerializerSnapshot<CostSample> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link CostSampleSerializer}; its version is the byte format. */
    public static final class Snapshot extends BlockSerializerSnapshot<CostSample> {
        public Snapshot() {
            super("cost sample", FORMAT, () -> INSTANCE);
        }
    }
}
