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

    private final Map<Integer, AvroPlan> byId = new HashMap<>();
    private final Map<Integer, Long> unknownUntil = new HashMap<>();

    // The datum being read.
    private byte[] buf;
    private int pos;
    private int limit;

    public AvroEventDecoder(DecodeOptions options, boolean measure) {
        this(options, measure, registryOf(options));
    }

    /** A decoder whose records' schema ids are looked up in {@code registry} (tests). */
    AvroEventDecoder(DecodeOptions options, boolean measure, WriterSchemas registry) {
        super(checked(options), measure);
        EventFields events = options.events();
        this.pathTree = PathTree.of(events, values.layout.fields());
        AvroOptions avro = events.avro();
        if (avro.registered()) {
            this.registry = registry;
            this.fixed = null;
        } else if (avro.schema() != null) {
            this.registry = null;
            this.fixed = AvroPlan.compile(AvroOptions.parse(avro.schema()), pathTree);
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
        if (decodeRegistered(b, from, to)) {
            accept(to - from);
        } else {
            reject(b, from, to);
        }
    }

    /**
     * Decodes the {@code records} datums that fill {@code b[from, to)} (one datum, or a container
     * block's), each a row or a dead letter.
     */
    private void decodeDatums(AvroPlan plan, byte[] b, int from, int to, int records) {
        buf = b;
        pos = from;
        limit = to;
        for (int k = 0; k < records; k++) {
            int start = pos;
            boolean last = k == records - 1;
            try {
                readDatum(plan);
                if (last && pos != to) {
                    throw malformed((to - pos) + " bytes after the datum's end");
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
                accept(pos - start);
            } else {
                reject(b, start, pos);
            }
        }
    }

    /** A record in Confluent's wire format; false (with the reason set) if it is not a row. */
    private boolean decodeRegistered(byte[] b, int from, int to) {
        values.startEvent();
        if (to - from < 5 || b[from] != 0) {
            return fail(
                    Reason.INVALID_AVRO,
                    "the record does not start with Confluent's wire-format header (a zero byte"
                            + " and a 4-byte schema id)"
                            + (to - from > 0 ? "; its first byte is " + (b[from] & 0xff) : ""));
        }
        int id =
                (b[from + 1] & 0xff) << 24
                        | (b[from + 2] & 0xff) << 16
                        | (b[from + 3] & 0xff) << 8
                        | (b[from + 4] & 0xff);
        AvroPlan plan = plan(id);
        if (plan == null) {
            return fail(
                    Reason.UNKNOWN_SCHEMA,
                    "schema id "
                            + Integer.toUnsignedString(id)
                            + " is not known to "
                            + registry.describe());
        }
        buf = b;
        pos = from + 5;
        limit = to;
        try {
            readDatum(plan);
            if (pos != to) {
                throw malformed((to - pos) + " bytes after the datum's end");
            }
        } catch (Malformed bad) {
            return false;
        }
        return values.complete();
    }

    /** Records the event's first problem: false, for returning. */
    private boolean fail(Reason reason, String detail) {
        values.fail(reason, detail);
        return false;
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
        plan = AvroPlan.compile(AvroOptions.parse(json), pathTree);
        byId.put(id, plan);
        return plan;
    }

    // ---------------------------------------------------------------------------------------
    // The walk

    /** A datum that does not follow its schema; its message is the dead letter's detail. */
    private static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    private Malformed malformed(String what) {
        values.failReason = null; // the datum's structure comes before any value's type
        values.fail(Reason.INVALID_AVRO, what);
        return new Malformed(what);
    }

    private Malformed truncated(Step step) {
        return malformed(
                "the datum ends early, reading "
                        + (step.at.isEmpty() ? "the record" : "\"" + step.at + "\""));
    }

    private void readDatum(AvroPlan plan) throws Malformed {
        values.startEvent();
        read(plan.root);
    }

    private void read(Step step) throws Malformed {
        if (!step.wanted) {
            skip(step);
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
            skip(step);
            return;
        }
        switch (step.type) {
            case T_RECORD -> {
                for (Step f : step.fields) {
                    read(f);
                }
            }
            case T_UNION -> read(branch(step));
            case T_ARRAY -> {
                int i = 0;
                for (long n = blockCount(step); n != 0; n = blockCount(step)) {
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
                for (long n = blockCount(step); n != 0; n = blockCount(step)) {
                    for (long k = 0; k < n; k++) {
                        int length = length(step);
                        advance(step, length);
                        read(valueOf(step, pos - length, pos));
                    }
                }
            }
            case T_NULL -> {
                // a path through null: every column below is missing
            }
            default -> skip(step);
        }
    }

    /** The step of map {@code step}'s value under key {@code buf[s, e)}. */
    private Step valueOf(Step step, int s, int e) {
        for (int i = 0; i < step.keys.length; i++) {
            if (Arrays.equals(step.keys[i], 0, step.keys[i].length, buf, s, e)) {
                return step.values[i];
            }
        }
        return step.items;
    }

    private Step branch(Step step) throws Malformed {
        long b = readLong(step);
        if (b < 0 || b >= step.branches.length) {
            throw malformed(
                    "\""
                            + step.at
                            + "\" has union branch "
                            + b
                            + "; its schema has "
                            + step.branches.length);
        }
        return step.branches[(int) b];
    }

    /** The item count of an array's or map's next block (its byte size, if given, read past). */
    private long blockCount(Step step) throws Malformed {
        long n = readLong(step);
        if (n < 0) {
            readLong(step); // the block's byte size
            n = -n;
        }
        if (n > limit - pos && !itemsMayBeEmpty(step)) {
            throw truncated(step); // each item takes at least a byte
        }
        return n;
    }

    /** Whether an item of this array or map can take no bytes (null, empty record or fixed). */
    private static boolean itemsMayBeEmpty(Step step) {
        return step.type == T_ARRAY
                && (step.items.type == T_NULL
                        || step.items.type == T_RECORD && step.items.fields.length == 0
                        || step.items.type == T_FIXED && step.items.fixedSize == 0);
    }

    private void skip(Step step) throws Malformed {
        switch (step.type) {
            case T_NULL -> {}
            case T_BOOLEAN -> advance(step, 1);
            case T_INT, T_LONG, T_ENUM -> readLong(step);
            case T_FLOAT -> advance(step, 4);
            case T_DOUBLE -> advance(step, 8);
            case T_STRING -> advance(step, length(step));
            case T_FIXED -> advance(step, step.fixedSize);
            case T_RECORD -> {
                for (Step f : step.fields) {
                    skip(f);
                }
            }
            case T_UNION -> skip(branch(step));
            case T_ARRAY -> {
                for (long n = blockCount(step); n != 0; n = blockCount(step)) {
                    for (long k = 0; k < n; k++) {
                        skip(step.items);
                    }
                }
            }
            case T_MAP -> {
                for (long n = blockCount(step); n != 0; n = blockCount(step)) {
                    for (long k = 0; k < n; k++) {
                        advance(step, length(step));
                        skip(step.items);
                    }
                }
            }
            default -> throw new IllegalStateException("type " + step.type);
        }
    }

    private void advance(Step step, int n) throws Malformed {
        if (n > limit - pos) {
            throw truncated(step);
        }
        pos += n;
    }

    /** A string's or bytes' length, checked against what is left. */
    private int length(Step step) throws Malformed {
        long n = readLong(step);
        if (n < 0) {
            throw malformed("\"" + step.at + "\" has a negative length " + n);
        }
        if (n > limit - pos) {
            throw truncated(step);
        }
        return (int) n;
    }

    /** A zig-zag varint (Avro's int and long). */
    private long readLong(Step step) throws Malformed {
        byte[] b = buf;
        int p = pos;
        if (p < limit && b[p] >= 0) { // one byte: union branches, small numbers, short lengths
            int x = b[p];
            pos = p + 1;
            return (x >>> 1) ^ -(x & 1);
        }
        if (limit - p >= 10) { // no varint runs past the datum: no bounds checks byte by byte
            long raw = 0;
            for (int shift = 0; shift < 70; shift += 7) {
                int x = b[p++];
                raw |= (long) (x & 0x7f) << shift;
                if (x >= 0) {
                    pos = p;
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            throw malformed("\"" + step.at + "\" has a varint longer than 10 bytes");
        }
        long raw = 0;
        for (int shift = 0; ; shift += 7) {
            if (p >= limit) {
                throw truncated(step);
            }
            int x = b[p++];
            raw |= (long) (x & 0x7f) << shift;
            if (x >= 0) {
                break;
            }
            if (shift >= 63) {
                throw malformed("\"" + step.at + "\" has a varint longer than 10 bytes");
            }
        }
        pos = p;
        return (raw >>> 1) ^ -(raw & 1);
    }

    // ---------------------------------------------------------------------------------------
    // Values

    /** Reads the value at {@code step} into each field that reads it. */
    private void readTargets(Step step) throws Malformed {
        int[] targets = step.targets;
        while (step.type == T_UNION) { // a loop, not a call: most fields are unions with null
            step = branch(step); // compiled with the union's columns
        }
        switch (step.type) {
            case T_NULL -> {
                // missing, as an absent field
            }
            case T_RECORD, T_MAP -> {
                values.notAValue(targets, step.type == T_RECORD ? "a record" : "a map");
                skip(step);
            }
            case T_ARRAY -> readArray(step, targets);
            case T_BOOLEAN -> {
                if (pos >= limit) {
                    throw truncated(step);
                }
                int v = buf[pos++];
                if (v != 0 && v != 1) {
                    throw malformed("\"" + step.at + "\" has boolean byte " + (v & 0xff));
                }
                values.bool(targets, v == 1);
            }
            case T_INT, T_LONG -> {
                long v = readLong(step);
                if (step.type == T_INT && (int) v != v) {
                    throw malformed("\"" + step.at + "\" has an int beyond 32 bits: " + v);
                }
                values.integer(targets, v);
            }
            case T_FLOAT -> {
                advance(step, 4);
                values.real(targets, Float.intBitsToFloat(littleEndianInt(pos - 4)), "float");
            }
            case T_DOUBLE -> {
                advance(step, 8);
                long bits =
                        (littleEndianInt(pos - 8) & 0xffffffffL)
                                | (long) littleEndianInt(pos - 4) << 32;
                values.real(targets, Double.longBitsToDouble(bits), "double");
            }
            case T_ENUM -> {
                byte[] symbol = symbol(step);
                values.text(targets, symbol, 0, symbol.length);
            }
            case T_STRING, T_FIXED -> {
                int n = step.type == T_FIXED ? step.fixedSize : length(step);
                advance(step, n);
                values.text(targets, buf, pos - n, pos);
            }
            default -> throw new IllegalStateException("type " + step.type);
        }
    }

    private int littleEndianInt(int at) {
        return (buf[at] & 0xff)
                | (buf[at + 1] & 0xff) << 8
                | (buf[at + 2] & 0xff) << 16
                | (buf[at + 3] & 0xff) << 24;
    }

    /** An array at a column: a list column's ids. */
    private void readArray(Step step, int[] targets) throws Malformed {
        int first = values.startList(targets);
        if (first < 0) {
            skip(step);
            return;
        }
        int i = 0;
        for (long n = blockCount(step); n != 0; n = blockCount(step)) {
            for (long k = 0; k < n; k++, i++) {
                readListItem(step.items, first, i);
            }
        }
        values.endList(targets, first);
    }

    private void readListItem(Step item, int f, int i) throws Malformed {
        switch (item.type) {
            case T_UNION -> readListItem(branch(item), f, i);
            case T_INT, T_LONG -> values.listInteger(f, readLong(item));
            case T_STRING, T_FIXED -> {
                int n = item.type == T_FIXED ? item.fixedSize : length(item);
                advance(item, n);
                values.listText(f, i, buf, pos - n, pos);
            }
            case T_ENUM -> {
                byte[] symbol = symbol(item);
                values.listText(f, i, symbol, 0, symbol.length);
            }
            case T_NULL -> values.listNull(f, i);
            default -> {
                values.listWrongType(f, i, typeName(item.type));
                skip(item);
            }
        }
    }

    /** An enum's symbol, as UTF-8. */
    private byte[] symbol(Step step) throws Malformed {
        long i = readLong(step);
        if (i < 0 || i >= step.symbols.length) {
            throw malformed(
                    "\""
                            + step.at
                            + "\" has enum symbol "
                            + i
                            + "; its schema has "
                            + step.symbols.length);
        }
        return step.symbols[(int) i];
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
