package dev.piper.hwmodel;

/** The dataset the PIPER papers measure on (P1 §4.1, P2 §4.1.1): Criteo Kaggle. */
public final class CriteoKaggle {

    /**
     * Rows of the public {@code train.txt} [EXT]; P1 Table 4 implies 45,815,625 to 45,843,750 (7.33
     * s x 250 MHz / 40 and 13.58 s x 135 MHz / 40, with rounding), P2 "45 million".
     */
    public static final long ROWS = 45_840_617L;

    /** Values per row: 1 label, 13 dense, 26 sparse (P1 §4.1). */
    public static final int VALUES_PER_ROW = 40;

    public static final int DENSE = 13;
    public static final int SPARSE = 26;

    /** UTF-8 size: P1 §4.1 "The raw UTF-8 dataset is 11GB". */
    public static final double UTF8_BYTES = 11e9;

    private CriteoKaggle() {}
}
