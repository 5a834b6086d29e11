package dev.piper.hwmodel;

import java.util.List;

/**
 * What one column did in a report interval, as the job measures it (COMBINING.md, "What to
 * measure"): the values processed, the column's encoded input bytes, the operator chain, and its
 * vocabulary, if any.
 *
 * @param column the column's name, e.g. {@code C3}
 * @param ops the chain applied, in order, in model names' operators
 * @param values values processed (for a multi-hot column, the total list length)
 * @param inputBytes the column's encoded input bytes (UTF-8 with its delimiter, or binary)
 * @param vocabulary the column's vocabulary table, or null if it has none
 */
public record ColumnWork(
        String column, List<Operator> ops, long values, long inputBytes, Vocabulary vocabulary) {

    /**
     * A vocabulary table as the device would hold it.
     *
     * @param entries distinct entries so far
     * @param modulusRange the modulus when ids are taken modulo one (PIPER's tables are
     *     direct-mapped by it), or 0 for a hashed table that grows with its entries
     */
    public record Vocabulary(long entries, long modulusRange) {

        /** Bytes per entry of a hashed table: a 64-bit key and a 32-bit index. */
        public static final int HASHED_ENTRY_BYTES = 12;

        /** Load factor of a hashed table [ASSUME]. */
        public static final double LOAD_FACTOR = 0.75;

        /**
         * The table's bytes on the device: a direct-mapped table holds its modulus range (a 4-byte
         * index and a 1-bit bitmap per slot, P2 §3.4.2 "the length of the list is determined by the
         * range of Modulus"); a hashed one, entries / load factor x 12 bytes.
         */
        public double bytes() {
            if (modulusRange > 0) {
                return modulusRange * (4 + 1 / 8.0);
            }
            return entries / LOAD_FACTOR * HASHED_ENTRY_BYTES;
        }
    }

    public ColumnWork {
        ops = List.copyOf(ops);
        if (values < 0 || inputBytes < 0) {
            throw new IllegalArgumentException(column + ": negative values or bytes");
        }
        boolean vocabOps = ops.stream().anyMatch(Operator::usesVocabulary);
        if (vocabOps != (vocabulary != null)) {
            throw new IllegalArgumentException(
                    column
                            + ": a vocabulary table is needed exactly when the chain has genvocab"
                            + " or applyvocab");
        }
    }

    /** Bytes of one value in a binary input: an int32 (P1 §3.4.1, 160-byte rows of 40 values). */
    public static final int BINARY_VALUE_BYTES = 4;

    /**
     * The same work on a binary or columnar input (P1's binary dataset, P2's Parquet): its values
     * as int32, nothing to parse.
     */
    public ColumnWork asBinary() {
        return new ColumnWork(column, ops, values, values * BINARY_VALUE_BYTES, vocabulary);
    }

    /** Whether the chain builds and applies a vocabulary (two passes on PIPER). */
    public boolean hasVocabulary() {
        return vocabulary != null;
    }
}
