package dev.piper.hwmodel;

/**
 * PIPER's network-attached design on an Alveo U55C (P2, {@code seeds/002_c4a213b229ffc976.txt}): up
 * to seven MiniPipes, each a 64-byte datapath taking one beat per cycle; an operator needs {@link
 * #initiationInterval} cycles per beat, which for the vocabulary operators depends on the table's
 * {@link Tier}.
 *
 * <p>Values reach a MiniPipe packed into beats: column-packed (the project's columnar blocks: 16
 * int32 or 8 hex ids per beat) or row-packed (the paper: a row's 26 sparse int32 take 2 beats, 6
 * slots empty), see {@link Packing}.
 *
 * @param miniPipes how many MiniPipes the bitstream holds (1..7)
 * @param packing how values are packed into beats
 */
public record MiniPipeDesign(int miniPipes, Packing packing) {

    /** How values are packed into 64-byte beats. */
    public enum Packing {
        /** 64 / width values of one column per beat. */
        COLUMN,
        /** All the row's values of the operator's columns together, per row. */
        ROW
    }

    /** Bytes per beat: P2 §3.4 "the data width is set to 64 bytes". */
    public static final int BEAT_BYTES = 64;

    /** MiniPipes a U55C holds: P2 §4.2.3 "limited by the number of AXI streams". */
    public static final int MAX_MINIPIPES = 7;

    public MiniPipeDesign {
        if (miniPipes < 1 || miniPipes > MAX_MINIPIPES) {
            throw new IllegalArgumentException(
                    "miniPipes: 1.." + MAX_MINIPIPES + ", not " + miniPipes);
        }
    }

    /** The kernel clock for this many MiniPipes. */
    public Parameter clock() {
        if (miniPipes <= 4) {
            return Parameter.quoted(
                    200e6,
                    "Hz",
                    "P2 §4.1.2: \"the achieved kernel frequency of PIPER for the different"
                            + " pipelines is 200MHz\"");
        }
        if (miniPipes == MAX_MINIPIPES) {
            return Parameter.quoted(
                    135e6,
                    "Hz",
                    "P2 §4.2.3: \"up to 7 MiniPipes concurrently (with the frequency downgraded"
                            + " to 135MHz\"");
        }
        return Parameter.assumed(135e6, "Hz", "5-6 MiniPipes: not reported; as for 7");
    }

    /** Cycles per beat of {@code op} with its vocabulary in {@code tier}. */
    public Parameter initiationInterval(Operator op, Tier tier) {
        return switch (op) {
            case NEG2ZERO, LOG -> Parameter.quoted(1, "cycles/beat", "P2 §3.4.1");
            case HEX2INT, MODULUS -> Parameter.quoted(1, "cycles/beat", "P2 §3.4.2");
            case FILL_MISSING ->
                    Parameter.quoted(
                            0,
                            "cycles/beat",
                            "P1 §3.1: merged into Decode, \"the default value for the empty element"
                                    + " after Decode is 0\"");
            case GENVOCAB ->
                    tier == Tier.ONCHIP
                            ? Parameter.quoted(
                                    2,
                                    "cycles/beat",
                                    "P2 §3.4.2: \"on-chip memory offering an II of two cycles\"")
                            : Parameter.fit(
                                    4.69,
                                    "cycles/beat",
                                    "P2 §3.4.2 \"approximately six cycles\"; fitted to P2 Table 4"
                                            + " VocabGen-512K 2.15 s");
            case APPLYVOCAB ->
                    tier == Tier.ONCHIP
                            ? Parameter.quoted(
                                    1, "cycles/beat", "P2 §3.4.2: \"one cycle when ... on-chip\"")
                            : Parameter.fit(
                                    6.46,
                                    "cycles/beat",
                                    "P2 §3.4.2 \"approximately six cycles\"; fitted to P2 Table 4"
                                            + " VocabMap-512K 2.96 s");
            case BUCKETIZE, SIGRIDHASH, CLAMP, BOXCOX, LOGIT, CAST ->
                    Parameter.assumed(
                            1, "cycles/beat", "not built by PIPER; one beat per cycle assumed");
            case FIRSTX ->
                    Parameter.assumed(
                            1,
                            "cycles/beat",
                            "RAP's FirstX, built by no paper: a list's ids streamed through,"
                                    + " the first x kept, one beat per cycle assumed");
            case NGRAM ->
                    Parameter.assumed(
                            1,
                            "cycles/beat",
                            "RAP's Ngram, built by no paper: one n-gram hashed per id, priced as"
                                    + " a hash unit (one beat per cycle) assumed");
            case ONEHOT ->
                    Parameter.assumed(
                            1,
                            "cycles/beat",
                            "RAP's Onehot, built by no paper: one beat of categories per cycle"
                                    + " assumed; its size - 1 outputs per value are not priced");
            case MAPID ->
                    Parameter.assumed(
                            1,
                            "cycles/beat",
                            "not built by PIPER; a lookup in a table held on chip, priced as"
                                    + " ApplyVocab on chip (P2 §3.4.2), whatever the table's size");
        };
    }

    /** Beats that {@code values} values of {@code valueBytes} each take, column-packed. */
    public static long columnBeats(long values, int valueBytes) {
        long perBeat = BEAT_BYTES / valueBytes;
        return (values + perBeat - 1) / perBeat;
    }

    /**
     * Beats that {@code rows} rows of {@code columns} values of {@code valueBytes} each take,
     * row-packed (each row starts a new beat).
     */
    public static long rowBeats(long rows, int columns, int valueBytes) {
        long bytes = (long) columns * valueBytes;
        return rows * ((bytes + BEAT_BYTES - 1) / BEAT_BYTES);
    }

    /** Seconds for {@code op} over {@code beats} beats in one MiniPipe. */
    public double seconds(Operator op, Tier tier, long beats) {
        return beats * initiationInterval(op, tier).value() / clock().value();
    }

    /** The datapath's bytes per second over all MiniPipes: n x 64 B x f. */
    public double datapathBytesPerSecond() {
        return miniPipes * (double) BEAT_BYTES * clock().value();
    }
}
