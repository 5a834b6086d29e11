package dev.piper.hwmodel;

/**
 * Where a vocabulary table lives on the device: on-chip SRAM (BRAM/URAM) or off-chip memory (HBM on
 * the U55C, DDR on the SmartSSD). Stateless operators ignore it.
 */
public enum Tier {
    ONCHIP,
    OFFCHIP
}
