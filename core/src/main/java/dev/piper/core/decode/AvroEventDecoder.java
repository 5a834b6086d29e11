package dev.piper.core.decode;

import static dev.piper.core.decode.AvroPlan.T_ARRAY;
import static dev.piper.core.decode.AvroPlan.T_BOOLEAN;
import static dev.piper.core.decode.AvroPlan.T_DOUBLE;
import static dev.piper.core.decode.AvroPlan.T_ENUM;
import static dev.piper.core.decode.AvroPlan.T_FIXED;
import static dev.piper.core.decode.AvroPlan.T_FLOAT;
import static dev.piper.core.decode.AvroPlan.T_INT;
import static dev.piper.core.decode.AvroPlan.T_LONG;
import static dev.piper.core.decode.AvroPlan.T_MAP;
import static dev.piper.core.decode.AvroPlan.T_NULL;
import static dev.piper.core.decode.AvroPlan.T_RECORD;
import static dev.piper.core.decode.AvroPlan.T_STRING;
import static dev.piper.core.decode.AvroPlan.T_UNION;

import dev.piper.core.block.RecordFrames;
import dev.piper.core.decode.AvroCursor.Malformed;
import dev.piper.core.decode.AvroPlan.Step;
import dev.piper.pipeline.input.AvroOptions;
import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.FieldPath;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Decodes Avro datums ({@link RecordFrames} of a chunk: Kafka records, or the blocks of a container
 * file) into rows: each column's value is read from the field its {@link FieldPath} names, as the
 * JSON decoder reads it ({@link EventRows}; docs/SEMANTICS.md, "Avro input"), so an event carried
 * in Avro or in JSON becomes the same row.
 *
 * <p>The writer schema, parsed by Apache Avro, is compiled once into a plan: a tree of the schema's
 * types in which the nodes on a column's path carry the column, and the walk reads those and skips
 * everything else. Datums are read straight from the chunk's bytes (zig-zag varints, lengths, UTF-8
 * strings hashed in place) rather than through Avro's {@code GenericDatumReader}, which builds a
 * record of objects per datum: read that way and put into rows, 1M Criteo records decoded at 405k
 * to 443k rows/s in one thread, against 565k to 652k this way (docs/PERFORMANCE.md, "Avro and
 * Protobuf events"). {@code AvroEventDecoderTest} checks the rows against the same events in JSON.
 * Where the rows allow it, a plan also has a flat form ({@link AvroFlat}) that reads a datum's
 * values straight into the block's columns, a row at a time, at about twice the walk's rate; a
 * datum holding a value it does not take is read again by the walk, the reference.
 *
 * <p>Writer schemas come from the spec's {@code input.schema} (bare datums), a container file's
 * header (the job puts it in {@link AvroOptions#schema()}), or a registry, for records in
 * Confluent's wire format: a zero byte and the schema's id (4 bytes, big-endian) before the datum;
 * each id's plan is compiled when first seen, so a producer that moves to a new schema version (an
 * added optional field, a removed one) keeps decoding. A column whose path a writer schema lacks
 * reads a missing value (its fill), as a JSON event without the field does.
 *
 * <p>A datum that does not follow its schema (truncated, bytes after its end, an impossible varint,
 * length, union branch or enum symbol) is an {@code invalid_avro} dead letter; a record whose id
 * the registry does not know is {@code unknown_schema}; a value its column cannot hold is {@code
 * wrong_type} or the text decoder's range reason, naming the column, its path and the value. In a
 * container block, datums follow each other without lengths: past a datum that cannot be read, the
 * block's remaining datums cannot be found and are dead letters too (each counted).
 *
 * <p>Not thread-safe; one per decoding subtask.
 */
public final class AvroEventDecoder extends FramedEventDecoder {

    /** How long an unreachable registry is asked again before the decoding fails. */
    static final Duration REGISTRY_PATIENCE = Duration.ofSeconds(60);

    /** How long an id the registry did not know is not asked for again. */
    private static final long UNKNOWN_RETRY_NANOS = 10_000_000_000L;

    /** The columns' paths as a tree, shared with the JSON decoder's walk. */
    private final PathTree pathTree;

    /** The plan of the one writer schema (a schema file, a container file), or null. */
    private final AvroPlan fixed;

    /** The registry, when records carry schema ids; else null. */
    private final WriterSchemas registry;

    /** Whether datums are read straight into the block's columns where they can be. */
    private final boolean straight;

    private final Map<Integer, AvroPlan> byId = new HashMap<>();
    private final Map<Integer, Long> unknownUntil = new HashMap<>();

    /** Where the decoder is in the datum being read. */
    private final AvroCursor in;

    public AvroEventDecoder(DecodeOptions options, boolean measure) {
        this(options, measure, registryOf(options), true);
    }

    /**
     * A decoder whose records' schema ids are looked up in {@code registry}, and that reads datums
     * straight into the block's columns where their schema allows it ({@link AvroFlat}) unless
     * {@code straight} is false (tests compare the two readings).
     */
    AvroEventDecoder(
            DecodeOptions options, boolean measure, WriterSchemas registry, boolean straight) {
        super(checked(options), measure);
        this.straight = straight;
        this.in = new AvroCursor(values);
        EventFields events = options.events();
        this.pathTree = PathTree.of(events, values.layout.fields());
        AvroOptions avro = events.avro();
        if (avro.registered()) {
            this.registry = registry;
            this.fixed = null;
        } else if (avro.schema() != null) {
            this.registry = null;
            this.fixed = AvroPlan.compile(AvroOptions.parse(avro.schema()), pathTree, values);
        } else {
            throw new IllegalArgumentException(
                    "an avro input needs its writer schema: input.schema, input.schema_registry,"
                            + " or a container file's header");
        }
    }

    private static DecodeOptions checked(DecodeOptions options) {
        if (options.events() == null || options.events().avro() == null) {
            throw new IllegalArgumentException("options without Avro event fields");
        }
        return options;
    }

    private static WriterSchemas registryOf(DecodeOptions options) {
        AvroOptions avro = options.events() == null ? null : options.events().avro();
        return avro == null || !avro.registered()
                ? null
                : new SchemaRegistryClient(avro.registry(), REGISTRY_PATIENCE);
    }

    @Override
    void decodeFrame(byte[] b, int from, int to, int records) {
        if (registry == null) {
            decodeDatums(fixed, b, from, to, records);
            return;
        }
        if (records != 1) {
            throw new IllegalStateException("a registered record is one datum");
        }
        decodeRegistered(b, from, to);
    }

    /**
     * Decodes the {@code records} datums that fill {@code b[from, to)} (one datum, or a container
     * block's), each a row or a dead letter.
     */
    private void decodeDatums(AvroPlan plan, byte[] b, int from, int to, int records) {
        in.start(b, from, to);
        for (int k = 0; k < records; k++) {
            int start = in.pos;
            boolean last = k == records - 1;
            long written = readStraight(plan, start, last ? to : -1);
            if (written != AvroFlat.NOT_READ) {
                acceptWritten(in.pos - start, written);
                continue;
            }
            try {
                readDatum(plan);
                if (last && in.pos != to) {
                    throw in.malformed((to - in.pos) + " bytes after the datum's end");
                }
            } catch (Malformed bad) {
                reject(b, start, to);
                for (int rest = k + 1; rest < records; rest++) {
                    values.failReason = null;
                    values.fail(
                            Reason.INVALID_AVRO,
                            "follows datum "
                                    + (k + 1)
                                    + " of its container block, which could not be read ("
                                    + bad.getMessage()
                                    + ")");
                    reject(b, to, to);
                }
                return;
            }
            if (values.complete()) {
                accept(in.pos - start);
            } else {
                reject(b, start, in.pos);
            }
        }
    }

    /** A record in Confluent's wire format: a row or a dead letter. */
    private void decodeRegistered(byte[] b, int from, int to) {
        AvroPlan plan = registeredPlan(b, from, to);
        if (plan == null) {
            reject(b, from, to);
            return;
        }
        in.start(b, from + 5, to);
        long written = readStraight(plan, in.pos, to);
        if (written != AvroFlat.NOT_READ) {
            acceptWritten(to - from, written);
            return;
        }
        try {
            readDatum(plan);
            if (in.pos != to) {
                throw in.malformed((to - in.pos) + " bytes after the datum's end");
            }
        } catch (Malformed bad) {
            reject(b, from, to);
            return;
        }
        if (values.complete()) {
            accept(to - from);
        } else {
            reject(b, from, to);
        }
    }

    /**
     * The plan of the schema whose id record {@code b[from, to)} names in Confluent's wire-format
     * header; null, the event's reason set, if it has no such header or the id no schema.
     */
    private AvroPlan registeredPlan(byte[] b, int from, int to) {
        if (to - from < 5 || b[from] != 0) {
            values.startEvent(); // the reason is this record's, not the last one's
            values.fail(
                    Reason.INVALID_AVRO,
                    "the record does not start with Confluent's wire-format header (a zero byte"
                            + " and a 4-byte schema id)"
                            + (to - from > 0 ? "; its first byte is " + (b[from] & 0xff) : ""));
            return null;
        }
        int id =
                (b[from + 1] & 0xff) << 24
                        | (b[from + 2] & 0xff) << 16
                        | (b[from + 3] & 0xff) << 8
                        | (b[from + 4] & 0xff);
        AvroPlan plan = plan(id);
        if (plan == null) {
            values.startEvent();
            values.fail(
                    Reason.UNKNOWN_SCHEMA,
                    "schema id "
                            + Integer.toUnsignedString(id)
                            + " is not known to "
                            + registry.describe());
        }
        return plan;
    }

    /** The plan of registered schema {@code id}, or null if the registry has no such schema. */
    private AvroPlan plan(int id) {
        AvroPlan plan = byId.get(id);
        if (plan != null) {
            return plan;
        }
        Long until = unknownUntil.get(id);
        if (until != null && System.nanoTime() - until < 0) {
            return null;
        }
        String json;
        try {
            json = registry.schema(id);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // the registry, not the record: the job stops
        }
        if (json == null) {
            unknownUntil.put(id, System.nanoTime() + UNKNOWN_RETRY_NANOS);
            return null;
        }
        plan = AvroPlan.compile(AvroOptions.parse(json), pathTree, values);
        byId.put(id, plan);
        return plan;
    }

    // ---------------------------------------------------------------------------------------
    // Straight into the block's columns

    /** Whether the datums of the one writer schema are read straight into the block's columns. */
    boolean readsStraight() {
        return straight && fixed != null && fixed.flat != null;
    }

    /**
     * Reads the datum at {@code start} by {@code plan}'s {@link AvroFlat} form, its values straight
     * into the block's next row: if the row is complete and the datum ends at {@code end} ({@code
     * -1}: anywhere), the fields it has, as {@link #acceptWritten} takes them; else {@link
     * AvroFlat#NOT_READ}, with the cursor back at {@code start}: the plan has no flat form, or the
     * datum holds a value the flat form leaves to the walk (whose row, or the next datum's, then
     * overwrites what was written).
     */
    private long readStraight(AvroPlan plan, int start, int end) {
        AvroFlat flat = plan.flat;
        if (flat == null || !straight) {
            return AvroFlat.NOT_READ;
        }
        long written = flat.read(in, plan.root, rows);
        if (written != AvroFlat.NOT_READ && (end < 0 || in.pos == end)) {
            return written;
        }
        in.pos = start;
        return AvroFlat.NOT_READ;
    }

    // ---------------------------------------------------------------------------------------
    // The walk

    private void readDatum(AvroPlan plan) throws Malformed {
        values.startEvent();
        read(plan.root);
    }

    private void read(Step step) throws Malformed {
        if (!step.wanted) {
            in.skip(step);
            return;
        }
        if (step.targets.length > 0) {
            readTargets(step);
            return;
        }
        if (step.mismatch != null) {
            int f = step.mismatchField;
            values.fail(
                    values.typeReason(f),
                    values.column(f) + ": the event's \"" + step.at + "\" is " + step.mismatch);
            in.skip(step);
            return;
        }
        switch (step.type) {
            case T_RECORD -> {
                for (Step f : step.fields) {
                    read(f);
                }
            }
            case T_UNION -> read(in.branch(step));
            case T_ARRAY -> {
                int i = 0;
                for (long n = in.blockCount(step); n != 0; n = in.blockCount(step)) {
                    for (long k = 0; k < n; k++, i++) {
                        Step e =
                                step.elements != null && i < step.elements.length
                                        ? step.elements[i]
                                        : null;
                        read(e != null ? e : step.items);
                    }
                }
            }
            case T_MAP -> {
                for (long n = in.blockCount(step); n != 0; n = in.blockCount(step)) {
                    for (long k = 0; k < n; k++) {
                        int length = in.length(step);
                        in.advance(step, length);
                        read(valueOf(step, in.pos - length, in.pos));
                    }
                }
            }
            case T_NULL -> {
                // a path through null: every column below is missing
            }
            default -> in.skip(step);
        }
    }

    /** The step of map {@code step}'s value under key {@code in.buf[s, e)}. */
    private Step valueOf(Step step, int s, int e) {
        for (int i = 0; i < step.keys.length; i++) {
            if (Arrays.equals(step.keys[i], 0, step.keys[i].length, in.buf, s, e)) {
                return step.values[i];
            }
        }
        return step.items;
    }

    // ---------------------------------------------------------------------------------------
    // Values

    /** Reads the value at {@code step} into each field that reads it. */
    private void readTargets(Step step) throws Malformed {
        int[] targets = step.targets;
        while (step.type == T_UNION) { // a loop, not a call: most fields are unions with null
            step = in.branch(step); // compiled with the union's columns
        }
        switch (step.type) {
            case T_NULL -> {
                // missing, as an absent field
            }
            case T_RECORD, T_MAP -> {
                values.notAValue(targets, step.type == T_RECORD ? "a record" : "a map");
                in.skip(step);
            }
            case T_ARRAY -> readArray(step, targets);
            case T_BOOLEAN -> {
                if (in.pos >= in.limit) {
                    throw in.truncated(step);
                }
                int v = in.buf[in.pos++];
                if (v != 0 && v != 1) {
                    throw in.malformed("\"" + step.at + "\" has boolean byte " + (v & 0xff));
                }
                values.bool(targets, v == 1);
            }
            case T_INT, T_LONG -> {
                long v = in.readLong(step);
                if (step.type == T_INT && (int) v != v) {
                    throw in.malformed("\"" + step.at + "\" has an int beyond 32 bits: " + v);
                }
                values.integer(targets, v);
            }
            case T_FLOAT -> {
                in.advance(step, 4);
                values.real(targets, Float.intBitsToFloat(in.littleEndianInt(in.pos - 4)), "float");
            }
            case T_DOUBLE -> {
                in.advance(step, 8);
                long bits =
                        (in.littleEndianInt(in.pos - 8) & 0xffffffffL)
                                | (long) in.littleEndianInt(in.pos - 4) << 32;
                values.real(targets, Double.longBitsToDouble(bits), "double");
            }
            case T_ENUM -> {
                byte[] symbol = in.symbol(step);
                values.text(targets, symbol, 0, symbol.length);
            }
            case T_STRING, T_FIXED -> {
                int n = step.type == T_FIXED ? step.fixedSize : in.length(step);
                in.advance(step, n);
                values.text(targets, in.buf, in.pos - n, in.pos);
            }
            default -> throw new IllegalStateException("type " + step.type);
        }
    }

    /** An array at a column: a list column's ids. */
    private void readArray(Step step, int[] targets) throws Malformed {
        int first = values.startList(targets);
        if (first < 0) {
            in.skip(step);
            return;
        }
        int i = 0;
        for (long n = in.blockCount(step); n != 0; n = in.blockCount(step)) {
            for (long k = 0; k < n; k++, i++) {
                readListItem(step.items, first, i);
            }
        }
        values.endList(targets, first);
    }

    private void readListItem(Step item, int f, int i) throws Malformed {
        switch (item.type) {
            case T_UNION -> readListItem(in.branch(item), f, i);
            case T_INT, T_LONG -> values.listInteger(f, in.readLong(item));
            case T_STRING, T_FIXED -> {
                int n = item.type == T_FIXED ? item.fixedSize : in.length(item);
                in.advance(item, n);
                values.listText(f, i, in.buf, in.pos - n, in.pos);
            }
            case T_ENUM -> {
                byte[] symbol = in.symbol(item);
                values.listText(f, i, symbol, 0, symbol.length);
            }
            case T_NULL -> values.listNull(f, i);
            default -> {
                values.listWrongType(f, i, typeName(item.type));
                in.skip(item);
            }
        }
    }

    private static String typeName(int type) {
        return switch (type) {
            case T_BOOLEAN -> "boolean";
            case T_FLOAT -> "float";
            case T_DOUBLE -> "double";
            case T_RECORD -> "record";
            case T_ARRAY -> "array";
            case T_MAP -> "map";
            default -> "#" + type;
        };
    }
}
