package dev.piper.job.spec;

import java.util.List;

/**
 * One operator of a column's chain, from PIPER's set. Parameters are typed fields; an operator
 * without parameters has none.
 */
public sealed interface Op {

    /** The operator's name in specs. */
    String name();

    /** Splits the field out of the line (every chain starts with it). */
    record Decode() implements Op {
        public String name() {
            return "decode";
        }
    }

    /** An empty field becomes 0 (id 0 for categorical columns). */
    record FillMissing() implements Op {
        public String name() {
            return "fill_missing";
        }
    }

    /** Negative values become 0. */
    record Neg2Zero() implements Op {
        public String name() {
            return "neg2zero";
        }
    }

    /** {@code log(x + 1)}, written as float32. */
    record Log() implements Op {
        public String name() {
            return "log";
        }
    }

    /** Hexadecimal id to an unsigned 64-bit integer. */
    record Hex2Int() implements Op {
        public String name() {
            return "hex2int";
        }
    }

    /** {@code id mod m} (unsigned), {@code m > 0}. */
    record Modulus(long m) implements Op {
        public String name() {
            return "modulus";
        }
    }

    /** GenVocab + ApplyVocab: the key's index of first appearance. */
    record Vocab() implements Op {
        public String name() {
            return "vocab";
        }
    }

    /** Every operator name a spec may use. */
    List<String> NAMES =
            List.of("decode", "fill_missing", "neg2zero", "log", "hex2int", "modulus", "vocab");
}
