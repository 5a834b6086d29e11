package dev.piper.hwmodel;

/**
 * PIPER's first design (P1, {@code seeds/000_004c19f76fbab3fc.txt}): one 32-bit stream through a
 * chain of processing elements, one value per cycle at best, the UTF-8 decoder taking 4 bytes per
 * cycle, vocabularies generated and applied in two passes over the data.
 *
 * @param clock the kernel clock
 * @param binaryCyclesPerRow cycles per row of the whole pipeline on binary input (P1 Table 3 Config
 *     III), which the paper does not break down: fitted per design (PARAMS.md §15)
 */
public record StreamDesign(Parameter clock, Parameter binaryCyclesPerRow) {

    private static final String BINARY_FIT = "fitted to P1 Table 3 Config III (binary), ";

    /**
     * UTF-8 bytes the decoder takes per cycle: P1 §3.3 "the four-byte version in the final design".
     */
    public static final int DECODE_BYTES_PER_CYCLE = 4;

    /** U55C, network-attached, 5K vocabularies: P1 Table 4 caption "FPGA 250MHz for vocab 5K". */
    public static StreamDesign u55cSmallVocabulary() {
        return new StreamDesign(
                Parameter.quoted(250e6, "Hz", "P1 Table 4 caption: \"250MHz for vocab 5K\""),
                Parameter.fit(10.59, "cycles/row", BINARY_FIT + "U55c network 5K"));
    }

    /** U55C, network-attached, 1M vocabularies: P1 Table 4 caption "135MHz for vocab 1M". */
    public static StreamDesign u55cLargeVocabulary() {
        return new StreamDesign(
                Parameter.quoted(135e6, "Hz", "P1 Table 4 caption: \"135MHz for vocab 1M\""),
                Parameter.fit(27.05, "cycles/row", BINARY_FIT + "U55c network 1M"));
    }

    /** U250, local: 300 MHz, the DDR lane clock, fitted to P1 Table 3 Local 1.87E+6 rows/s. */
    public static StreamDesign u250Local() {
        return new StreamDesign(
                Parameter.fit(
                        300e6,
                        "Hz",
                        "P1 §3.3 \"512-bit wide memory lane, 300MHz\"; reproduces Table 3 Local"),
                Parameter.fit(16.95, "cycles/row", BINARY_FIT + "U250 local 5K"));
    }

    /** The two loops over the data of P1's stateful pipeline (§3.2): generate, then apply. */
    public enum Loop {
        GENERATE,
        APPLY
    }

    /**
     * Cycles per value of {@code op} run alone in {@code loop} (P1 Table 4: one cycle for every
     * operator, but GenVocab in the first loop, whose read-modify-write of the bitmap takes 2;
     * GenVocab-2 passes values through; ApplyVocab reaches one cycle off chip too, its features'
     * tables spread round robin over HBM channels, §4.4.6).
     */
    public double initiationInterval(Operator op, Loop loop) {
        return op == Operator.GENVOCAB && loop == Loop.GENERATE ? 2 : 1;
    }

    /** Seconds for {@code op} alone over {@code values} values in {@code loop}. */
    public double seconds(Operator op, Loop loop, long values) {
        return values * initiationInterval(op, loop) / clock.value();
    }

    /**
     * Seconds for Binary Unpack over {@code values} values: one value a cycle (P1 Table 4, the row
     * replacing Decode on binary input).
     */
    public double unpackSeconds(long values) {
        return values / clock.value();
    }

    /** Seconds to decode {@code utf8Bytes} of UTF-8 input. */
    public double decodeSeconds(double utf8Bytes) {
        return utf8Bytes / DECODE_BYTES_PER_CYCLE / clock.value();
    }

    /** Rows per second of the whole pipeline on binary input. */
    public double binaryRowsPerSecond() {
        return clock.value() / binaryCyclesPerRow.value();
    }

    /**
     * Rows per second of the whole stateful pipeline on UTF-8 input: each of {@code passes} passes
     * streams every value of the row through the chain at the pipeline's II (2, set by GenVocab: P1
     * §3.2 "two cycles because the performance is limited by the PEs for GenVocab-1"), unless the
     * decoder is slower.
     */
    public double utf8RowsPerSecond(int valuesPerRow, double bytesPerRow, int passes) {
        double stream = valuesPerRow * initiationInterval(Operator.GENVOCAB, Loop.GENERATE);
        double decode = bytesPerRow / DECODE_BYTES_PER_CYCLE;
        return clock.value() / (passes * Math.max(stream, decode));
    }
}
