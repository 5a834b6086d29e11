package dev.piper.operators.control;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.piper.operators.block.FormatSnapshot;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.ops.OpDefinition;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link PipelineSpec} for Flink state (the specs held in broadcast state and in
 * savepoints). It writes through Kryo with registration required: every class has a fixed
 * registration id and an explicit Kryo serializer that writes its fields one by one, so nothing
 * falls back to reflection or to class names, and the bytes do not depend on the classes' field
 * layout.
 *
 * <p>Format 1, per value: int32 byte length, then the Kryo bytes: the format version (varint), then
 * the spec as a registered object: name (string), version (varint), input (format, topic, route
 * field, route value as nullable strings), columns (varint count; each: name, kind ordinal, varint
 * op count, each op as a registered object, modulus with its {@code m} as varlong), output (format,
 * pad flag, max line bytes).
 *
 * <p>Format 2 has the same layout and more operators, each under a registration id of its own:
 * fill_null (value as varlong), clamp (lo, hi as doubles), bucketize (right flag, varint count, the
 * borders as doubles), boxcox (lambda), logit (eps, NaN for none), cast (the type's ordinal as
 * varint), sigrid_hash (salt, max as varlongs). In format 2 a spec without them has the bytes of
 * format 1 but for the version; this build reads both, and {@code PipelineSpecSerializerTest} holds
 * the frozen bytes of each. A build that knows format 1 only refuses format 2 by its version, not
 * with a Kryo error.
 *
 * <p>Format 3 gives vocab its policy: a varint 0 for the default policy (first appearance), or 1
 * followed by min_count, oov_buckets, max_size (varints) and the import path (nullable string). In
 * formats 1 and 2 vocab has no bytes and reads as the default policy. Format 3 also adds mapid (the
 * table's path as a string, a default flag, the default as a varlong).
 *
 * <p>Format 4 appends the input's Parquet column names after the output: a varint count, then each
 * (layout field, Parquet column) pair as two strings, sorted by field. Formats 1..3 have none.
 *
 * <p>Format 5 appends the input's layout: its dense and sparse column counts as varints, the number
 * of list columns (varint) and each list column's 0-based sparse index (varint), and the list
 * separator (varint of its character), the number of generated columns (varint) and the dense index
 * each decodes (varint). Formats 1..4 have none and read as Criteo's layout (13 and 26, no lists).
 * Format 5 also adds firstx, ngram and onehot, their {@code x}, {@code n} and {@code size} as
 * varints.
 *
 * <p>Format 6 appends the Hotline section: a boolean, then if true its budget (varlong), dim
 * (varint), window (varlong), sample (double), sample rows (varint), tracker (varint of {@code
 * exact} 0, {@code srrip} 1), tracker entries (varint) and decay (double). Formats 1..5 have none.
 *
 * <p>Format 7 gives vocab a policy that evicts: the varint 2, then what tag 1 has and the capacity
 * (varint), the eviction (varint, 1 LFU, 2 TTL) and the ttl in rows (varlong). Formats 1..6 have no
 * tag 2; their bytes read the same.
 *
 * <p>Format 8 appends the input's field paths ({@code input.fields}, for named-field input): a
 * varint count, then each (column, path) pair as two strings, sorted by column. Formats 1..7 have
 * none (their input is positional). Format 8 also adds hash64 (no parameters).
 *
 * <p>Format 9 appends a CSV input's layout: a boolean, then for CSV input its columns (a varint
 * count, then each name as a string), whether files start with a header (a boolean) and the
 * delimiter (a varint). Formats 1..8 have none (there was no CSV input).
 *
 * <p>Format 10 appends an Avro input's schemas: a boolean, then for Avro input its {@code
 * input.schema} path, the writer schema's JSON and the registry's URL, each a string or null.
 * Formats 1..9 have none (there was no Avro input; an "avro" spec of those could not be written).
 *
 * <p>Format 11 appends a Protobuf input's message: a boolean, then for Protobuf input its {@code
 * input.descriptor} path (a string), the descriptor set's bytes (a varint length, then the bytes)
 * and the message's name (a string). Formats 1..10 have none.
 *
 * <p>Format 12 appends the input's event time: a boolean, then if true the path of its field
 * ({@code input.timestamp}, a string) and its unit (a varint: 0 s, 1 ms, 2 us). Formats 1..11 have
 * none (their rows carry no event time).
 *
 * <p>Format 13 appends to the Hotline section, after its decay, its window in event time (a varlong
 * of milliseconds; 0 for a window of rows, which the section's window then gives, 0 otherwise), and
 * to vocab's evicting policy (tag 2), after its ttl in rows, its ttl in event time (a varlong of
 * milliseconds, 0 for none). Formats before 13 have neither: their windows and ttls are rows.
 *
 * <p>Format 14 appends the label join ({@code labels} with {@code input.key}): a boolean, then if
 * true the impressions' key path (a string), the max out-of-orderness and the retention (varlongs
 * of milliseconds), the negative sample rate (a double) and the action streams (a varint count,
 * then each stream's name (a string), window (a varlong of milliseconds), policy (a varint: 0 wait,
 * 1 negative-first), format, key path and time path (strings), time unit (a varint, as format
 * 12's), and id path, value path and topic (strings or null)). Formats 1..13 have none.
 */
public final class PipelineSpecSerializer extends TypeSerializer<PipelineSpec> {

    private static final long serialVersionUID = 1L;

    /** The byte format this class writes; it reads 1..FORMAT. */
    static final int FORMAT = 14;

    /**
     * Kryo registration ids: fixed forever, new classes take new ids; an operator's is its
     * definition's tag ({@link dev.piper.pipeline.ops.OpDefinition#tag()}).
     */
    static final int ID_SPEC = 100;

    private transient Kryo kryo;
    private transient Reading reading;

    /** The configured Kryo: registration required, explicit serializers only. */
    static Kryo newKryo() {
        return newKryo(new Reading());
    }

    private static Kryo newKryo(Reading reading) {
        VocabWriter vocab = new VocabWriter(reading);
        Kryo k = new Kryo();
        k.setRegistrationRequired(true);
        k.setReferences(false);
        k.register(PipelineSpec.class, new PipelineSpecWriter(reading), ID_SPEC);
        register(k, IdOp.Modulus.DEFINITION, new ModulusWriter());
        register(k, Op.Vocab.DEFINITION, vocab);
        register(
                k,
                Op.FillNull.DEFINITION,
                new OpWriter<>(
                        (o, n) -> o.writeVarLong(n.value(), false),
                        i -> new Op.FillNull(i.readVarLong(false))));
        registerDenseOps(k);
        registerIdOps(k);
        registerTheRest(k);
        return k;
    }

    /** The dense operators with parameters: each written as its parameters. */
    private static void registerDenseOps(Kryo k) {
        register(
                k,
                DenseOp.ClampOp.DEFINITION,
                new OpWriter<>(
                        (o, c) -> {
                            o.writeDouble(c.lo());
                            o.writeDouble(c.hi());
                        },
                        i -> new DenseOp.ClampOp(i.readDouble(), i.readDouble())));
        register(
                k,
                DenseOp.BucketizeOp.DEFINITION,
                new OpWriter<>(
                        (o, b) -> {
                            o.writeBoolean(b.right());
                            double[] borders = b.borders();
                            o.writeVarInt(borders.length, true);
                            o.writeDoubles(borders, 0, borders.length);
                        },
                        i -> {
                            boolean right = i.readBoolean();
                            int n = i.readVarInt(true);
                            return new DenseOp.BucketizeOp(i.readDoubles(n), right);
                        }));
        register(
                k,
                DenseOp.BoxCoxOp.DEFINITION,
                new OpWriter<>(
                        (o, b) -> o.writeDouble(b.lambda()),
                        i -> new DenseOp.BoxCoxOp(i.readDouble())));
        register(
                k,
                DenseOp.LogitOp.DEFINITION,
                new OpWriter<>(
                        (o, l) -> o.writeDouble(l.eps()),
                        i -> new DenseOp.LogitOp(i.readDouble())));
        register(
                k,
                DenseOp.Cast.DEFINITION,
                new OpWriter<>(
                        (o, c) -> o.writeVarInt(c.to().ordinal(), true),
                        i -> new DenseOp.Cast(Op.ValueType.values()[i.readVarInt(true)])));
        register(
                k,
                DenseOp.OneHotOp.DEFINITION,
                new OpWriter<>(
                        (o, h) -> o.writeVarInt(h.size(), true),
                        i -> new DenseOp.OneHotOp(i.readVarInt(true))));
    }

    /** The id operators with parameters: each written as its parameters. */
    private static void registerIdOps(Kryo k) {
        register(
                k,
                IdOp.SigridHashOp.DEFINITION,
                new OpWriter<>(
                        (o, h) -> {
                            o.writeVarLong(h.salt(), false);
                            o.writeVarLong(h.max(), true);
                        },
                        i -> new IdOp.SigridHashOp(i.readVarLong(false), i.readVarLong(true))));
        register(
                k,
                IdOp.MapIdOp.DEFINITION,
                new OpWriter<>(
                        (o, m) -> {
                            o.writeString(m.file());
                            o.writeBoolean(m.fallback() != null);
                            if (m.fallback() != null) {
                                o.writeVarLong(m.fallback(), true);
                            }
                        },
                        i -> {
                            String file = i.readString();
                            return new IdOp.MapIdOp(
                                    file, i.readBoolean() ? i.readVarLong(true) : null);
                        }));
        register(
                k,
                IdOp.FirstXOp.DEFINITION,
                new OpWriter<>(
                        (o, f) -> o.writeVarInt(f.x(), true),
                        i -> new IdOp.FirstXOp(i.readVarInt(true))));
        register(
                k,
                IdOp.NgramOp.DEFINITION,
                new OpWriter<>(
                        (o, g) -> o.writeVarInt(g.n(), true),
                        i -> new IdOp.NgramOp(i.readVarInt(true))));
    }

    /** Registers operator {@code d}'s record under its tag, written by {@code writer}. */
    private static void register(Kryo k, OpDefinition d, Serializer<?> writer) {
        k.register(d.type(), writer, d.tag());
    }

    /**
     * Registers every operator not registered above under its definition's tag: one without
     * parameters as its one value (nothing written). An operator with parameters needs its writer
     * above; without one, every Kryo this class makes fails naming it ({@code
     * PipelineSpecSerializerTest} checks every operator's registration).
     */
    private static void registerTheRest(Kryo k) {
        for (OpDefinition d : OpDefinition.all()) {
            if (k.getClassResolver().getRegistration(d.type()) != null) {
                continue;
            }
            if (!d.params().isEmpty()) {
                throw new IllegalStateException(
                        "operator "
                                + d.name()
                                + " has parameters and no writer in PipelineSpecSerializer");
            }
            k.register(
                    d.type(),
                    new Constant<>(d.parse().apply(dev.piper.pipeline.ops.OpParams.none())),
                    d.tag());
        }
    }

    private Kryo kryo() {
        if (kryo == null) {
            reading = new Reading();
            kryo = newKryo(reading);
        }
        return kryo;
    }

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<PipelineSpec> duplicate() {
        return new PipelineSpecSerializer(); // Kryo instances are not thread-safe
    }

    @Override
    public PipelineSpec createInstance() {
        return SpecParser.builtin();
    }

    @Override
    public PipelineSpec copy(PipelineSpec from) {
        return from;
    }

    @Override
    public PipelineSpec copy(PipelineSpec from, PipelineSpec reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    /** The value's bytes, without the length prefix. */
    byte[] toBytes(PipelineSpec spec) {
        Output out = new Output(256, -1);
        out.writeVarInt(FORMAT, true);
        kryo().writeObject(out, spec);
        return out.toBytes();
    }

    /** Reads a value's bytes, without the length prefix. */
    PipelineSpec fromBytes(byte[] bytes) throws IOException {
        Input in = new Input(bytes);
        int format = in.readVarInt(true);
        if (format < 1 || format > FORMAT) {
            throw new IOException(
                    "pipeline spec in format " + format + "; this build reads 1.." + FORMAT);
        }
        Kryo k = kryo();
        reading.format = format;
        try {
            return k.readObject(in, PipelineSpec.class);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt pipeline spec: " + e.getMessage(), e);
        }
    }

    @Override
    public void serialize(PipelineSpec spec, DataOutputView target) throws IOException {
        byte[] bytes = toBytes(spec);
        target.writeInt(bytes.length);
        target.write(bytes);
    }

    @Override
    public PipelineSpec deserialize(DataInputView source) throws IOException {
        int n = source.readInt();
        if (n < 0) {
            throw new IOException("corrupt pipeline spec: negative length " + n);
        }
        byte[] bytes = new byte[n];
        source.readFully(bytes);
        return fromBytes(bytes);
    }

    @Override
    public PipelineSpec deserialize(PipelineSpec reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        int n = source.readInt();
        byte[] bytes = new byte[n];
        source.readFully(bytes);
        target.writeInt(n);
        target.write(bytes);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof PipelineSpecSerializer;
    }

    @Override
    public int hashCode() {
        return PipelineSpecSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<PipelineSpec> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot: its version is the byte format of the state it describes. */
    public static final class Snapshot extends FormatSnapshot<PipelineSpec> {
        public Snapshot() {
            super("pipeline spec", FORMAT, 1, PipelineSpecSerializer::new);
        }
    }

    /** A parameterless operator: nothing to write. */
    private static final class Constant<T> extends Serializer<T> {
        private final T value;

        Constant(T value) {
            this.value = value;
        }

        @Override
        public void write(Kryo kryo, Output output, T object) {}

        @Override
        public T read(Kryo kryo, Input input, Class<? extends T> type) {
            return value;
        }
    }

    /** An operator with parameters, written field by field. */
    private static final class OpWriter<T extends Op> extends Serializer<T> {
        private final java.util.function.BiConsumer<Output, T> write;
        private final java.util.function.Function<Input, T> read;

        OpWriter(
                java.util.function.BiConsumer<Output, T> write,
                java.util.function.Function<Input, T> read) {
            this.write = write;
            this.read = read;
        }

        @Override
        public void write(Kryo kryo, Output output, T op) {
            write.accept(output, op);
        }

        @Override
        public T read(Kryo kryo, Input input, Class<? extends T> type) {
            return read.apply(input);
        }
    }

    /** The format of the bytes being read, for the writers whose layout depends on it. */
    static final class Reading {
        int format = FORMAT;
    }

    /** vocab and its policy; what it reads depends on the format being read. */
    private static final class VocabWriter extends Serializer<Op.Vocab> {
        private final Reading reading;

        VocabWriter(Reading reading) {
            this.reading = reading;
        }

        @Override
        public void write(Kryo kryo, Output out, Op.Vocab v) {
            VocabularyPolicy p = v.policy();
            if (p.isFirstAppearance()) {
                out.writeVarInt(0, true);
                return;
            }
            out.writeVarInt(p.evicts() ? 2 : 1, true);
            out.writeVarInt(p.minCount(), true);
            out.writeVarInt(p.oovBuckets(), true);
            out.writeVarInt(p.maxSize(), true);
            out.writeString(p.importPath());
            if (p.evicts()) {
                out.writeVarInt(p.capacity(), true);
                out.writeVarInt(p.eviction().ordinal(), true);
                out.writeVarLong(p.ttlRows(), true);
                out.writeVarLong(p.ttlMs(), true);
            }
        }

        @Override
        public Op.Vocab read(Kryo kryo, Input in, Class<? extends Op.Vocab> type) {
            if (reading.format < 3) {
                return new Op.Vocab();
            }
            int tag = in.readVarInt(true);
            if (tag == 0) {
                return new Op.Vocab();
            }
            if (tag != 1 && (tag != 2 || reading.format < 7)) {
                throw new IllegalArgumentException("vocab policy tag " + tag);
            }
            int minCount = in.readVarInt(true);
            int oov = in.readVarInt(true);
            int maxSize = in.readVarInt(true);
            String path = in.readString();
            if (tag == 1) {
                return new Op.Vocab(new VocabularyPolicy(minCount, oov, maxSize, path));
            }
            int capacity = in.readVarInt(true);
            int kind = in.readVarInt(true);
            VocabularyPolicy.Eviction[] kinds = VocabularyPolicy.Eviction.values();
            if (kind < 1 || kind >= kinds.length) {
                throw new IllegalArgumentException("vocab eviction " + kind);
            }
            return new Op.Vocab(
                    new VocabularyPolicy(
                            minCount,
                            oov,
                            maxSize,
                            path,
                            capacity,
                            kinds[kind],
                            in.readVarLong(true),
                            reading.format >= 13 ? in.readVarLong(true) : 0));
        }
    }

    private static final class ModulusWriter extends Serializer<IdOp.Modulus> {
        @Override
        public void write(Kryo kryo, Output output, IdOp.Modulus m) {
            output.writeVarLong(m.m(), true);
        }

        @Override
        public IdOp.Modulus read(Kryo kryo, Input input, Class<? extends IdOp.Modulus> type) {
            return new IdOp.Modulus(input.readVarLong(true));
        }
    }
}
