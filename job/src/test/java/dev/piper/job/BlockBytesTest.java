package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The limits of a plain file's blocks: a floor, a ceiling, and at most 100,000 of them. */
class BlockBytesTest {

    @Test
    void blocksBelowTheFloorOrAboveTheCeilingAreRefused() {
        assertThat(PiperOptions.blockBytesProblem(1_000, 1))
                .get()
                .asString()
                .startsWith("must be between 65536 (64 KiB");
        assertThat(PiperOptions.blockBytesProblem(1_000, 1 << 29)).isPresent();
        assertThat(PiperOptions.blockBytesProblem(1_000, 64 << 10)).isEmpty();
        assertThat(PiperOptions.blockBytesProblem(0, 1 << 20)).isEmpty();
    }

    /** A 45 GB day of Criteo's Terabyte set in 64 KiB blocks would be 700,000 splits. */
    @Test
    void moreThanAHundredThousandBlocksOfOneFileAreRefusedNamingTheLeastSize() {
        long day = 45L << 30;
        assertThat(PiperOptions.blockBytesProblem(day, 64 << 10))
                .get()
                .asString()
                .isEqualTo(
                        "65536 makes 737280 blocks of the 48318382080-byte input, more than"
                                + " 100000; use at least 483184");
        assertThat(PiperOptions.blockBytesProblem(day, 1 << 20)).isEmpty();
    }
}
