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

import dev.piper.core.decode.AvroPlan.Step;
import dev.piper.pipeline.layout.Reason;

/**
 * Where {@link AvroEventDecoder} is in a datum's bytes, and Avro's binary encoding read from there
 * (zig-zag varints, lengths, union branches, array and map blocks, values skipped by their {@link
 * Step}), every read checked against the datum's end: both of the decoder's readings, the plan's
 * walk and the straight one ({@link AvroFlat}), read through it. A datum that does not follow its
 * schema throws {@link Malformed}, its reason set on the event.
 *
 * <p>Not thread-safe; one per decoder.
 */
final class AvroCursor {

    private final EventValues values;

    /** The bytes being read: {@code buf[pos, limit)} is what is left of the datum. */
    byte[] buf;

    int pos;
    int limit;

    AvroCursor(EventValues values) {
        this.values = values;
    }

    /** Reads {@code b[from, to)} next. */
    void start(byte[] b, int from, int to) {
        buf = b;
        pos = from;
        limit = to;
    }

    /** A datum that does not follow its schema; its message is the dead letter's detail. */
    static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * A datum that does not follow its schema, for {@code what}: the event's reason, over any
     * value's found before (the datum's structure comes first), to be thrown.
     */
    Malformed malformed(String what) {
        values.failReason = null; // the datum's structure comes before any value's type
        values.fail(Reason.INVALID_AVRO, what);
        return new Malformed(what);
    }

    /** A datum that ends before {@code step}'s value does, to be thrown. */
    Malformed truncated(Step step) {
        return malformed(
                "the datum ends early, reading "
                        + (step.at.isEmpty() ? "the record" : "\"" + step.at + "\""));
    }

    /** The branch a union's datum takes. */
    Step branch(Step step) throws Malformed {
        return step.branches[index(step, "union branch", step.branches.length)];
    }

    /** An enum's symbol, as UTF-8. */
    byte[] symbol(Step step) throws Malformed {
        return step.symbols[index(step, "enum symbol", step.symbols.length)];
    }

    /** A varint that picks one of {@code step}'s {@code count} {@code what}s. */
    private int index(Step step, String what, int count) throws Malformed {
        long i = readLong(step);
        if (i < 0 || i >= count) {
            throw malformed(
                    "\"" + step.at + "\" has " + what + " " + i + "; its schema has " + count);
        }
        return (int) i;
    }

    /** The item count of an array's or map's next block (its byte size, if given, read past). */
    long blockCount(Step step) throws Malformed {
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
    static boolean itemsMayBeEmpty(Step step) {
        return step.type == T_ARRAY
                && (step.items.type == T_NULL
                        || step.items.type == T_RECORD && step.items.fields.length == 0
                        || step.items.type == T_FIXED && step.items.fixedSize == 0);
    }

    /** Reads past a value of {@code step}'s type. */
    void skip(Step step) throws Malformed {
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

    /** Reads past {@code n} bytes of {@code step}'s value. */
    void advance(Step step, int n) throws Malformed {
        if (n > limit - pos) {
            throw truncated(step);
        }
        pos += n;
    }

    /** A string's or bytes' length, checked against what is left. */
    int length(Step step) throws Malformed {
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
    long readLong(Step step) throws Malformed {
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

    /** The little-endian 32 bits at {@code buf[at]}. */
    int littleEndianInt(int at) {
        return (buf[at] & 0xff)
                | (buf[at + 1] & 0xff) << 8
                | (buf[at + 2] & 0xff) << 16
                | (buf[at + 3] & 0xff) << 24;
    }
}
