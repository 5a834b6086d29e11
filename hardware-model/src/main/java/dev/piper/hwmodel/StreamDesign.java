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

    /**
     * Cycles per value of {@code op} run alone (P1 Table 4: II 1 for every operator but GenVocab-1,
     * whose read-modify-write of the bitmap takes 2).
     */
    public double initiationInterval(Operator op) {
        return op == Operator.GENVOCAB ? 2 : 1;
    }

    /** Seconds for {@code op} alone over {@code values} values. */
    public double seconds(Operator op, long values) {
        return values * initiationInterval(op) / clock.value();
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
        double stream = valuesPerRow * initiationInterval(Operator.GENVOCAB);
        double decode = bytesPerRow / DECODE_BYTES_PER_CYCLE;
        return clock.value() / (passes * Math.max(stream, decode));
    }
}
