package dev.piper.core.decode;

import static dev.piper.core.decode.AvroPlan.T_BOOLEAN;
import static dev.piper.core.decode.AvroPlan.T_DOUBLE;
import static dev.piper.core.decode.AvroPlan.T_ENUM;
import static dev.piper.core.decode.AvroPlan.T_FIXED;
import static dev.piper.core.decode.AvroPlan.T_FLOAT;
import static dev.piper.core.decode.AvroPlan.T_INT;
import static dev.piper.core.decode.AvroPlan.T_LONG;
import static dev.piper.core.decode.AvroPlan.T_NULL;
import static dev.piper.core.decode.AvroPlan.T_RECORD;
import static dev.piper.core.decode.AvroPlan.T_STRING;
import static dev.piper.core.decode.AvroPlan.T_UNION;

import dev.piper.core.decode.AvroCursor.Malformed;
import dev.piper.core.decode.AvroPlan.Step;
import java.util.ArrayList;
import java.util.List;

/**
 * A writer schema's plan as a straight list of actions, for datums whose values go straight into
 * the block's columns ({@link #read}) instead of through {@link EventValues}' rules one row at a
 * time: a record (and the records in it, not under a union) is its fields in order, each a value to
 * skip or one column's value, and a union a table of one action per branch. Only the common cases
 * have an action of their own: a null (the column's value is missing), an {@code int} or {@code
 * long} into a label, dense or id column, a {@code boolean} into a label or dense column, and
 * Criteo's 8- and 16-digit hexadecimal text into a {@code hex2int} id column. Every other value
 * (decimal text, a float, an int beyond 32 bits, other text, a value the column cannot hold, a
 * datum that does not follow its schema) is a {@link #FALLBACK}: the datum is read again by the
 * plan's walk, whose rules and dead letters stay the reference ({@code AvroEventDecoderTest}
 * compares the two readings, row for row and dead letter for dead letter). Read this way, 4,096
 * Criteo lines as records of {@code long} ids decode at 2.2 times the walk's rate ({@code
 * AvroDecodeBenchmark}; docs/PERFORMANCE.md, "Avro and Protobuf events").
 *
 * <p>A plan has no flat form ({@link #of} returns null) when its rows need what only the walk keeps
 * per row: an event time, a list column, a {@code hash64} column's original strings, 64 fields or
 * more; or when a value a column reads sits under a union of records, an array or a map.
 */
final class AvroFlat {

    // An action's kind, in its low 8 bits; its argument (a field, a column, a byte count) above.
    // The kinds that read a varint first, up to LAST_VARINT:
    static final int SKIP_VARINT = 0;
    static final int DENSE_INT = 1; // argument: the field; an int or long within 32 bits
    static final int ID_INT = 2; // argument: the field; an Avro int, which must fit 32 bits
    static final int ID_LONG = 3; // argument: the field
    static final int LAST_VARINT = ID_LONG;
    // The others:
    static final int SKIP = 4; // nothing to read: a null (a column's: missing)
    static final int SKIP_BYTES = 5; // a length, then that many bytes
    static final int SKIP_FIXED = 6; // argument: the byte count
    static final int SKIP_STEP = 7; // argument: an index into {@link #skips}
    static final int DENSE_BOOLEAN = 8; // argument: the field
    static final int ID_HEX = 9; // argument: the field; 8 or 16 hexadecimal digits, or none
    static final int FALLBACK = 10;

    /**
     * What {@link #read} returns for a datum it leaves to the walk (no mask of fields: 64 bits).
     */
    static final long NOT_READ = -1L;

    /**
     * Per value read in a datum, in order: the index in {@link #actions} of its action, or of its
     * union's first branch's action.
     */
    final int[] first;

    /** Per value: 0 if it is no union, else the union's branch count. */
    final int[] branches;

    final int[] actions;

    /** Values skipped by the plan's walk: unions of records, arrays, maps nobody reads. */
    final Step[] skips;

    private AvroFlat(int[] first, int[] branches, int[] actions, Step[] skips) {
        this.first = first;
        this.branches = branches;
        this.actions = actions;
        this.skips = skips;
    }

    /**
     * The flat form of the datums whose plan is {@code root}, their values going to {@code values}'
     * columns; null if they have none.
     */
    static AvroFlat of(Step root, EventValues values) {
        if (!values.rows.writesStraight()) {
            return null;
        }
        Builder b = new Builder(values);
        return b.add(root) ? b.build() : null;
    }

    /**
     * Reads the datum at {@code in}'s position, its values straight into {@code rows}' next row:
     * the fields it has, as {@link EventRows#commitWritten} takes them, or {@link #NOT_READ} (the
     * cursor anywhere) at the first value it leaves to the walk. {@code root}: the plan's, for the
     * cursor's messages.
     */
    long read(AvroCursor in, Step root, EventRows rows) {
        int row = rows.nextRow();
        int width = rows.width;
        int at = row * width;
        int[] dense = rows.labelDense();
        long[][] keys = rows.keys();
        byte[] b = in.buf;
        int end = in.limit;
        int p = in.pos; // in a local, and in the cursor only around the calls that read on
        long present = 0;
        try {
            for (int i = 0; i < first.length; i++) {
                int action;
                int n = branches[i];
                if (n == 0) {
                    action = actions[first[i]];
                } else { // a union's branch: zig-zag 0, 1, 2 are bytes 0, 2, 4
                    int x = p < end ? b[p] : 1;
                    if ((x & 0x81) != 0 || (x >>>= 1) >= n) {
                        return NOT_READ; // past the end, negative, or more than a byte
                    }
                    p++;
                    action = actions[first[i] + x];
                }
                int kind = kind(action);
                int arg = argument(action);
                if (kind <= LAST_VARINT) {
                    long v;
                    if (end - p >= 10) { // no varint runs past the datum: no bounds checks
                        long raw = 0;
                        int shift = 0;
                        int x;
                        do {
                            x = b[p++];
                            raw |= (long) (x & 0x7f) << shift;
                            shift += 7;
                        } while (x < 0 && shift < 70);
                        if (x < 0) {
                            return NOT_READ; // longer than 10 bytes
                        }
                        v = (raw >>> 1) ^ -(raw & 1);
                    } else {
                        in.pos = p;
                        v = in.readLong(root);
                        p = in.pos;
                    }
                    switch (kind) {
                        case DENSE_INT -> {
                            if ((int) v != v) {
                                return NOT_READ;
                            }
                            dense[at + arg] = (int) v;
                            present |= 1L << arg;
                        }
                        case ID_INT -> {
                            if ((int) v != v) {
                                return NOT_READ;
                            }
                            keys[arg - width][row] = v;
                            present |= 1L << arg;
                        }
                        case ID_LONG -> {
                            keys[arg - width][row] = v;
                            present |= 1L << arg;
                        }
                        default -> {} // SKIP_VARINT
                    }
                    continue;
                }
                switch (kind) {
                    case SKIP -> {}
                    case SKIP_FIXED -> {
                        if (arg > end - p) {
                            return NOT_READ;
                        }
                        p += arg;
                    }
                    case SKIP_BYTES, SKIP_STEP -> {
                        in.pos = p;
                        if (kind == SKIP_STEP) {
                            in.skip(skips[arg]);
                        } else {
                            int length = in.length(root); // read before in.pos, which it moves
                            in.pos += length;
                        }
                        p = in.pos;
                    }
                    case DENSE_BOOLEAN -> {
                        if (p >= end || (b[p] & ~1) != 0) {
                            return NOT_READ;
                        }
                        dense[at + arg] = b[p++];
                        present |= 1L << arg;
                    }
                    case ID_HEX -> {
                        in.pos = p;
                        int length = in.length(root);
                        p = in.pos;
                        long id;
                        if (length == Long.BYTES) {
                            long w = Swar.load(b, p);
                            if (!Swar.isHex8(w)) {
                                return NOT_READ;
                            }
                            id = Swar.hex8(w);
                        } else if (length == 2 * Long.BYTES) {
                            long high = Swar.load(b, p);
                            long low = Swar.load(b, p + Long.BYTES);
                            if (!Swar.isHex8(high) || !Swar.isHex8(low)) {
                                return NOT_READ;
                            }
                            id = Swar.hex8(high) << 32 | Swar.hex8(low);
                        } else if (length == 0) {
                            continue; // missing, as an empty field
                        } else {
                            return NOT_READ;
                        }
                        p += length;
                        keys[arg - width][row] = id;
                        present |= 1L << arg;
                    }
                    default -> {
                        return NOT_READ;
                    }
                }
            }
        } catch (Malformed bad) {
            return NOT_READ; // the walk reads it again, for its dead letter
        }
        in.pos = p;
        return present;
    }

    /** The kind of action {@code action}. */
    static int kind(int action) {
        return action & 0xff;
    }

    /** The argument of action {@code action}. */
    static int argument(int action) {
        return action >>> 8;
    }

    private static final class Builder {
        private final EventValues values;
        private final List<Integer> first = new ArrayList<>();
        private final List<Integer> branches = new ArrayList<>();
        private final List<Integer> actions = new ArrayList<>();
        private final List<Step> skips = new ArrayList<>();

        Builder(EventValues values) {
            this.values = values;
        }

        /** Adds the values of {@code step}; false if one has no flat form. */
        boolean add(Step step) {
            if (step.wanted && step.mismatch == null && step.targets.length == 0) {
                if (step.type != T_RECORD) {
                    return false; // a column's value under a union, an array or a map
                }
                for (Step f : step.fields) {
                    if (!add(f)) {
                        return false;
                    }
                }
                return true;
            }
            first.add(actions.size());
            if (step.type == T_UNION) {
                branches.add(step.branches.length);
                for (Step branch : step.branches) {
                    if (branch.type == T_UNION) {
                        return false; // no schema has one; Avro forbids it
                    }
                    actions.add(action(step, branch));
                }
            } else {
                branches.add(0);
                actions.add(action(step, step));
            }
            return true;
        }

        /** The action of {@code value}, the value of {@code step} or one of its branches. */
        private int action(Step step, Step value) {
            if (!step.wanted) {
                return skip(value);
            }
            if (step.mismatch != null || step.targets.length != 1) {
                return FALLBACK;
            }
            int f = step.targets[0];
            boolean dense = f < values.width;
            return switch (value.type) {
                case T_NULL -> SKIP; // missing: the column's fill
                case T_INT -> (dense ? DENSE_INT : ID_INT) | f << 8;
                case T_LONG -> (dense ? DENSE_INT : ID_LONG) | f << 8;
                case T_BOOLEAN -> dense ? DENSE_BOOLEAN | f << 8 : FALLBACK;
                case T_STRING -> dense ? FALLBACK : ID_HEX | f << 8;
                default -> FALLBACK;
            };
        }

        /** The action that skips {@code value}, which nobody reads. */
        private int skip(Step value) {
            return switch (value.type) {
                case T_NULL -> SKIP;
                case T_BOOLEAN -> SKIP_FIXED | 1 << 8;
                case T_INT, T_LONG, T_ENUM -> SKIP_VARINT;
                case T_FLOAT -> SKIP_FIXED | 4 << 8;
                case T_DOUBLE -> SKIP_FIXED | 8 << 8;
                case T_STRING -> SKIP_BYTES;
                case T_FIXED -> SKIP_FIXED | value.fixedSize << 8;
                default -> {
                    skips.add(value);
                    yield SKIP_STEP | (skips.size() - 1) << 8;
                }
            };
        }

        AvroFlat build() {
            return new AvroFlat(
                    first.stream().mapToInt(Integer::intValue).toArray(),
                    branches.stream().mapToInt(Integer::intValue).toArray(),
                    actions.stream().mapToInt(Integer::intValue).toArray(),
                    skips.toArray(new Step[0]));
        }
    }
}
